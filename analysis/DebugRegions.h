//===--- DebugRegions.h - Code that only debug builds compile ---*- C++ -*-===//
//
// A switch meant for debugging (anomaly detection, extra checks) is fine
// where only a debug build compiles it: the taken branch of `#ifndef NDEBUG`,
// `#if !defined(NDEBUG)`, `#ifdef DEBUG`, `#if MY_DEBUG`, or the `#else` of
// `#ifdef NDEBUG`. The preprocessor knows these branches and the AST does
// not, so each shell installs the recorder on its preprocessor before the
// parse and hands the regions to the unit's AnalysisContext.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_ANALYSIS_DEBUGREGIONS_H
#define TORCHLINT_ANALYSIS_DEBUGREGIONS_H

#include "clang/Basic/SourceLocation.h"

#include <memory>
#include <vector>

namespace clang {
class LangOptions;
class PPCallbacks;
class SourceManager;
} // namespace clang

namespace torchlint {

class DebugRegions {
public:
  /// Callbacks that record, from now on, the conditional branches of the
  /// user's files that only a debug build takes; earlier records are
  /// dropped (a new unit).
  std::unique_ptr<clang::PPCallbacks> recorder(const clang::SourceManager &SM,
                                               const clang::LangOptions &Lang);

  /// Loc (its expansion) is inside such a branch.
  bool contains(clang::SourceLocation Loc,
                const clang::SourceManager &SM) const;

private:
  friend class DebugBranchRecorder;
  std::vector<clang::SourceRange> Ranges;
};

} // namespace torchlint

#endif // TORCHLINT_ANALYSIS_DEBUGREGIONS_H
