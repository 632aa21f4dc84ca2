#include "driver/KeptUnits.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cstdlib>

#if __has_include(<unistd.h>)
#include <unistd.h>
#endif

namespace torchlint {

namespace {
uint64_t physicalMemory() {
#if defined(_SC_PHYS_PAGES) && defined(_SC_PAGESIZE)
  long Pages = sysconf(_SC_PHYS_PAGES), PageSize = sysconf(_SC_PAGESIZE);
  if (Pages > 0 && PageSize > 0)
    return static_cast<uint64_t>(Pages) * static_cast<uint64_t>(PageSize);
#endif
  return 0;
}

/// A number of kibibytes from a /proc file, after Label ("MemAvailable:").
std::optional<uint64_t> procKibibytes(const char *Path, llvm::StringRef Label) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
      llvm::MemoryBuffer::getFileAsStream(Path);
  if (!Text)
    return std::nullopt;
  llvm::StringRef Rest = (*Text)->getBuffer();
  size_t At = Rest.find(Label);
  if (At == llvm::StringRef::npos)
    return std::nullopt;
  Rest = Rest.drop_front(At + Label.size()).ltrim();
  uint64_t Kibibytes;
  if (Rest.consumeInteger(10, Kibibytes))
    return std::nullopt;
  return Kibibytes;
}

/// The words a call of the function is written with, from its mangled name:
/// its own name (none for an operator or a constructor) and its class's. None
/// at all for a name that is not Itanium's.
struct CalledWords {
  std::optional<std::string> Name;
  std::optional<std::string> Class;
};

std::optional<CalledWords> calledWords(const std::string &Mangled) {
  llvm::ItaniumPartialDemangler Demangler;
  if (Demangler.partialDemangle(Mangled.c_str()) || Demangler.isSpecialName())
    return std::nullopt;
  auto Identifier = [](char *Text) -> std::optional<std::string> {
    if (!Text)
      return std::nullopt;
    std::string Word(Text);
    std::free(Text);
    // The last component: "a::Net" names Net.
    if (size_t Colons = Word.rfind("::"); Colons != std::string::npos)
      Word = Word.substr(Colons + 2);
    if (Word.empty() || !llvm::all_of(Word, [](char C) {
          return llvm::isAlnum(C) || C == '_';
        }))
      return std::nullopt;
    return Word;
  };
  size_t Size = 0;
  CalledWords Words;
  if (!Demangler.isCtorOrDtor())
    Words.Name = Identifier(Demangler.getFunctionBaseName(nullptr, &Size));
  Words.Class =
      Identifier(Demangler.getFunctionDeclContextName(nullptr, &Size));
  if (!Words.Name && !Words.Class)
    return std::nullopt;
  return Words;
}
} // namespace

uint64_t defaultKeptMemory() { return physicalMemory() / 4; }

bool mayKeepAnother(uint64_t Budget) {
  std::optional<uint64_t> Resident =
      procKibibytes("/proc/self/status", "VmRSS:");
  std::optional<uint64_t> Available =
      procKibibytes("/proc/meminfo", "MemAvailable:");
  return Resident && Available && (*Resident << 10) <= Budget &&
         (*Available << 10) >= physicalMemory() / 8;
}

namespace {
/// Text after a balanced group that Text starts with: "(...)" or "{...}".
llvm::StringRef afterGroup(llvm::StringRef Text) {
  char Open = Text.front(), Close = Open == '(' ? ')' : '}';
  unsigned Depth = 0;
  do {
    Depth += Text.front() == Open ? 1 : Text.front() == Close ? -1 : 0;
    Text = Text.drop_front();
  } while (!Text.empty() && Depth);
  return Text;
}

/// After a constructor's ": base(a), member{b}": where its body would start.
llvm::StringRef afterConstructorInitializers(llvm::StringRef Rest) {
  for (;;) {
    Rest = Rest.ltrim().drop_while([](char C) {
      return llvm::isAlnum(C) || C == '_' || C == ':' || C == '<' || C == '>' ||
             C == ' ';
    });
    if (!Rest.starts_with("(") && !Rest.starts_with("{"))
      return Rest;
    Rest = afterGroup(Rest).ltrim();
    if (!Rest.consume_front(","))
      return Rest;
  }
}
} // namespace

SourceWords wordsOfSource(llvm::StringRef Source) {
  SourceWords Words;
  auto IsWordChar = [](char C) { return llvm::isAlnum(C) || C == '_'; };
  for (size_t At = 0; At < Source.size();) {
    if (!llvm::isAlpha(Source[At]) && Source[At] != '_') {
      ++At;
      continue;
    }
    llvm::StringRef Word = Source.substr(At).take_while(IsWordChar);
    At += Word.size();
    Words.Named.insert(Word);
    llvm::StringRef Rest = Source.substr(At).ltrim();
    if (!Rest.starts_with("("))
      continue;
    Rest = afterGroup(Rest);
    for (Rest = Rest.ltrim();; Rest = Rest.ltrim()) {
      llvm::StringRef Next = Rest.take_while(IsWordChar);
      if (Next != "const" && Next != "noexcept" && Next != "override" &&
          Next != "final" && Next != "volatile")
        break;
      Rest = Rest.drop_front(Next.size());
    }
    if (Rest.consume_front(":") && !Rest.starts_with(":"))
      Rest = afterConstructorInitializers(Rest);
    if (Rest.starts_with("{"))
      Words.Defined.insert(Word);
  }
  return Words;
}

FirstRoundListeners::FirstRoundListeners(
    const std::vector<CompileEntry> &Entries)
    : Done(Entries.size()), Finished(Entries.size()) {
  for (const CompileEntry &Entry : Entries) {
    Files.push_back(Entry.File);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> Text =
        llvm::MemoryBuffer::getFile(Entry.File);
    Words.push_back(Text ? wordsOfSource((*Text)->getBuffer()) : SourceWords());
    for (const auto &Word : Words.back().Named)
      NamedBy[Word.getKey()].push_back(Words.size() - 1);
  }
}

bool FirstRoundListeners::mayBeTold(size_t I,
                                    const std::optional<UnitSummary> &Summary) {
  std::lock_guard<std::mutex> Lock(Mutex);
  Done[I] = true;
  if (!Summary)
    return false;
  Finished[I] = Summary;
  std::vector<const UnitSummary *> All;
  for (const std::optional<UnitSummary> &S : Finished)
    All.push_back(S ? &*S : nullptr);
  if (!importsFor(I, All, Files).empty())
    return true;
  auto CalledByOneToCome = [&](const std::string &F) {
    return calledByOneToCome(I, F);
  };
  auto DefinedByOneToCome = [&](const std::string &F) {
    return definedByOneToCome(I, F);
  };
  if ((Summary->AskedTraining || Summary->AskedCuda ||
       Summary->AskedCudnnBenchmark) &&
      std::find(Done.begin(), Done.end(), false) != Done.end())
    return true;
  return llvm::any_of(Summary->AskedCallers, CalledByOneToCome) ||
         llvm::any_of(Summary->AskedPerStep, CalledByOneToCome) ||
         llvm::any_of(Summary->AskedGrad, CalledByOneToCome) ||
         llvm::any_of(Summary->AskedAutocast, CalledByOneToCome) ||
         llvm::any_of(Summary->AskedReturns, DefinedByOneToCome) ||
         llvm::any_of(Summary->AskedWork, DefinedByOneToCome);
}

namespace {
/// A module class XImpl is used through the holder X that TORCH_MODULE(X)
/// declares: "Net net; net(x);" calls NetImpl::forward.
std::optional<llvm::StringRef> holderOf(llvm::StringRef Class) {
  if (Class.size() > 4 && Class.consume_back("Impl"))
    return Class;
  return std::nullopt;
}

bool names(const SourceWords &Words, const CalledWords &F) {
  if (F.Class && !Words.Named.count(*F.Class)) {
    std::optional<llvm::StringRef> Holder = holderOf(*F.Class);
    if (!Holder || !Words.Named.count(*Holder))
      return false;
    if (F.Name && *F.Name == "forward")
      return true;
  }
  return !F.Name || Words.Named.count(*F.Name);
}

/// A constructor or an operator has no name of its own: its class's
/// constructor definition ("X::X(...) {") stands for the class's members.
bool defines(const SourceWords &Words, const CalledWords &F) {
  if (F.Name)
    return Words.Defined.count(*F.Name) > 0;
  return F.Class && Words.Defined.count(*F.Class) > 0;
}
} // namespace

bool FirstRoundListeners::calledByOneToCome(size_t I,
                                            const std::string &Mangled) {
  std::optional<CalledWords> F = calledWords(Mangled);
  if (!F)
    return true;
  // A method's callers name its class, or the class's holder; a free
  // function's, the function.
  std::vector<size_t> Naming;
  auto AddNaming = [&](llvm::StringRef Word) {
    if (auto It = NamedBy.find(Word); It != NamedBy.end())
      Naming.insert(Naming.end(), It->second.begin(), It->second.end());
  };
  AddNaming(F->Class ? *F->Class : *F->Name);
  if (std::optional<llvm::StringRef> Holder =
          F->Class ? holderOf(*F->Class) : std::nullopt) {
    AddNaming(*Holder);
    llvm::sort(Naming);
    Naming.erase(std::unique(Naming.begin(), Naming.end()), Naming.end());
  }
  std::vector<size_t> Definers;
  for (size_t Other : Naming)
    if (Other != I && defines(Words[Other], *F))
      Definers.push_back(Other);
  for (size_t Caller : Naming) {
    if (Done[Caller] || Caller == I || !names(Words[Caller], *F) ||
        (F->Name && defines(Words[Caller], *F)))
      continue;
    size_t Nearness = sharedFolders(Files[Caller], Files[I]);
    if (llvm::none_of(Definers, [&](size_t Other) {
          return Other != Caller &&
                 sharedFolders(Files[Caller], Files[Other]) > Nearness;
        }))
      return true;
  }
  return false;
}

bool FirstRoundListeners::definedByOneToCome(size_t I,
                                             const std::string &Mangled) {
  std::optional<CalledWords> F = calledWords(Mangled);
  if (!F)
    return true;
  return llvm::any_of(
      NamedBy[F->Name ? *F->Name : *F->Class], [&](size_t Other) {
        return !Done[Other] && Other != I && defines(Words[Other], *F);
      });
}

} // namespace torchlint
