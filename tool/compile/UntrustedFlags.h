//===--- UntrustedFlags.h - Compile commands from strangers -----*- C++ -*-===//
//
// torchlint runs in CI on pull requests, over a compilation database that the
// pull request may have written. A compile command can make a clang-based
// tool load code (-fplugin=, -Xclang -load, a config file next to the
// compiler it names) or write files (-ftime-trace, -save-temps, -MJ). Those
// flags are dropped before clang sees the command.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_COMPILE_UNTRUSTEDFLAGS_H
#define TORCHLINT_TOOL_COMPILE_UNTRUSTEDFLAGS_H

#include <string>
#include <vector>

namespace torchlint {

struct SanitizedCommand {
  std::vector<std::string> Arguments;
  /// What was dropped that a user should hear about, each as written
  /// ("-Xclang -load"), with why: "loads code", "writes files", ...
  std::vector<std::string> Dropped;
};

/// Arguments without the flags that load code, read configuration files or
/// write files, recognised as clang's driver parses the command (aliases such
/// as --save-temps, and clang-cl's /clang:, included). The outputs every
/// build writes (-o, -MD, -MF, -MT) are dropped silently. Arguments[0] is the
/// compiler.
SanitizedCommand dropUnsafeFlags(const std::vector<std::string> &Arguments);

} // namespace torchlint

#endif // TORCHLINT_TOOL_COMPILE_UNTRUSTEDFLAGS_H
