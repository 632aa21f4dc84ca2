#include "compile/CompileDatabase.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace torchlint {

namespace {

llvm::Error problem(const std::string &Path, const llvm::Twine &What) {
  return llvm::createStringError(std::errc::invalid_argument, "%s: %s",
                                 Path.c_str(), What.str().c_str());
}

/// Line and column (1-based) of a byte offset.
std::pair<size_t, size_t> lineColumn(const std::string &Text, size_t Offset) {
  size_t Line = 1, Column = 1;
  for (size_t I = 0; I < Offset && I < Text.size(); ++I) {
    if (Text[I] == '\n') {
      ++Line;
      Column = 1;
    } else {
      ++Column;
    }
  }
  return {Line, Column};
}

} // namespace

std::string absolutePath(const std::string &Path, const std::string &Base) {
  llvm::SmallString<256> Result(Path);
  if (!llvm::sys::path::is_absolute(Result)) {
    Result = Base;
    llvm::sys::path::append(Result, Path);
  }
  llvm::sys::path::remove_dots(Result, /*remove_dot_dot=*/true);
  return std::string(Result);
}

std::vector<std::string> splitCommandLine(const std::string &Command) {
  std::vector<std::string> Args;
  std::string Current;
  bool InArg = false;
  char Quote = 0;
  for (size_t I = 0; I < Command.size(); ++I) {
    char C = Command[I];
    if (Quote == '\'') {
      if (C == '\'')
        Quote = 0;
      else
        Current += C;
      continue;
    }
    if (C == '\\' && I + 1 < Command.size()) {
      char Next = Command[I + 1];
      // Inside double quotes a backslash only escapes these.
      if (Quote == '"' && Next != '"' && Next != '\\' && Next != '$' &&
          Next != '`') {
        Current += C;
        continue;
      }
      Current += Next;
      ++I;
      InArg = true;
      continue;
    }
    if (Quote == '"') {
      if (C == '"')
        Quote = 0;
      else
        Current += C;
      continue;
    }
    if (C == '"' || C == '\'') {
      Quote = C;
      InArg = true;
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r') {
      if (InArg)
        Args.push_back(std::move(Current));
      Current.clear();
      InArg = false;
      continue;
    }
    Current += C;
    InArg = true;
  }
  if (InArg)
    Args.push_back(std::move(Current));
  return Args;
}

namespace {

/// Builds the entries as nlohmann's parser reads them, with no document in
/// between: a database holds a string per argument of every unit, and
/// building a document of them and copying it took a quarter of the time
/// torchlint spent reading a database. Each entry is checked when it ends,
/// as a document's would be: the last of two equal keys counts, and the
/// first entry with a problem is reported unless the JSON is malformed
/// further on.
class EntryReader : public nlohmann::json_sax<nlohmann::json> {
public:
  EntryReader(const std::string &Base, std::vector<CompileEntry> &Entries)
      : Base(Base), Entries(Entries) {}

  /// The first problem of the entries, or of the root not being an array.
  std::optional<std::string> Problem;
  /// Set when the text is not JSON: nlohmann's message, and for a syntax
  /// error the offset just past where it was found.
  std::optional<std::string> Malformed;
  std::optional<size_t> MalformedAt;

  bool null() override { return value(nullptr); }
  bool boolean(bool) override { return value(nullptr); }
  bool number_integer(number_integer_t) override { return value(nullptr); }
  bool number_unsigned(number_unsigned_t) override { return value(nullptr); }
  bool number_float(number_float_t, const string_t &) override {
    return value(nullptr);
  }
  bool string(string_t &Text) override { return value(&Text); }
  bool binary(binary_t &) override { return value(nullptr); }

  bool start_object(std::size_t) override {
    if (Depth == 1 && !Problem)
      Current = Fields();
    else
      value(nullptr);
    ++Depth;
    return true;
  }
  bool key(string_t &Name) override {
    if (Depth == 2)
      Key = Name == "directory"   ? Field::Directory
            : Name == "file"      ? Field::File
            : Name == "command"   ? Field::Command
            : Name == "arguments" ? Field::Arguments
                                  : Field::Other;
    return true;
  }
  bool end_object() override {
    if (--Depth == 1 && !Problem)
      finishEntry();
    return true;
  }
  bool start_array(std::size_t) override {
    if (Depth == 2 && Key == Field::Arguments && !Problem) {
      Current.Arguments.clear();
      Current.Shape = ArgumentsShape::Strings;
      InArguments = true;
    } else if (Depth != 0) {
      value(nullptr);
    }
    ++Depth;
    return true;
  }
  bool end_array() override {
    if (--Depth == 2 && InArguments) {
      InArguments = false;
      if (Current.Arguments.empty() && Current.Shape == ArgumentsShape::Strings)
        Current.Shape = ArgumentsShape::NotANonEmptyArray;
    }
    return true;
  }

  bool parse_error(std::size_t, const std::string &,
                   const nlohmann::detail::exception &E) override {
    Malformed = E.what();
    if (const auto *Syntax =
            dynamic_cast<const nlohmann::json::parse_error *>(&E))
      MalformedAt = Syntax->byte;
    return false;
  }

private:
  enum class Field { Directory, File, Command, Arguments, Other };
  enum class ArgumentsShape { Absent, Strings, NotANonEmptyArray, NonString };
  struct Fields {
    std::optional<std::string> Directory, File, Command;
    std::vector<std::string> Arguments;
    ArgumentsShape Shape = ArgumentsShape::Absent;
  };

  /// A value, Text when it is a string, at the place Depth and Key say.
  bool value(string_t *Text) {
    if (Problem)
      return true;
    if (Depth == 0) {
      fail("expected a JSON array of compile commands");
    } else if (Depth == 1) {
      fail("entry " + std::to_string(++Index) + " is not a JSON object");
    } else if (Depth == 2 && Key == Field::Arguments) {
      Current.Shape = ArgumentsShape::NotANonEmptyArray;
    } else if (Depth == 2 && Key != Field::Other) {
      std::optional<std::string> &Target =
          Key == Field::Directory ? Current.Directory
          : Key == Field::File    ? Current.File
                                  : Current.Command;
      if (Text)
        Target = std::move(*Text);
      else
        Target.reset();
    } else if (Depth == 3 && InArguments) {
      if (Text)
        Current.Arguments.push_back(std::move(*Text));
      else
        Current.Shape = ArgumentsShape::NonString;
    }
    return true;
  }

  void fail(const std::string &What) {
    if (!Problem)
      Problem = What;
  }

  void finishEntry() {
    std::string Where = "entry " + std::to_string(++Index);
    if (!Current.File)
      return fail(Where + " has no \"file\" string");
    Where += " (" + *Current.File + ")";
    if (!Current.Directory)
      return fail(Where + " has no \"directory\" string");
    CompileEntry Entry;
    Entry.Directory = absolutePath(*Current.Directory, Base);
    Entry.File = absolutePath(*Current.File, Entry.Directory);
    switch (Current.Shape) {
    case ArgumentsShape::Strings:
      Entry.Arguments = std::move(Current.Arguments);
      break;
    case ArgumentsShape::NotANonEmptyArray:
      return fail(Where + " has an \"arguments\" field that is not a "
                          "non-empty array of strings");
    case ArgumentsShape::NonString:
      return fail(Where + " has a non-string in \"arguments\"");
    case ArgumentsShape::Absent:
      if (!Current.Command)
        return fail(Where + " has neither \"command\" nor \"arguments\"");
      Entry.Arguments = splitCommandLine(*Current.Command);
      if (Entry.Arguments.empty())
        return fail(Where + " has an empty \"command\"");
    }
    Entries.push_back(std::move(Entry));
  }

  const std::string &Base;
  std::vector<CompileEntry> &Entries;
  /// How many arrays and objects are open: 1 inside the root array, 2
  /// inside an entry.
  int Depth = 0;
  size_t Index = 0;
  Field Key = Field::Other;
  bool InArguments = false;
  Fields Current;
};

} // namespace

llvm::Expected<CompileDatabase> parseCompileDatabase(const std::string &Text,
                                                     const std::string &Path) {
  llvm::SmallString<256> DatabaseDir(Path);
  llvm::sys::path::remove_filename(DatabaseDir);
  std::string Base =
      absolutePath(DatabaseDir.empty() ? "." : std::string(DatabaseDir), [] {
        llvm::SmallString<256> Cwd;
        llvm::sys::fs::current_path(Cwd);
        return std::string(Cwd);
      }());

  CompileDatabase Database;
  Database.Path = Path;
  EntryReader Reader(Base, Database.Entries);
  nlohmann::json::sax_parse(Text, &Reader);
  if (Reader.Malformed && Reader.MalformedAt) {
    auto [Line, Column] =
        lineColumn(Text, *Reader.MalformedAt > 0 ? *Reader.MalformedAt - 1 : 0);
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line
    // 1, column 2: syntax error while parsing value - invalid literal; ..."
    std::string Reason = *Reader.Malformed;
    size_t Detail = Reason.find(": ", Reason.find("parse error"));
    if (Detail != std::string::npos)
      Reason = Reason.substr(Detail + 2);
    return problem(Path, "invalid JSON at line " + llvm::Twine(Line) +
                             ", column " + llvm::Twine(Column) + ": " + Reason);
  }
  if (Reader.Malformed) {
    // A number too large for a double: "[json.exception.out_of_range.406]
    // number overflow parsing '1e99999'".
    const std::string &Reason = *Reader.Malformed;
    return problem(Path,
                   "invalid JSON: " + Reason.substr(Reason.find(' ') + 1));
  }
  if (Reader.Problem)
    return problem(Path, *Reader.Problem);
  return Database;
}

llvm::Expected<CompileDatabase> loadCompileDatabase(const std::string &Path) {
  std::string File = Path;
  if (llvm::sys::fs::is_directory(Path)) {
    llvm::SmallString<256> Inside(Path);
    llvm::sys::path::append(Inside, "compile_commands.json");
    File = std::string(Inside);
    if (!llvm::sys::fs::exists(File))
      return problem(Path, "directory has no compile_commands.json");
  }
  if (!llvm::sys::fs::exists(File))
    return problem(File, "no such file");
  if (llvm::sys::fs::is_directory(File))
    return problem(File, "is a directory, not a compilation database");
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(File, /*IsText=*/true);
  if (!Buffer)
    return problem(File, "cannot read: " + Buffer.getError().message());
  return parseCompileDatabase((*Buffer)->getBuffer().str(), File);
}

std::string sourceRoot(const std::string &Override,
                       const std::vector<CompileEntry> &Entries) {
  llvm::SmallString<256> Cwd;
  llvm::sys::fs::current_path(Cwd);
  if (!Override.empty())
    return absolutePath(Override, std::string(Cwd));
  if (!Entries.empty())
    for (llvm::StringRef Dir =
             llvm::sys::path::parent_path(Entries.front().File);
         !Dir.empty(); Dir = llvm::sys::path::parent_path(Dir)) {
      llvm::SmallString<256> Git(Dir);
      llvm::sys::path::append(Git, ".git");
      if (llvm::sys::fs::exists(Git))
        return Dir.str();
    }
  return std::string(Cwd);
}

bool isCudaSource(const CompileEntry &Entry) {
  llvm::StringRef File = Entry.File;
  llvm::StringRef Compiler =
      Entry.Arguments.empty() ? "" : llvm::StringRef(Entry.Arguments.front());
  return File.ends_with(".cu") || File.ends_with(".cuh") ||
         llvm::sys::path::filename(Compiler).starts_with("nvcc");
}

} // namespace torchlint
