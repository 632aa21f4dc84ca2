#!/usr/bin/env bash
# Rewrites the rule lists of README.md and docs/rules/README.md from the
# built torchlint's own description of its rules (the `rule_list` test
# fails while they differ).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TORCHLINT_BUILD_DIR:-$root/build}
exec cmake -DTORCHLINT="$build/bin/torchlint" -DROOT="$root" -DMODE=update \
  -P "$root/cmake/RuleList.cmake"
