#include "cache/PrecompiledPrefix.h"

#include "cache/AtomicFile.h"
#include "compile/ClangRun.h"
#include "compile/CompileDatabase.h"
#include "compile/DriverCommand.h"
#include "core/UserCode.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Basic/FileManager.h"
#include "clang/Driver/Options.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendActions.h"
#include "clang/Frontend/MultiplexConsumer.h"
#include "clang/Lex/PPCallbacks.h"
#include "clang/Lex/Preprocessor.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"

using namespace clang;

namespace torchlint {

namespace {

/// The headers of the C++ standard library ([headers], C++20), which a
/// translation unit may include in any order ([using.headers]).
bool isStandardLibraryHeaderName(llvm::StringRef Name) {
  static const llvm::StringSet<> Names = {
      "algorithm", "any", "array", "atomic", "barrier", "bit", "bitset",
      "cassert", "cctype", "cerrno", "cfenv", "cfloat", "charconv", "chrono",
      "cinttypes", "climits", "clocale", "cmath", "codecvt", "compare",
      "complex", "concepts", "condition_variable", "coroutine", "csetjmp",
      "csignal", "cstdarg", "cstddef", "cstdint", "cstdio", "cstdlib",
      "cstring", "ctime", "cuchar", "cwchar", "cwctype", "deque",
      "exception", "execution", "filesystem", "format", "forward_list",
      "fstream", "functional", "future", "initializer_list", "iomanip", "ios",
      "iosfwd", "iostream", "istream", "iterator", "latch", "limits", "list",
      "locale", "map", "memory", "memory_resource", "mutex", "new", "numbers",
      "numeric", "optional", "ostream", "queue", "random", "ranges", "ratio",
      "regex", "scoped_allocator", "semaphore", "set", "shared_mutex",
      "source_location", "span", "sstream", "stack", "stdexcept",
      "stop_token", "streambuf", "string", "string_view", "syncstream",
      "system_error", "thread", "tuple", "type_traits", "typeindex",
      "typeinfo", "unordered_map", "unordered_set", "utility", "valarray",
      "variant", "vector", "version"};
  return Names.contains(Name);
}

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

/// Every header name the prefix looks up, found or not: a search folder that
/// holds none of them cannot change what the prefix means.
class HeaderNames : public PPCallbacks {
public:
  explicit HeaderNames(std::set<std::string> &Names) : Names(Names) {}

  void InclusionDirective(SourceLocation, const Token &, llvm::StringRef Name,
                          bool, CharSourceRange, OptionalFileEntryRef,
                          llvm::StringRef, llvm::StringRef, const Module *,
                          bool, SrcMgr::CharacteristicKind) override {
    Names.insert(Name.str());
  }
  void HasInclude(SourceLocation, llvm::StringRef Name, bool,
                  OptionalFileEntryRef, SrcMgr::CharacteristicKind) override {
    Names.insert(Name.str());
  }

private:
  std::set<std::string> &Names;
};

class BuildPrefixAction : public GeneratePCHAction {
public:
  BuildPrefixAction(llvm::StringRef HeaderFilter, std::string &UserFile,
                    std::set<std::string> &Names)
      : HeaderFilter(HeaderFilter), UserFile(UserFile), Names(Names) {}

  std::unique_ptr<ASTConsumer> CreateASTConsumer(CompilerInstance &CI,
                                                 llvm::StringRef In) override {
    CI.getFrontendOpts().SkipFunctionBodies = true;
    CI.getPreprocessor().addPPCallbacks(std::make_unique<HeaderNames>(Names));
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
  std::set<std::string> &Names;
};

nlohmann::json foldersToJson(const std::vector<SearchFolder> &Folders) {
  nlohmann::json List = nlohmann::json::array();
  for (const SearchFolder &F : Folders)
    List.push_back({F.Kind, F.Path});
  return List;
}

std::vector<SearchFolder> foldersFromJson(const nlohmann::json &List) {
  std::vector<SearchFolder> Folders;
  for (const nlohmann::json &F : List)
    Folders.push_back({F.at(0).get<std::string>(), F.at(1).get<std::string>()});
  return Folders;
}

} // namespace

namespace {
/// The next line of Text that holds code, trimmed, with comments before it
/// dropped; empty at the end. InComment carries an unclosed /* over lines.
llvm::StringRef nextCodeLine(llvm::StringRef &Text, bool &InComment) {
  while (!Text.empty()) {
    auto [Line, Rest] = Text.split('\n');
    Text = Rest;
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
    return Line;
  }
  return "";
}

/// The name an `#include` line names between Open and Close, with nothing
/// but a comment after it; empty for any other line.
llvm::StringRef includedName(llvm::StringRef Line, char Open, char Close) {
  if (!Line.consume_front("#"))
    return "";
  Line = Line.ltrim();
  if (!Line.consume_front("include"))
    return "";
  Line = Line.ltrim();
  if (!Line.consume_front(llvm::StringRef(&Open, 1)) || Line.ends_with("\\"))
    return "";
  size_t End = Line.find(Close);
  if (End == llvm::StringRef::npos)
    return "";
  llvm::StringRef After = Line.drop_front(End + 1).ltrim();
  if (!After.empty() && !After.starts_with("//"))
    return "";
  return Line.take_front(End);
}

/// The word after a directive's keyword: `#ifndef NAME` gives NAME.
std::optional<llvm::StringRef> directiveWord(llvm::StringRef Line,
                                             llvm::StringRef Keyword) {
  if (!Line.consume_front("#"))
    return std::nullopt;
  Line = Line.ltrim();
  if (!Line.consume_front(Keyword) || Line.empty() ||
      !llvm::isSpace(Line.front()))
    return std::nullopt;
  return Line.trim();
}
} // namespace

std::string libtorchIncludePrefix(llvm::StringRef Text, bool Header) {
  std::string Prefix, Pending;
  bool InComment = false;
  bool SeenInclude = false;
  for (llvm::StringRef Line = nextCodeLine(Text, InComment); !Line.empty();
       Line = nextCodeLine(Text, InComment)) {
    // A header's guard comes before its includes; the precompiled prefix
    // goes before the guard, which only ever hides the header's own text.
    if (Header && !SeenInclude) {
      if (directiveWord(Line, "pragma") == llvm::StringRef("once"))
        continue;
      if (std::optional<llvm::StringRef> Guard =
              directiveWord(Line, "ifndef")) {
        if (directiveWord(nextCodeLine(Text, InComment), "define") != *Guard)
          break;
        continue;
      }
    }
    llvm::StringRef Name = includedName(Line, '<', '>');
    if (Name.empty())
      break;
    SeenInclude = true;
    if (!isStandardLibraryHeaderName(Name))
      Pending += "#include <" + Name.str() + ">\n";
    if (isLibtorchHeaderName(Name)) {
      Prefix += Pending;
      Pending.clear();
    }
  }
  return Prefix;
}

std::string firstQuotedInclude(llvm::StringRef Text) {
  bool InComment = false;
  return includedName(nextCodeLine(Text, InComment), '"', '"').str();
}

PrecompiledPrefixes::Configuration &
PrecompiledPrefixes::configuration(const std::string &Key) {
  Configuration &C = Configurations[Key];
  if (C.Read)
    return C;
  C.Read = true;
  std::string Ignored;
  if (std::optional<nlohmann::json> Index =
          Cache.read(Cache.pathFor("pch", Key, ".variants.json"), Ignored)) {
    try {
      for (const nlohmann::json &Name : Index->at("names"))
        C.Names.insert(Name.get<std::string>());
      for (const nlohmann::json &V : Index->at("variants"))
        C.Variants.push_back(
            {V.at("key").get<std::string>(), foldersFromJson(V.at("folders"))});
    } catch (const nlohmann::json::exception &) {
      // A damaged index costs a rebuild, never a wrong header.
      C.Names.clear();
      C.Variants.clear();
    }
  }
  return C;
}

std::vector<SearchFolder> PrecompiledPrefixes::foldersThatMatter(
    Configuration &C, const std::vector<SearchFolder> &Folders) {
  std::vector<SearchFolder> Kept;
  for (const SearchFolder &F : Folders) {
    auto [It, New] = C.FolderHoldsName.try_emplace(F.Path, false);
    if (New)
      for (const std::string &Name : C.Names)
        if (llvm::sys::fs::exists(F.Path + "/" + Name)) {
          It->second = true;
          break;
        }
    if (It->second)
      Kept.push_back(F);
  }
  return Kept;
}

/// Two units whose search folders agree once the folders that hold none of
/// the prefix's header names are left out find every one of those names in
/// the same file, through the same order: they may share a header.
std::string PrecompiledPrefixes::variantKey(Configuration &C,
                                            const PrefixRequest &Request) {
  std::vector<SearchFolder> Mine = foldersThatMatter(C, Request.Folders);
  for (const Variant &V : C.Variants)
    if (foldersThatMatter(C, V.Folders) == Mine)
      return V.Key;
  return CacheDirectory::keyOf(
      {Request.ConfigurationKey, foldersToJson(Request.Folders).dump()});
}

void PrecompiledPrefixes::recordVariant(const std::string &ConfigurationKey,
                                        Variant Built,
                                        const std::set<std::string> &Names) {
  Configuration &C = Configurations[ConfigurationKey];
  size_t Before = C.Names.size();
  C.Names.insert(Names.begin(), Names.end());
  if (C.Names.size() != Before)
    C.FolderHoldsName.clear();
  if (llvm::none_of(C.Variants,
                    [&](const Variant &V) { return V.Key == Built.Key; }))
    C.Variants.push_back(std::move(Built));
  nlohmann::json Index = {{"names", C.Names},
                          {"variants", nlohmann::json::array()}};
  for (const Variant &V : C.Variants)
    Index["variants"].push_back(
        {{"key", V.Key}, {"folders", foldersToJson(V.Folders)}});
  // Another process may have recorded a variant meanwhile; losing it costs
  // one rebuild.
  (void)Cache.write(Cache.pathFor("pch", ConfigurationKey, ".variants.json"),
                    Index);
}

void describeConfiguration(PrefixRequest &Request,
                           llvm::StringRef ToolIdentity) {
  namespace opts = clang::driver::options;
  auto IsRelativePath = [](llvm::StringRef Value) {
    return (Value.contains('/') && !llvm::sys::path::is_absolute(Value)) ||
           Value == "." || Value == "..";
  };
  const std::vector<std::string> &Args = Request.Arguments;
  std::string Kept = Args.empty() ? "" : Args.front();
  bool NamesRelativePath = IsRelativePath(Kept);
  Request.Folders.clear();
  if (!Args.empty()) {
    DriverCommand Command(
        std::vector<std::string>(Args.begin() + 1, Args.end()),
        isClDriverMode(Args));
    for (const DriverCommand::Flag &F : Command.flags()) {
      const llvm::opt::Option &Option = F.Parsed->getOption();
      const char *Kind = Option.matches(opts::OPT_I)             ? "I"
                         : Option.matches(opts::OPT_iquote)      ? "iquote"
                         : Option.matches(opts::OPT_isystem)     ? "isystem"
                         : Option.matches(opts::OPT_cxx_isystem) ? "cxx-isystem"
                         : Option.matches(opts::OPT_idirafter)   ? "idirafter"
                                                                 : nullptr;
      if (Kind && F.Parsed->getNumValues() == 1) {
        Request.Folders.push_back(
            {Kind, absolutePath(F.Parsed->getValue(), Request.Directory)});
        continue;
      }
      NamesRelativePath |= llvm::any_of(F.Parsed->getValues(), IsRelativePath);
      Kept += '\0' + Command.spelled(F.Begin, F.End);
    }
    Kept += '\0' + Command.spelled(Command.end(), Command.size());
  }
  Request.ConfigurationKey = CacheDirectory::keyOf(
      {"pch-2", ToolIdentity.str(),
       NamesRelativePath ? Request.Directory : std::string(), Kept,
       Request.Text, Request.HeaderFilter});
}

void PrecompiledPrefixes::expect(const PrefixRequest &Request) {
  std::lock_guard<std::mutex> Lock(Mutex);
  ++Configurations[Request.ConfigurationKey].Expected;
}

std::optional<PrecompiledHeader>
PrecompiledPrefixes::obtain(const PrefixRequest &Request, std::string &Problem,
                            PrefixBuild When) {
  std::string Key;
  bool Worth = When == PrefixBuild::Always;
  {
    std::lock_guard<std::mutex> Lock(Mutex);
    Configuration &C = configuration(Request.ConfigurationKey);
    Key = variantKey(C, Request);
    if (auto It = Settled.find(Key); It != Settled.end())
      return It->second;
    // One build of a configuration at a time: until it is done, the names
    // that tell which units may share it are not known.
    if (C.Building)
      return std::nullopt;
    C.Building = true;
    if (When == PrefixBuild::IfShared)
      Worth = C.Expected >= 2 * Workers;
  }
  std::optional<PrecompiledHeader> Header = load(Key, Problem);
  std::set<std::string> Names;
  bool Built = false;
  if (!Header && Worth &&
      !llvm::sys::fs::exists(Cache.pathFor("pch", Key, ".unusable.json"))) {
    Header = build(Request, Key, Names);
    Built = !Names.empty();
  }
  std::lock_guard<std::mutex> Lock(Mutex);
  Configurations[Request.ConfigurationKey].Building = false;
  if (Built)
    recordVariant(Request.ConfigurationKey, {Key, Request.Folders}, Names);
  // A header that is not there yet may be built by another thread; only a
  // decision this call could make is kept for the rest of the run.
  if (Header || When != PrefixBuild::Never)
    Settled[Key] = Header;
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
PrecompiledPrefixes::build(const PrefixRequest &Request, const std::string &Key,
                           std::set<std::string> &Names) {
  std::string HeaderPath = Cache.pathFor("pch", Key, ".h");
  std::string PchPath = Cache.pathFor("pch", Key, ".pch");
  if (!writeAtomically(HeaderPath, Request.Text).empty())
    return std::nullopt;

  std::vector<std::string> Args = Request.Arguments;
  Args.insert(Args.end(), {"-x", "c++-header", HeaderPath, "-o", PchPath});
  std::string UserFile;
  IgnoringDiagConsumer Quiet;
  ClangRun Run = runClang(Request.Directory, std::move(Args),
                          std::make_unique<BuildPrefixAction>(
                              Request.HeaderFilter, UserFile, Names),
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
    Cache.write(Cache.pathFor("pch", Key, ".unusable.json"),
                {{"reason", UserFile.empty() ? "does not compile"
                                             : "includes " + UserFile},
                 {"inputs", toJson(Inputs)}});
    return std::nullopt;
  }
  if (!Cache
           .write(Cache.pathFor("pch", Key, ".json"),
                  {{"digest", *Digest}, {"inputs", toJson(Inputs)}})
           .empty())
    return std::nullopt;
  return PrecompiledHeader{Key, PchPath, std::move(Inputs)};
}

void PrecompiledPrefixes::discard(const PrecompiledHeader &Header) {
  for (const char *Suffix : {".json", ".pch"})
    llvm::sys::fs::remove(Cache.pathFor("pch", Header.Key, Suffix));
  std::lock_guard<std::mutex> Lock(Mutex);
  Settled[Header.Key] = std::nullopt;
}

} // namespace torchlint
