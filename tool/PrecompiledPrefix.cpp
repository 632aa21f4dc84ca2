#include "PrecompiledPrefix.h"

#include "AtomicFile.h"
#include "ClangRun.h"
#include "core/UserCode.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/FileManager.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "llvm/Support/FileSystem.h"

using namespace clang;

namespace torchlint {

namespace {

bool isLibtorchHeaderName(llvm::StringRef Name) {
  for (llvm::StringRef Root : {"torch/", "ATen/", "c10/", "caffe2/"})
    if (Name.starts_with(Root))
      return true;
  return false;
}

/// Sees every top-level declaration of the prefix; one in a file the rules
/// analyze makes the header unusable. It also keeps the bodies of such files,
/// so that whatever it decides, skipping is exactly a plain parse's.
class PrefixGuard : public ASTConsumer {
public:
  PrefixGuard(llvm::StringRef HeaderFilter, std::string &UserFile)
      : Code(HeaderFilter), UserFile(UserFile) {}

  bool HandleTopLevelDecl(DeclGroupRef Group) override {
    for (Decl *D : Group) {
      const SourceManager &SM = D->getASTContext().getSourceManager();
      if (UserFile.empty() && Code.isAnalyzed(D->getLocation(), SM))
        UserFile = Code.filePath(D->getLocation(), SM);
    }
    return true;
  }

  bool shouldSkipFunctionBody(Decl *D) override {
    return !Code.isAnalyzed(D->getLocation(),
                            D->getASTContext().getSourceManager());
  }

private:
  UserCode Code;
  std::string &UserFile;
};

class BuildPrefixAction : public GeneratePCHAction {
public:
  BuildPrefixAction(llvm::StringRef HeaderFilter, std::string &UserFile)
      : HeaderFilter(HeaderFilter), UserFile(UserFile) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef In) override {
    CI.getFrontendOpts().SkipFunctionBodies = true;
    std::unique_ptr<ASTConsumer> Writer =
        GeneratePCHAction::CreateASTConsumer(CI, In);
    if (!Writer)
      return nullptr;
    std::vector<std::unique_ptr<ASTConsumer>> Consumers;
    Consumers.push_back(std::move(Writer));
    Consumers.push_back(std::make_unique<PrefixGuard>(HeaderFilter, UserFile));
    return std::make_unique<MultiplexConsumer>(std::move(Consumers));
  }

private:
  std::string HeaderFilter;
  std::string &UserFile;
};

} // namespace

std::string libtorchIncludePrefix(llvm::StringRef MainText) {
  std::string Prefix, Pending;
  bool InComment = false;
  while (!MainText.empty()) {
    auto [Line, Rest] = MainText.split('\n');
    MainText = Rest;
    Line = Line.trim();
    if (InComment) {
      size_t End = Line.find("*/");
      if (End == llvm::StringRef::npos)
        continue;
      InComment = false;
      Line = Line.drop_front(End + 2).trim();
    }
    if (Line.empty() || Line.starts_with("//"))
      continue;
    if (Line.starts_with("/*")) {
      size_t End = Line.find("*/", 2);
      if (End == llvm::StringRef::npos) {
        InComment = true;
        continue;
      }
      Line = Line.drop_front(End + 2).trim();
      if (Line.empty())
        continue;
    }
    if (!Line.consume_front("#"))
      break;
    Line = Line.ltrim();
    if (!Line.consume_front("include"))
      break;
    Line = Line.ltrim();
    if (!Line.starts_with("<") || Line.ends_with("\\"))
      break;
    size_t Close = Line.find('>');
    if (Close == llvm::StringRef::npos)
      break;
    llvm::StringRef Name = Line.slice(1, Close);
    llvm::StringRef After = Line.drop_front(Close + 1).ltrim();
    if (!After.empty() && !After.starts_with("//"))
      break;
    Pending += "#include <" + Name.str() + ">\n";
    if (isLibtorchHeaderName(Name)) {
      Prefix += Pending;
      Pending.clear();
    }
  }
  return Prefix;
}

void PrecompiledPrefixes::expect(const std::string &Key) {
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Expected[Key];
}

std::optional<PrecompiledHeader>
PrecompiledPrefixes::obtain(const PrefixRequest &Request, std::string &Problem,
                            PrefixBuild When) {
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    if (auto It = Settled.find(Request.Key); It != Settled.end())
      return It->second;
    if (Building[Request.Key])
      return std::nullopt;
    Building[Request.Key] = true;
  }
  std::optional<PrecompiledHeader> Header = load(Request.Key, Problem);
  bool Worth = When == PrefixBuild::Always;
  if (When == PrefixBuild::IfShared) {
    std::lock_guard<std::mutex> Lock(Mutex);
    Worth = Expected[Request.Key] >= 2;
  }
  if (!Header && Worth &&
      !llvm::sys::fs::exists(
          Cache.pathFor("pch", Request.Key, ".unusable.json")))
    Header = build(Request);
  std::lock_guard<std::mutex> Lock(Mutex);
  Building[Request.Key] = false;
  // A header that is not there yet may be built by another thread; only a
  // decision this call could make is kept for the rest of the run.
  if (Header || When != PrefixBuild::Never)
    Settled[Request.Key] = Header;
  return Header;
}

std::optional<PrecompiledHeader>
PrecompiledPrefixes::load(const std::string &Key, std::string &Problem) {
  std::string MetaPath = Cache.pathFor("pch", Key, ".json");
  std::string Unusable = Cache.pathFor("pch", Key, ".unusable.json");
  std::string Ignored;
  if (std::optional<nlohmann::json> Verdict = Cache.read(Unusable, Ignored)) {
    // A prefix that reached a user's file, or did not compile: try again
    // only once one of its files changed.
    try {
      if (sameSizeAndTime(stampsFromJson(Verdict->at("inputs"))))
        return std::nullopt;
    } catch (const nlohmann::json::exception &) {
    }
    llvm::sys::fs::remove(Unusable);
  }
  std::optional<nlohmann::json> Meta = Cache.read(MetaPath, Problem);
  if (!Meta)
    return std::nullopt;
  PrecompiledHeader Header;
  Header.Key = Key;
  Header.Path = Cache.pathFor("pch", Key, ".pch");
  try {
    Header.Inputs = stampsFromJson(Meta->at("inputs"));
    uint64_t Digest = Meta->at("digest").get<uint64_t>();
    // Clang rejects a header whose inputs merely have a new time, so only
    // size and time count here.
    if (!sameSizeAndTime(Header.Inputs))
      return std::nullopt; // out of date: rebuilt
    if (fileDigest(Header.Path) != Digest) {
      Problem = "ignored the corrupt precompiled header " + Header.Path;
      discard(Header);
      return std::nullopt;
    }
  } catch (const nlohmann::json::exception &) {
    Problem = "ignored the corrupt cache entry " + MetaPath;
    discard(Header);
    return std::nullopt;
  }
  return Header;
}

std::optional<PrecompiledHeader>
PrecompiledPrefixes::build(const PrefixRequest &Request) {
  std::string HeaderPath = Cache.pathFor("pch", Request.Key, ".h");
  std::string PchPath = Cache.pathFor("pch", Request.Key, ".pch");
  if (!writeAtomically(HeaderPath, Request.Text).empty())
    return std::nullopt;

  std::vector<std::string> Args = Request.Arguments;
  Args.insert(Args.end(), {"-x", "c++-header", HeaderPath, "-o", PchPath});
  std::string UserFile;
  IgnoringDiagConsumer Quiet;
  ClangRun Run = runClang(
      Request.Directory, std::move(Args),
      std::make_unique<BuildPrefixAction>(Request.HeaderFilter, UserFile),
      Quiet);
  if (Run.DirectoryError)
    return std::nullopt;
  bool Ok = Run.Succeeded;

  std::vector<FileStamp> Inputs;
  if (std::optional<std::vector<FileStamp>> Stamps = stampsOf(*Run.Files))
    for (FileStamp &Stamp : *Stamps)
      if (!llvm::StringRef(Stamp.Path).starts_with(PchPath))
        Inputs.push_back(std::move(Stamp));
  std::optional<uint64_t> Digest = fileDigest(PchPath);
  if (!Ok || !UserFile.empty() || !Digest) {
    llvm::sys::fs::remove(PchPath);
    Cache.write(Cache.pathFor("pch", Request.Key, ".unusable.json"),
                {{"reason", UserFile.empty() ? "does not compile"
                                             : "includes " + UserFile},
                 {"inputs", toJson(Inputs)}});
    return std::nullopt;
  }
  if (!Cache
           .write(Cache.pathFor("pch", Request.Key, ".json"),
                  {{"digest", *Digest}, {"inputs", toJson(Inputs)}})
           .empty())
    return std::nullopt;
  return PrecompiledHeader{Request.Key, PchPath, std::move(Inputs)};
}

void PrecompiledPrefixes::discard(const PrecompiledHeader &Header) {
  for (const char *Suffix : {".json", ".pch"})
    llvm::sys::fs::remove(Cache.pathFor("pch", Header.Key, Suffix));
  std::lock_guard<std::mutex> Lock(Mutex);
  Settled[Header.Key] = std::nullopt;
}

} // namespace torchlint
