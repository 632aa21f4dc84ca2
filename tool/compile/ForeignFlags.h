//===--- ForeignFlags.h - Commands written for another compiler -*- C++ -*-===//
//
// A compilation database records what the build's own compiler was given:
// GCC's or MSVC's flags, and the build's precompiled header. clang's driver
// stops at a flag it does not know, and it swaps a forced include for the
// precompiled header it finds beside it, which another compiler (or another
// clang) made and which clang cannot read. The command is adapted so that
// clang parses what the build compiled.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_TOOL_COMPILE_FOREIGNFLAGS_H
#define TORCHLINT_TOOL_COMPILE_FOREIGNFLAGS_H

#include <string>
#include <vector>

namespace torchlint {

/// Arguments without the flags clang's driver does not know, without MSVC's
/// precompiled-header flags (/Yu, /Yc, /Fp) and with each forced include
/// (-include x.h) passed so that the driver does not replace it with the
/// x.h.pch beside it. Arguments[0] is the compiler.
std::vector<std::string>
adaptForeignFlags(const std::vector<std::string> &Arguments);

} // namespace torchlint

#endif // TORCHLINT_TOOL_COMPILE_FOREIGNFLAGS_H
