//===--- DeviceNotes.h - Words and fix-its shared by the device rules -*- C++
//-*-//
//
// The device rules explain facts of the device flow in the same words and
// build their `.to(device)` fix-its the same way.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RULES_DEVICENOTES_H
#define TORCHLINT_RULES_DEVICENOTES_H

#include "analysis/DeviceFlow.h"
#include "analysis/Loops.h"
#include "core/FindingBuilder.h"

#include <string>

namespace clang {
class ASTContext;
class CallExpr;
} // namespace clang

namespace torchlint {

/// "the CPU", "the GPU", "'cuda:1'".
std::string deviceName(const DeviceFact &F);

/// The name of the first accelerator (a known device that is not the CPU)
/// among the facts; "the GPU" when none is known.
std::string acceleratorName(const FactSet &Facts);

/// " (when 'device' is a GPU)" when the facts reach an accelerator only
/// through devices chosen at run time (a device parameter whose callers are
/// elsewhere); empty otherwise.
std::string runTimeCondition(const FactSet &Facts);

/// A note at the place each such device is chosen.
void noteRunTimeChoices(FindingBuilder &Finding, const FactSet &Facts);

/// A note at the call, in the loop that repeats the finding, that leads to
/// the function holding it; none when the loop is in that function or in
/// another unit.
void noteRepeatingCall(FindingBuilder &Finding, const Repetition &Repeated);

/// A short quoted name for an expression: 'batch.data', or "the input" when
/// the expression is long or cannot be printed.
std::string quoted(const clang::Expr *E, const clang::ASTContext &Ctx,
                   llvm::StringRef Fallback);

/// "input 'batch.data'", or "the input" when the expression cannot be quoted.
std::string named(llvm::StringRef Role, const clang::Expr *E,
                  const clang::ASTContext &Ctx);

/// A note explaining how the value named Name got the device of F.
std::string explainFact(const DeviceFact &F, llvm::StringRef Name,
                        const clang::ASTContext &Ctx);

/// True when the expression E (a device expression from elsewhere) can be
/// written as is at Site: everything it names is visible there.
bool isUsableAt(const clang::Expr *E, const clang::Expr *Site,
                DeviceFlow &Flow);

/// True when the variable D can be named as is at Site.
bool isUsableAt(const clang::ValueDecl *D, const clang::Expr *Site,
                DeviceFlow &Flow);

/// True when `.to(...)` cannot be appended to E as written (`a + b`).
bool needsParensForMember(const clang::Expr *E);

/// Fix-it: adds Setters (".device(d)", ".pinned_memory(true)") to the
/// TensorOptions the factory call passes, or passes options holding them.
/// False, and nothing added, when the call cannot be edited that way.
bool addFactoryOptions(FindingBuilder &Finding, const clang::CallExpr *Factory,
                       llvm::StringRef Setters, clang::ASTContext &Ctx);

} // namespace torchlint

#endif // TORCHLINT_RULES_DEVICENOTES_H
