#!/usr/bin/env bash
# Configures and builds torchlint in build/ (or $TORCHLINT_BUILD_DIR).
# Arguments name the targets to build; without any, everything is built.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TORCHLINT_BUILD_DIR:-$root/build}
jobs=${TORCHLINT_JOBS:-$(nproc)}

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release
fi
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build "$build" --parallel "$jobs" "${targets[@]}"
