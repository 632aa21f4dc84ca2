//===--- WorkloadRecipe.h - What the code tells about the workload -*- C++ -*-//
//
// A replay recipe records what is statically visible about the work a finding
// concerns: how the module is built, the shapes and dtypes of the tensors, the
// batch size of the data loader. The runtime rebuilds the workload from it and
// fills what is missing with stated defaults; here "unknown" is written as
// null, never guessed.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_RECIPE_WORKLOADRECIPE_H
#define TORCHLINT_RECIPE_WORKLOADRECIPE_H

#include "analysis/DeviceFlow.h"

#include <nlohmann/json.hpp>

namespace clang {
class ASTContext;
class CallExpr;
class Expr;
} // namespace clang

namespace torchlint {
class AutocastFlow;
} // namespace torchlint

namespace torchlint::recipe {

/// The construction of the module the expression gives access to. Created,
/// when known, is the fact saying where it was constructed.
nlohmann::json describeModule(const clang::Expr *ModuleExpr,
                              const DeviceFact *Created,
                              clang::ASTContext &Ctx);

/// What is known of the tensor whose device came from F.
nlohmann::json describeTensor(const DeviceFact &F, clang::ASTContext &Ctx);

/// What is known of a tensor a module is fed (its first fact), or null.
nlohmann::json describeInput(const clang::Expr *Input, DeviceFlow &Flow,
                             clang::ASTContext &Ctx);

/// The data loader a make_data_loader call builds: dataset type, batch size,
/// workers and the other options written, the sampler.
nlohmann::json describeDataLoader(const clang::CallExpr *Make,
                                  clang::ASTContext &Ctx);

/// The optimizer an `optimizer.step()` call steps: its class as the code
/// names it ("SGD", or "Optimizer" for a reference to the base), or null.
nlohmann::json describeOptimizer(const clang::Expr *StepCall);

/// Where a backward pass runs relative to the autocast region of its
/// function: "inside-region", "outside-region", or null without one.
nlohmann::json describeBackward(const clang::CallExpr *Backward,
                                AutocastFlow &Autocast);

/// The constant value of an argument (integer, float, bool, string), or null.
nlohmann::json constantValue(const clang::Expr *E, clang::ASTContext &Ctx);

} // namespace torchlint::recipe

#endif // TORCHLINT_RECIPE_WORKLOADRECIPE_H
