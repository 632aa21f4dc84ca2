//===--- HostWidening.h - Data widened on the host before its copy -*- C++ -*-//
//
// Pixels arrive as bytes; a model wants floats. Converted on the host before
// the copy to the GPU, the data crosses the bus two to eight times as large
// as it arrived; copied first and converted on the device, it crosses as it
// is. This analysis follows the tensor a copy sends back to where it was
// narrower: a conversion (`.to(torch::kFloat)`), arithmetic that promotes an
// integer tensor (`.div(255)`), the copy itself (`.to(device, kFloat)`, which
// converts on the host when it blocks), OpenCV's `convertTo(CV_32F)` or
// `blobFromImage` under `from_blob`, or a dataset's `get()` that returns the
// widened tensor to a data loader.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_HOSTWIDENING_H
#define TORCHLINT_ANALYSIS_HOSTWIDENING_H

#include "analysis/HostCopies.h"

#include <optional>
#include <string>

namespace clang {
class Expr;
} // namespace clang

namespace torchlint {

class FunctionCfgCache;
class UnitIndex;

struct HostWidening {
  enum class Form {
    Conversion, ///< `.to(torch::kFloat)`, `.toType(...)`
    Arithmetic, ///< `.div(255)` or `* 0.5` on an integer tensor
    InTheCopy,  ///< `.to(device, torch::kFloat)`, blocking
    OpenCv,     ///< `convertTo(m, CV_32F)` or `blobFromImage` under from_blob
    InDataset,  ///< a dataset's get() returns the widened tensor
  };
  Form How;
  /// Where the data is widened.
  const clang::Expr *Where;
  /// The narrow tensor the conversion widens, when the widening is part of
  /// the copy's own expression (the chain a fix-it can reorder); else null.
  const clang::Expr *NarrowInCopy = nullptr;
  /// The dtypes as scalarTypeName spells them; From is "uint8" for an
  /// image OpenCV converts, which it assumes 8-bit.
  std::string From;
  std::string To;
};

/// Where the data that Copy sends from the host was widened on the host,
/// if it was: the source's dtype before is known to be narrower than what
/// the copy sends. Values are followed through local variables, the
/// arguments of a function's callers in this unit (Index) and the returns
/// of the program's functions. A non-blocking `.to(device, dtype)` converts
/// on the device and is no widening.
std::optional<HostWidening> widenedBeforeCopy(const DeviceCopy &Copy,
                                              FunctionCfgCache &Cfgs,
                                              UnitIndex &Index);

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_HOSTWIDENING_H
