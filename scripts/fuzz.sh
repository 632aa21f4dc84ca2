#!/usr/bin/env bash
# Builds the libFuzzer targets under fuzz/ with clang-19 (AddressSanitizer and
# UndefinedBehaviorSanitizer on) and runs each for the given time, starting
# from the committed seed corpus.
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
# Targets: compile_database configuration replay_log program_file loader_cache
# build_folder lsp_framing (all by default). TORCHLINT_FUZZ_TIMEOUT: seconds
# of wall time one input may take (default 10); raise it when the fuzzers run
# at a low priority beside other work, which can starve an input that long.
# New inputs go to build-fuzz/corpus/<target>, never into the seeds; an input
# that fails is kept as build-fuzz/findings/<target>/crash-* and the script
# exits with 1.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TORCHLINT_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${1:-60}
shift || true
targets=("$@")
((${#targets[@]})) || targets=(compile_database configuration replay_log program_file loader_cache
  build_folder lsp_framing)

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root/fuzz" -B "$build" "${generator[@]}" \
    -DCMAKE_CXX_COMPILER=clang++-19 >/dev/null
fi
cmake --build "$build" --parallel "${TORCHLINT_JOBS:-$(nproc)}" \
  $(printf -- '--target fuzz_%s ' "${targets[@]}")

# Each libFuzzer run is one process on one core: as many run side by side as
# there are cores, each reporting when it is done.
fuzz_one() {
  local target=$1
  local corpus=$build/corpus/$target findings=$build/findings/$target
  mkdir -p "$corpus" "$findings"
  local options=(-max_total_time="$seconds" -timeout="${TORCHLINT_FUZZ_TIMEOUT:-10}" -rss_limit_mb=2048
                 -print_final_stats=1 -artifact_prefix="$findings/")
  [[ -f "$root/fuzz/$target.dict" ]] && options+=(-dict="$root/fuzz/$target.dict")
  if ! "$build/fuzz_$target" "${options[@]}" "$corpus" \
      "$root/fuzz/corpus/$target" 2>"$build/$target.log"; then
    echo "fuzz: $target FAILED; the input is in $findings, the log in" \
      "$build/$target.log" >&2
    tail -n 40 "$build/$target.log" >&2
    return 1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' \
    "$build/$target.log" | sed "s/^/fuzz: $target /"
}

slots=${TORCHLINT_JOBS:-$(nproc)}
status=0
running=0
for target in "${targets[@]}"; do
  if ((running == slots)); then
    wait -n || status=1
    running=$((running - 1))
  fi
  echo "fuzz: $target for ${seconds}s"
  fuzz_one "$target" &
  running=$((running + 1))
done
while ((running > 0)); do
  wait -n || status=1
  running=$((running - 1))
done
exit $status
