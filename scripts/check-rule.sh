#!/usr/bin/env bash
# One rule's specification, fast: the programs of test-inputs/ that name the
# rule in an annotation, analyzed with that rule alone against both libtorch
# generations, their findings compared with the rule's annotations (line,
# level, message, notes). The precompiled libtorch prefix and the result cache
# are kept in the build folder between runs, so the second run of a rule
# takes seconds. The full suite (ctest) stays the judge of false positives in
# the other programs.
#
#   scripts/check-rule.sh torch-foo [build-dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
rule=${1:?usage: scripts/check-rule.sh <rule-id> [build-dir]}
build=${2:-${TORCHLINT_BUILD_DIR:-$root/build}}

"$root/scripts/build.sh" torchlint torchlint_e2e_tests >/dev/null
if ! "$build/bin/torchlint" --list-checks --checks="-*,$rule" 2>/dev/null |
    grep -Eq "^ *$rule( \(off by default\))?$"; then
  echo "check-rule: no rule '$rule' (torchlint --list-checks lists them)" >&2
  exit 2
fi
# Configured anew each time (a fraction of a second), so that a program just
# added to test-inputs/ is in the compilation databases.
ctest --test-dir "$build" -R "^configure_test_inputs" --output-on-failure \
  >/dev/null
TORCHLINT_SPEC_RULE=$rule TORCHLINT_SPEC_CACHE=$build/check-rule-cache \
  exec "$build/tests/torchlint_e2e_tests" --gtest_filter='Programs/TestInput.*'
