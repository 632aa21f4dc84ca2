#include "CompileDatabase.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <nlohmann/json.hpp>

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

llvm::Expected<CompileDatabase> parseCompileDatabase(const std::string &Text,
                                                     const std::string &Path) {
  nlohmann::json Root;
  try {
    Root = nlohmann::json::parse(Text);
  } catch (const nlohmann::json::parse_error &E) {
    auto [Line, Column] = lineColumn(Text, E.byte > 0 ? E.byte - 1 : 0);
    std::string Reason = E.what();
    // nlohmann's text: "[json.exception.parse_error.101] parse error at line
    // 1, column 2: syntax error while parsing value - invalid literal; ..."
    size_t Detail = Reason.find(": ", Reason.find("parse error"));
    if (Detail != std::string::npos)
      Reason = Reason.substr(Detail + 2);
    return problem(Path, "invalid JSON at line " + llvm::Twine(Line) +
                             ", column " + llvm::Twine(Column) + ": " + Reason);
  } catch (const nlohmann::json::exception &E) {
    // A number too large for a double: "[json.exception.out_of_range.406]
    // number overflow parsing '1e99999'".
    std::string Reason = E.what();
    return problem(Path,
                   "invalid JSON: " + Reason.substr(Reason.find(' ') + 1));
  }
  if (!Root.is_array())
    return problem(Path, "expected a JSON array of compile commands");

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
  for (size_t Index = 0; Index < Root.size(); ++Index) {
    const nlohmann::json &Item = Root[Index];
    std::string Where = "entry " + std::to_string(Index + 1);
    if (!Item.is_object())
      return problem(Path, Where + " is not a JSON object");
    auto StringField = [&](const char *Name) -> const std::string * {
      auto It = Item.find(Name);
      if (It == Item.end() || !It->is_string())
        return nullptr;
      return It->get_ptr<const std::string *>();
    };
    const std::string *Directory = StringField("directory");
    const std::string *File = StringField("file");
    if (!File)
      return problem(Path, Where + " has no \"file\" string");
    if (!Directory)
      return problem(Path,
                     Where + " (" + *File + ") has no \"directory\" string");
    CompileEntry Entry;
    Entry.Directory = absolutePath(*Directory, Base);
    Entry.File = absolutePath(*File, Entry.Directory);
    if (auto It = Item.find("arguments"); It != Item.end()) {
      if (!It->is_array() || It->empty())
        return problem(Path, Where + " (" + *File +
                                 ") has an \"arguments\" field that is not a "
                                 "non-empty array of strings");
      for (const nlohmann::json &Arg : *It) {
        if (!Arg.is_string())
          return problem(Path, Where + " (" + *File +
                                   ") has a non-string in \"arguments\"");
        Entry.Arguments.push_back(Arg.get<std::string>());
      }
    } else if (const std::string *Command = StringField("command")) {
      Entry.Arguments = splitCommandLine(*Command);
      if (Entry.Arguments.empty())
        return problem(Path,
                       Where + " (" + *File + ") has an empty \"command\"");
    } else {
      return problem(Path, Where + " (" + *File +
                               ") has neither \"command\" nor \"arguments\"");
    }
    Database.Entries.push_back(std::move(Entry));
  }
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
