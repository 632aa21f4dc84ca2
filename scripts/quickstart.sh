#!/usr/bin/env bash
# The first command of the README: installs what is missing, builds torchlint,
# exports the compilation database of the bundled test-inputs/ project with
# CMake, and analyzes it.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${TORCHLINT_BUILD_DIR:-$root/build}

"$root/scripts/install-deps.sh"
"$root/scripts/build.sh" torchlint

echo "quickstart: exporting the compilation database of test-inputs/"
# The test suite (scripts/test.sh) configures this same folder with the
# generator and build type of the build, so that either command may run
# first: CMake refuses a folder configured before with another generator.
generator=$(sed -n 's/^CMAKE_GENERATOR:INTERNAL=//p' "$build/CMakeCache.txt")
cmake -S "$root/test-inputs" -B "$build/test-inputs" -G "$generator" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null

echo "quickstart: $build/bin/torchlint $build/test-inputs/compile_commands.json"
status=0
"$build/bin/torchlint" "$build/test-inputs/compile_commands.json" || status=$?
# test-inputs/ is full of deliberate mistakes: findings (1) are the point.
if ((status > 1)); then
  echo "quickstart: torchlint could not analyze the project (exit $status)" >&2
  exit "$status"
fi
echo "quickstart: done; every finding above is annotated in test-inputs/*.cpp"
