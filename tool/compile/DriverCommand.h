//===--- DriverCommand.h - A command as clang's driver reads it -*- C++ -*-===//
//
// Which flags a compile command holds, and which arguments are their values,
// is decided by clang's driver option table, aliases and MSVC's spellings
// included. Filtering unsafe flags and adapting another compiler's flags both
// walk the command this way, flag by flag.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_COMPILE_DRIVERCOMMAND_H
#define TORCHLINT_TOOL_COMPILE_DRIVERCOMMAND_H

#include "llvm/Option/ArgList.h"

#include <string>
#include <vector>

namespace torchlint {

/// Whether the command is MSVC's (cl.exe) or clang-cl's, whose flags are
/// MSVC's. Arguments[0] is the compiler.
bool isClDriverMode(const std::vector<std::string> &Arguments);

class DriverCommand {
public:
  /// One flag (or input) and its values: arguments [Begin, End).
  struct Flag {
    const llvm::opt::Arg *Parsed;
    size_t Begin;
    size_t End;
  };

  /// The arguments after the compiler's name, read as clang-cl's when Cl.
  DriverCommand(std::vector<std::string> Arguments, bool Cl);
  // The parse points into Arguments.
  DriverCommand(const DriverCommand &) = delete;
  DriverCommand &operator=(const DriverCommand &) = delete;

  /// In order. A flag at the end that lacks its value is not among them.
  const std::vector<Flag> &flags() const { return Flags; }
  /// Where the flags end: the arguments from here on are a flag without
  /// its value.
  size_t end() const { return End; }
  size_t size() const { return Arguments.size(); }
  const std::string &argument(size_t I) const { return Arguments[I]; }
  /// Arguments [Begin, End) as written, separated by spaces.
  std::string spelled(size_t Begin, size_t End) const;

private:
  std::vector<std::string> Arguments;
  std::vector<const char *> Argv;
  llvm::opt::InputArgList Parsed;
  std::vector<Flag> Flags;
  size_t End = 0;
};

} // namespace torchlint

#endif // TORCHLINT_TOOL_COMPILE_DRIVERCOMMAND_H
