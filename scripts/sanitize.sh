#!/usr/bin/env bash
# Runs the analyzer's test suites under the sanitizers, each in a build of its
# own made with clang-19:
#   scripts/sanitize.sh address   AddressSanitizer and UndefinedBehaviorSanitizer
#                                 over the unit, test-input and CLI suites
#   scripts/sanitize.sh thread    ThreadSanitizer over `torchlint -j 2` on both
#                                 test-input databases, cold and warm, and over
#                                 the language server's suite (its analyzing
#                                 and prefix-building threads)
#   scripts/sanitize.sh thread lsp  the language server's suite alone
#   scripts/sanitize.sh address analyzer
#                                 `torchlint -j 2` alone, as for thread: the
#                                 summary pass's kept units, analyzed again on
#                                 another thread and freed at its end
# The clang-tidy plugin is left out: it is loaded into clang-tidy-19, which is
# not built with a sanitizer. The runtime needs libtorch's own build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
kind=${1:?usage: scripts/sanitize.sh address|thread [lsp]}
only=${2:-}
case $kind in
  address) flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-sanitize=vptr" ;;
  thread) flags="-fsanitize=thread" ;;
  *) echo "sanitize: unknown sanitizer '$kind' (address or thread)" >&2; exit 2 ;;
esac
build=${TORCHLINT_SANITIZE_BUILD_DIR:-$root/build-$kind}
jobs=${TORCHLINT_JOBS:-$(nproc)}

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  generator=()
  command -v ninja >/dev/null && generator=(-G Ninja)
  cmake -S "$root" -B "$build" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++-19 \
    -DCMAKE_CXX_FLAGS="$flags -fno-omit-frame-pointer" \
    -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags" \
    -DTORCHLINT_BUILD_PLUGIN=OFF -DTORCHLINT_BUILD_RUNTIME=OFF >/dev/null
fi
# The slow unwinder, a few frames deep: Debian's LLVM libraries have no frame
# pointers, and a leak's stack must reach the clang function that
# scripts/lsan-suppressions.txt names.
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:exitcode=86:fast_unwind_on_malloc=0:malloc_context_size=8
export LSAN_OPTIONS=suppressions=$root/scripts/lsan-suppressions.txt
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
export TSAN_OPTIONS=halt_on_error=1:exitcode=88:second_deadlock_stack=1:suppressions=$root/scripts/tsan-suppressions.txt

if [[ $kind == address && $only != analyzer ]]; then
  cmake --build "$build" --parallel "$jobs"
  ctest --test-dir "$build" --output-on-failure --parallel "$jobs"
  exit
fi

targets=(--target torchlint)
[[ $kind == thread ]] && targets+=(--target torchlint_lsp_tests)
cmake --build "$build" --parallel "$jobs" "${targets[@]}"
ctest --test-dir "$build" -R '^configure_test_inputs' --output-on-failure >/dev/null
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
status=0
[[ $only == lsp ]] && set -- || set -- "$build"/test-inputs/compile_commands.json \
  "$build"/test-inputs-libtorch2/compile_commands.json
for database in "$@"; do
  for run in cold warm; do
    echo "sanitize: $kind, -j 2, $run cache: $database"
    # Findings give exit code 1; a report from a sanitizer gives 86 to 88.
    code=0
    "$build/bin/torchlint" -j 2 --cache-dir="$cache" --format=json \
      "$database" >/dev/null || code=$?
    if ((code > 1)); then
      echo "sanitize: torchlint exited with $code" >&2
      status=1
    fi
  done
done
if [[ $kind == thread ]]; then
  echo "sanitize: thread, the language server's suite"
  "$build/tests/torchlint_lsp_tests" || { echo "sanitize: the lsp suite failed" >&2; status=1; }
fi
exit $status
