#!/usr/bin/env bash
# The second command of the README: every test. Installs and builds first if
# needed, so that it also works on a fresh machine.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TORCHLINT_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh"
# The specification and CLI suites are independent processes; side by side
# they keep two cores busy where one of them runs a single parse at a time.
ctest --test-dir "$build" --output-on-failure --parallel 2
# The Bazel aspect on bazel/example, offline: one cached action per unit.
"$root/scripts/bazel-check.sh" "$build"
# A short bounded run of each fuzzer from its seed corpus; the long runs are
# recorded in docs/reliability.md.
"$root/scripts/fuzz.sh" "${TORCHLINT_FUZZ_SECONDS:-15}"
# A short mutation sweep: odd variants of the test-inputs, each analyzed
# with every rule; a crash, a hang or a finding outside the variant fails.
# The long runs are recorded in docs/reliability.md.
mutants=$(mktemp -d)
trap 'rm -rf "$mutants"' EXIT
python3 "$root/bench/mutation_sweep.py" --variants "${TORCHLINT_MUTANTS:-12}" \
  --batch 12 --timeout 300 "$mutants"
