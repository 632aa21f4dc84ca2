#!/usr/bin/env bash
# Configures and builds torchlint in build/ (or $TORCHLINT_BUILD_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TORCHLINT_BUILD_DIR:-$root/build}
jobs=${TORCHLINT_JOBS:-$(nproc)}

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release "$@"
fi
cmake --build "$build" --parallel "$jobs"
