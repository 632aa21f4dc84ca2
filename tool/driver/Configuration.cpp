#include "driver/Configuration.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/YAMLParser.h"

namespace torchlint {

std::optional<std::string> MapOptions::get(llvm::StringRef Key) const {
  auto It = Values.find(Key.str());
  if (It == Values.end())
    return std::nullopt;
  return It->second;
}

namespace {
std::optional<std::string> scalar(llvm::yaml::Node *Node) {
  auto *Scalar = llvm::dyn_cast_or_null<llvm::yaml::ScalarNode>(Node);
  if (!Scalar)
    return std::nullopt;
  llvm::SmallString<64> Storage;
  return Scalar->getValue(Storage).str();
}
} // namespace

llvm::Expected<std::map<std::string, std::string>>
parseCheckOptions(llvm::StringRef Yaml, const std::string &Path) {
  std::string Diagnostic;
  llvm::SourceMgr Sources;
  Sources.setDiagHandler(
      [](const llvm::SMDiagnostic &D, void *Context) {
        auto &Out = *static_cast<std::string *>(Context);
        if (Out.empty())
          Out = "line " + std::to_string(D.getLineNo()) + ", column " +
                std::to_string(D.getColumnNo() + 1) + ": " +
                D.getMessage().str();
      },
      &Diagnostic);
  auto Problem = [&](const std::string &What) {
    return llvm::createStringError(std::errc::invalid_argument, "%s: %s",
                                   Path.c_str(), What.c_str());
  };

  // Report malformed YAML before any complaint about its shape.
  llvm::yaml::Stream Syntax(Yaml, Sources);
  Syntax.skip();
  if (Syntax.failed() || !Diagnostic.empty())
    return Problem("invalid YAML at " + (Diagnostic.empty()
                                             ? std::string("an unknown place")
                                             : Diagnostic));

  std::map<std::string, std::string> Options;
  llvm::yaml::Stream Stream(Yaml, Sources);
  for (llvm::yaml::Document &Doc : Stream) {
    auto *Root = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(Doc.getRoot());
    if (!Root)
      continue;
    for (llvm::yaml::KeyValueNode &Entry : *Root) {
      if (scalar(Entry.getKey()) != "CheckOptions")
        continue;
      llvm::yaml::Node *Value = Entry.getValue();
      if (auto *Map = llvm::dyn_cast_or_null<llvm::yaml::MappingNode>(Value)) {
        for (llvm::yaml::KeyValueNode &Option : *Map) {
          std::optional<std::string> Key = scalar(Option.getKey());
          std::optional<std::string> Setting = scalar(Option.getValue());
          if (!Key || !Setting)
            return Problem("CheckOptions must map names to values");
          Options[*Key] = *Setting;
        }
      } else if (auto *List =
                     llvm::dyn_cast_or_null<llvm::yaml::SequenceNode>(Value)) {
        for (llvm::yaml::Node &Item : *List) {
          auto *Pair = llvm::dyn_cast<llvm::yaml::MappingNode>(&Item);
          if (!Pair)
            return Problem("each CheckOptions entry needs a key and a value");
          std::optional<std::string> Key, Setting;
          for (llvm::yaml::KeyValueNode &Field : *Pair) {
            std::optional<std::string> Name = scalar(Field.getKey());
            if (Name == "key")
              Key = scalar(Field.getValue());
            else if (Name == "value")
              Setting = scalar(Field.getValue());
          }
          if (!Key || !Setting)
            return Problem("each CheckOptions entry needs a key and a value");
          Options[*Key] = *Setting;
        }
      } else {
        return Problem("CheckOptions must be a mapping or a list");
      }
    }
  }
  return Options;
}

llvm::Expected<std::map<std::string, std::string>>
readCheckOptions(const std::string &Path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Buffer =
      llvm::MemoryBuffer::getFile(Path, /*IsText=*/true);
  if (!Buffer)
    return llvm::createStringError(std::errc::invalid_argument,
                                   "%s: cannot read: %s", Path.c_str(),
                                   Buffer.getError().message().c_str());
  return parseCheckOptions((*Buffer)->getBuffer(), Path);
}

std::string findConfigFile(llvm::StringRef Directory) {
  for (llvm::StringRef Dir = Directory; !Dir.empty();
       Dir = llvm::sys::path::parent_path(Dir)) {
    llvm::SmallString<256> Candidate(Dir);
    llvm::sys::path::append(Candidate, ".clang-tidy");
    if (llvm::sys::fs::is_regular_file(Candidate))
      return std::string(Candidate);
  }
  return "";
}

} // namespace torchlint
