#include "compile/DriverCommand.h"

#include "clang/Driver/Options.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Option/OptTable.h"
#include "llvm/Support/Path.h"

namespace torchlint {

bool isClDriverMode(const std::vector<std::string> &Arguments) {
  for (llvm::StringRef Arg : Arguments)
    if (Arg.starts_with("--driver-mode="))
      return Arg == "--driver-mode=cl";
  llvm::StringRef Name = llvm::sys::path::stem(Arguments.front());
  return Name.equals_insensitive("cl") ||
         Name.ends_with_insensitive("clang-cl");
}

namespace {
std::vector<const char *> pointersTo(const std::vector<std::string> &Strings) {
  std::vector<const char *> Pointers;
  for (const std::string &S : Strings)
    Pointers.push_back(S.c_str());
  return Pointers;
}
} // namespace

DriverCommand::DriverCommand(std::vector<std::string> Arguments, bool Cl)
    : Arguments(std::move(Arguments)), Argv(pointersTo(this->Arguments)) {
  unsigned MissingIndex = 0, MissingCount = 0;
  Parsed = clang::driver::getDriverOptTable().ParseArgs(
      Argv, MissingIndex, MissingCount,
      llvm::opt::Visibility(Cl ? clang::driver::options::CLOption
                               : clang::driver::options::ClangOption));
  End = MissingCount > 0 ? MissingIndex : Argv.size();
  std::vector<const llvm::opt::Arg *> Sorted(Parsed.begin(), Parsed.end());
  llvm::sort(Sorted, [](const llvm::opt::Arg *L, const llvm::opt::Arg *R) {
    return L->getIndex() < R->getIndex();
  });
  // Each flag spans the arguments up to the next one's: its values.
  for (size_t K = 0; K < Sorted.size() && Sorted[K]->getIndex() < End; ++K)
    Flags.push_back(
        {Sorted[K], Sorted[K]->getIndex(),
         std::min<size_t>(
             K + 1 < Sorted.size() ? Sorted[K + 1]->getIndex() : End, End)});
}

std::string DriverCommand::spelled(size_t Begin, size_t End) const {
  std::string Text;
  for (size_t I = Begin; I < End; ++I)
    Text += (Text.empty() ? "" : " ") + Arguments[I];
  return Text;
}

} // namespace torchlint
