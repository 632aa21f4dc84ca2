#include "compile/ForeignFlags.h"

#include "compile/DriverCommand.h"

#include "clang/Driver/Options.h"

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

std::vector<std::string>
adaptForeignFlags(const std::vector<std::string> &Arguments) {
  if (Arguments.empty())
    return Arguments;
  bool Cl = isClDriverMode(Arguments);
  DriverCommand Command({Arguments.begin() + 1, Arguments.end()}, Cl);
  std::vector<std::string> Adapted{Arguments.front()};
  auto Keep = [&](size_t Begin, size_t End) {
    for (size_t I = Begin; I < End; ++I)
      Adapted.push_back(Command.argument(I));
  };
  for (const DriverCommand::Flag &F : Command.flags()) {
    const llvm::opt::Arg &A = *F.Parsed;
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
    Keep(F.Begin, F.End);
  }
  Keep(Command.end(), Command.size());
  return Adapted;
}

} // namespace torchlint
