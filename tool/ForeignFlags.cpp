#include "ForeignFlags.h"

#include "clang/Driver/Options.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Option/ArgList.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/Path.h"

#include <algorithm>

namespace torchlint {

namespace {
/// The build's own precompiled header: /Yc makes it, /Yu and /Fp use it.
bool isMsvcPrecompiledHeaderFlag(const llvm::opt::Arg &A) {
  using namespace clang::driver::options;
  return A.getOption().matches(OPT__SLASH_Yc) ||
         A.getOption().matches(OPT__SLASH_Yu) ||
         A.getOption().matches(OPT__SLASH_Fp) ||
         A.getOption().matches(OPT__SLASH_Y_);
}
} // namespace

bool isClDriverMode(const std::vector<std::string> &Arguments) {
  for (llvm::StringRef Arg : Arguments)
    if (Arg.starts_with("--driver-mode="))
      return Arg == "--driver-mode=cl";
  llvm::StringRef Name = llvm::sys::path::stem(Arguments.front());
  return Name.equals_insensitive("cl") ||
         Name.ends_with_insensitive("clang-cl");
}

std::vector<std::string>
adaptForeignFlags(const std::vector<std::string> &Arguments) {
  if (Arguments.empty())
    return Arguments;
  bool Cl = isClDriverMode(Arguments);
  std::vector<const char *> Argv;
  for (size_t I = 1; I < Arguments.size(); ++I)
    Argv.push_back(Arguments[I].c_str());
  unsigned MissingIndex = 0, MissingCount = 0;
  llvm::opt::Visibility Visible(Cl ? clang::driver::options::CLOption
                                   : clang::driver::options::ClangOption);
  llvm::opt::InputArgList Parsed = clang::driver::getDriverOptTable().ParseArgs(
      Argv, MissingIndex, MissingCount, Visible);

  // Each parsed flag spans the arguments up to the next one's: its values.
  std::vector<const llvm::opt::Arg *> Flags(Parsed.begin(), Parsed.end());
  std::sort(Flags.begin(), Flags.end(),
            [](auto *L, auto *R) { return L->getIndex() < R->getIndex(); });
  std::vector<std::string> Adapted{Arguments.front()};
  size_t Copied = 0; // of Argv
  for (size_t K = 0; K < Flags.size(); ++K) {
    const llvm::opt::Arg &A = *Flags[K];
    size_t End = K + 1 < Flags.size() ? Flags[K + 1]->getIndex() : Argv.size();
    for (; Copied < A.getIndex(); ++Copied)
      Adapted.push_back(Argv[Copied]);
    Copied = End;
    if (A.getOption().matches(clang::driver::options::OPT_UNKNOWN))
      continue;
    if (Cl && isMsvcPrecompiledHeaderFlag(A))
      continue;
    if (!Cl && A.getOption().matches(clang::driver::options::OPT_include)) {
      // As a frontend option the include stays an include: the driver would
      // have turned it into -include-pch of x.h.pch if one exists.
      Adapted.insert(Adapted.end(),
                     {"-Xclang", "-include", "-Xclang", A.getValue()});
      continue;
    }
    for (size_t I = A.getIndex(); I < End; ++I)
      Adapted.push_back(Argv[I]);
  }
  for (; Copied < Argv.size(); ++Copied)
    Adapted.push_back(Argv[Copied]);
  return Adapted;
}

} // namespace torchlint
