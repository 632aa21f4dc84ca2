//===--- GradMode.h - Where autograd records --------------------*- C++ -*-===//
//
// Autograd records a graph of every operation on tensors that require
// gradients unless a guard turns it off. Whether that recording is wasted
// depends on what the code around a forward call does: a backward pass or an
// optimizer step needs it; evaluation does not. These helpers answer the
// questions rules ask about it: is a guard in effect here (or in every
// caller), does this code need gradients, was the module put in evaluation
// mode before this call, and can a result escape to code that might need its
// graph.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_GRADMODE_H
#define TORCHLINT_ANALYSIS_GRADMODE_H

#include "clang/AST/Type.h"

#include <optional>

namespace clang {
class ASTContext;
class CXXMemberCallExpr;
class Expr;
class FunctionDecl;
class Stmt;
class VarDecl;
} // namespace clang

namespace torchlint {

class DeviceFlow;
class StepContext;
class GradModeFlow;

/// What S's function says about recording at S: what the guards alive and
/// the torch::GradMode::set_enabled() calls on the paths to S leave it at.
struct GradSetting {
  enum Kind {
    Default,  ///< nothing in the function decides
    Disabled, ///< a guard, set_enabled(false)
    Enabled,  ///< deliberately on, or decided at run time: AutoGradMode(true),
              ///< InferenceMode(false), set_enabled(true), set_enabled(flag)
  };
  Kind State = Default;
  /// The guard's declaration or the call that decided.
  const clang::Stmt *Where = nullptr;

  bool operator==(const GradSetting &O) const {
    return State == O.State && Where == O.Where;
  }
};

/// What a local guard does to recording while it lives: torch::NoGradGuard
/// (or a class derived from it), c10::InferenceMode and
/// torch::AutoGradMode(false) turn it off; AutoGradMode(true),
/// InferenceMode(false) and a value known only at run time are deliberate.
/// Default for anything else.
GradSetting::Kind guardEffect(const clang::VarDecl *Var,
                              clang::ASTContext &Ctx);

/// `torch::GradMode::set_enabled(Value)`: the value when it is a constant,
/// nullopt inside for one known only at run time; nullopt when S is no such
/// call.
std::optional<std::optional<bool>> gradModeSwitch(const clang::Stmt *S,
                                                  clang::ASTContext &Ctx);

/// Every call of FD (through a few callers) has recording turned off. Nullopt
/// when FD's callers are not all known: its address is taken, or it is a
/// lambda. A function with no caller in the unit has those of other units,
/// which Steps tells where given (else it is taken to record).
std::optional<bool> gradDisabledInCallers(const clang::FunctionDecl *FD,
                                          DeviceFlow &Flow,
                                          GradModeFlow &Recording,
                                          StepContext *Steps = nullptr);

/// The first call in S that needs the recorded graph: a backward pass,
/// torch::autograd::grad, an optimizer's step or zero_grad, reading .grad(),
/// requires_grad_(). A call of one of the program's functions counts when
/// that function (a few calls deep) needs it.
const clang::Expr *gradientUseIn(const clang::Stmt *S, DeviceFlow &Flow);

/// The first switch to training mode in Root (`->train()`), in any order,
/// or null.
const clang::CXXMemberCallExpr *trainingIn(const clang::Stmt *Root,
                                           clang::ASTContext &Ctx);

/// A value of type T can hold a tensor, and with it a recorded graph:
/// tensors, standard containers of them, the program's structs with such
/// fields. Modules and libtorch's other types do not count.
bool mayHoldTensor(clang::QualType T);

/// FD can hand a tensor it computes to its caller: it returns one, writes
/// one through a reference or pointer parameter, into a member or a global.
bool tensorsCanEscape(const clang::FunctionDecl *FD);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_GRADMODE_H
