#!/usr/bin/env bash
# Replays the analyzer's findings on test-inputs on a GPU and tabulates the
# verdicts for docs/replay-results.md.
#
#   bench/replay-on-gpu.sh prepare   here, where the analyzer builds: writes
#                                    bench/.carry/ (the SARIF of test-inputs
#                                    and the nlohmann/json header)
#   bench/replay-on-gpu.sh run       on the GPU machine (no apt, no LLVM, no
#                                    network): builds runtime/ alone against
#                                    its CUDA libtorch and replays; results
#                                    go to $OUT (default bench/.carry/out)
#
# Carry bench/.carry to the GPU machine with the working tree.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
carry=$root/bench/.carry

prepare() {
  local build=${TORCHLINT_BUILD_DIR:-$root/build}
  "$root/scripts/build.sh" torchlint
  cmake -S "$root/test-inputs" -B "$build/test-inputs" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release >/dev/null
  mkdir -p "$carry/include/nlohmann"
  cp /usr/include/nlohmann/json.hpp "$carry/include/nlohmann/"
  # Exit 1 only says that there are findings.
  "$build/bin/torchlint" "$build/test-inputs" --format=sarif \
    -o "$carry/test-inputs.sarif" || [[ $? -eq 1 ]]
  echo "prepared $carry"
}

run() {
  local out=${OUT:-$carry/out} build=${REPLAY_BUILD_DIR:-$root/build-replay}
  local prefix=${TORCH_PREFIX:-}
  if [[ -z "$prefix" ]]; then
    prefix=$(python3 -c 'import torch; print(torch.utils.cmake_prefix_path)' \
             2>/dev/null || true)
  fi
  mkdir -p "$out"
  # The carried header, so that the same path is taken here and there.
  local json_dir=(-DTORCHLINT_JSON_INCLUDE_DIR="$carry/include")
  cmake -S "$root/runtime" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DTORCHLINT_BUILD_TESTS=OFF ${prefix:+-DCMAKE_PREFIX_PATH="$prefix"} \
    "${json_dir[@]}" >"$out/configure.log" 2>&1 ||
    { tail -30 "$out/configure.log"; exit 1; }
  cmake --build "$build" --parallel "$(nproc)" >"$out/build.log" 2>&1 ||
    { tail -30 "$out/build.log"; exit 1; }
  "$build/bin/torchlint-doctor" | tee "$out/doctor.txt" || true
  "$build/bin/torchlint-replay" "$carry/test-inputs.sarif" \
    -o "$out/replayed.sarif" ${REPLAY_ARGS:-} | tee "$out/replay.txt"
  python3 "$root/bench/replay-table.py" "$out/replayed.sarif" \
    >"$out/replay-results.md"
  echo "results in $out"
}

case "${1:-}" in
prepare) prepare ;;
run) run ;;
*) sed -n '2,14p' "$0" >&2; exit 2 ;;
esac
