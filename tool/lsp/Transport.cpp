#include "Transport.h"

#include <algorithm>
#include <cctype>
#include <optional>

namespace torchlint::lsp {

namespace {

/// A header line without its line break; none at the end of the input.
/// Lines longer than a header has any reason to be are cut, so that a
/// stream without line breaks cannot grow memory.
std::optional<std::string> readHeaderLine(std::istream &In) {
  constexpr size_t MaxHeaderLine = 4096;
  std::string Line;
  int C;
  while ((C = In.get()) != std::char_traits<char>::eof()) {
    if (C == '\n') {
      if (!Line.empty() && Line.back() == '\r')
        Line.pop_back();
      return Line;
    }
    if (Line.size() < MaxHeaderLine)
      Line.push_back(static_cast<char>(C));
  }
  return std::nullopt;
}

std::string lowered(std::string Text) {
  std::transform(Text.begin(), Text.end(), Text.begin(),
                 [](unsigned char C) { return std::tolower(C); });
  return Text;
}

std::string trimmed(const std::string &Text) {
  size_t Begin = Text.find_first_not_of(" \t");
  if (Begin == std::string::npos)
    return "";
  size_t End = Text.find_last_not_of(" \t");
  return Text.substr(Begin, End - Begin + 1);
}

/// A decimal length, or none when Text is not one or is too large to be a
/// body's.
std::optional<size_t> parseLength(const std::string &Text) {
  if (Text.empty() || Text.size() > 12)
    return std::nullopt;
  size_t Value = 0;
  for (char C : Text) {
    if (C < '0' || C > '9')
      return std::nullopt;
    Value = Value * 10 + static_cast<size_t>(C - '0');
  }
  return Value;
}

} // namespace

Frame readFrame(std::istream &In) {
  Frame Result;
  std::optional<size_t> Length;
  std::string Problem;
  bool SawHeader = false;
  while (true) {
    std::optional<std::string> Line = readHeaderLine(In);
    if (!Line)
      return Result; // End
    if (Line->empty()) {
      // Blank lines before any header (a stray line break after the last
      // body) are not a message.
      if (!SawHeader)
        continue;
      break;
    }
    SawHeader = true;
    // The body of a frame that had no usable Content-Length is still in the
    // stream, and the next frame's first header follows it on this line:
    // reading resumes there.
    size_t Resume = lowered(*Line).find("content-length:");
    if (Resume != std::string::npos && Resume > 0)
      Line->erase(0, Resume);
    size_t Colon = Line->find(':');
    if (Colon == std::string::npos) {
      if (Problem.empty())
        Problem = "header line without ':'";
      continue;
    }
    std::string Name = lowered(trimmed(Line->substr(0, Colon)));
    std::string Value = trimmed(Line->substr(Colon + 1));
    if (Name == "content-length") {
      Length = parseLength(Value);
      if (!Length && Problem.empty())
        Problem = "invalid Content-Length '" + Value + "'";
    }
  }
  if (!Length) {
    Result.What = Frame::Malformed;
    Result.Problem = Problem.empty() ? "no Content-Length header" : Problem;
    return Result;
  }
  if (*Length > MaxBodyBytes) {
    In.ignore(static_cast<std::streamsize>(*Length));
    if (static_cast<size_t>(In.gcount()) < *Length)
      return Result; // End
    Result.What = Frame::Malformed;
    Result.Problem = "message of " + std::to_string(*Length) +
                     " bytes is larger than the " +
                     std::to_string(MaxBodyBytes) + " this server reads";
    return Result;
  }
  Result.Body.resize(*Length);
  In.read(Result.Body.data(), static_cast<std::streamsize>(*Length));
  if (static_cast<size_t>(In.gcount()) < *Length) {
    Result.Body.clear();
    return Result; // End
  }
  if (!Problem.empty()) {
    Result.What = Frame::Malformed;
    Result.Problem = Problem;
    Result.Body.clear();
    return Result;
  }
  Result.What = Frame::Message;
  return Result;
}

void writeFrame(std::ostream &Out, const std::string &Body) {
  Out << "Content-Length: " << Body.size() << "\r\n\r\n" << Body;
  Out.flush();
}

} // namespace torchlint::lsp
