//===--- RuleRegistry.h - The one list of rules -----------------*- C++ -*-===//

#ifndef TORCHLINT_RULES_RULEREGISTRY_H
#define TORCHLINT_RULES_RULEREGISTRY_H

#include "rules/Rule.h"

#include "llvm/ADT/ArrayRef.h"

#include <memory>
#include <string>

namespace torchlint {

struct RuleEntry {
  const RuleInfo &Info;
  std::unique_ptr<Rule> (*Create)(AnalysisContext &Context);
};

/// Every rule, in the order of their ids.
llvm::ArrayRef<RuleEntry> allRules();

/// The rule with this id, or null.
const RuleEntry *findRule(llvm::StringRef Id);

/// The --checks glob of the default set: every rule but those off by
/// default ("torch-*,-torch-data-parallel-per-step"); a user's globs come
/// after it.
std::string defaultChecks();

} // namespace torchlint

#endif // TORCHLINT_RULES_RULEREGISTRY_H
