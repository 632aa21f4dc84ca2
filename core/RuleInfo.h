//===--- RuleInfo.h - What a rule is and how it is configured ---*- C++ -*-===//
//
// The static description of a rule (its id, level and prose, the source of
// --list-checks and of SARIF's rule metadata) and where its options come
// from. Both shells read these without running any rule.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHLINT_CORE_RULEINFO_H
#define TORCHLINT_CORE_RULEINFO_H

#include "core/Finding.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace torchlint {

/// An option of a rule, spelled "<rule-id>.<Name>" in .clang-tidy's
/// CheckOptions. Options are non-negative integers, the only kind a rule has
/// needed so far.
struct RuleOptionInfo {
  const char *Name;
  unsigned Default;
};

/// Static description of a rule; also the source of --list-checks and of the
/// SARIF rule metadata. Its prose is its docs page (docs/rules/<id>.md), which
/// the CLI builds in: nothing here repeats it.
struct RuleInfo {
  /// Stable identifier: "torch-device-mismatch".
  const char *Id;
  /// Readable identifier for reports: "DeviceMismatch".
  const char *Name;
  /// One line, lower-case, no final period.
  const char *Summary;
  Level DefaultLevel;
  bool OffersFixIts;
  /// Comma-separated: "correctness,gpu".
  const char *Tags;
  /// How often a finding is right, in SARIF's words: "very-high", "high",
  /// "medium" or "low".
  const char *Precision;
  /// What the rule reads once, when it is made; the clang-tidy plugin writes
  /// them back, so that --dump-config lists them.
  llvm::ArrayRef<RuleOptionInfo> Options = {};
  /// As in clang-tidy, a rule off by default runs only where a --checks glob
  /// (or clang-tidy's Checks) names it: its advice does not fit every
  /// program.
  bool EnabledByDefault = true;
};

/// Where rule options come from: the CLI's configuration or .clang-tidy
/// CheckOptions in the plugin. Keys are "<rule-id>.<Option>".
class RuleOptions {
public:
  virtual ~RuleOptions() = default;
  virtual std::optional<std::string> get(llvm::StringRef Key) const = 0;
};

/// Option's value for the rule Info in Options: its default when unset, or,
/// with Problem set to one sentence saying so, when the value is not a
/// non-negative integer.
unsigned readOption(const RuleInfo &Info, const RuleOptionInfo &Option,
                    const RuleOptions *Options, std::string *Problem = nullptr);

} // namespace torchlint

#endif // TORCHLINT_CORE_RULEINFO_H
