#!/usr/bin/env bash
# Analysis time against program size: bench/stress_program.py writes a
# transformer-shaped libtorch program (modules nested within modules, each
# with its layers; training and inference functions), and this times
# torchlint on it, cold (--no-cache; the precompiled prefix is not built for
# one unit), against clang++-19 -fsyntax-only on the same file, as the
# number of modules grows. Target: torchlint below clang's parse at every
# size, and its time growing no faster than the program. Prints a Markdown
# table for docs/performance.md. Not a test.
#
#   bench/stress.sh [MODULES...]      (default: 8 16 32 64)
#
# STRESS_LAYERS (default 4) and STRESS_FUNCTIONS (default 8) set the other
# two sizes; STRESS_RULES=1 also times each rule alone at the largest size.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
torchlint=${TORCHLINT:-$root/build/bin/torchlint}
layers=${STRESS_LAYERS:-4}
functions=${STRESS_FUNCTIONS:-8}
sizes=("$@")
((${#sizes[@]})) || sizes=(8 16 32 64)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -isystem /usr/include/torch/csrc/api/include)

# seconds of CPU (user + system) and of wall, of a command; torchlint's exit
# status tells of findings, so only a crash stops the benchmark
measure() {
  local status=0
  /usr/bin/time -f '%U %S %e' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
    status=$?
  ((status < 128)) || { echo "crashed: $*" >&2; cat "$work/err" >&2; exit 1; }
  read -r user system wall < <(tail -1 "$work/time")
  python3 -c "print('%.2f %.2f' % ($user + $system, $wall))"
}

echo "| modules | layers | functions | lines | clang++-19 -fsyntax-only (CPU s) | torchlint (CPU s) | torchlint / parse |"
echo "| --- | --- | --- | --- | --- | --- | --- |"
for modules in "${sizes[@]}"; do
  dir=$work/m$modules
  mkdir -p "$dir"
  python3 "$root/bench/stress_program.py" "$modules" "$layers" "$functions" \
    >"$dir/program.cpp"
  python3 - "$dir" "${flags[@]}" <<'PY'
import json, sys
folder, flags = sys.argv[1], sys.argv[2:]
json.dump([{"directory": folder, "file": folder + "/program.cpp",
            "arguments": ["clang++"] + flags + ["-c", folder + "/program.cpp"]}],
          open(folder + "/compile_commands.json", "w"))
PY
  read -r parse _ < <(measure clang++-19 -fsyntax-only "${flags[@]}" "$dir/program.cpp")
  read -r analysis _ < <(measure "$torchlint" --no-cache -j 1 --quiet \
    "$dir/compile_commands.json")
  echo "| $modules | $layers | $functions | $(wc -l <"$dir/program.cpp") | $parse | $analysis | $(python3 -c "print('%.2f' % ($analysis / $parse))") |"
done

if [[ -n ${STRESS_RULES:-} ]]; then
  echo
  echo "Each rule alone at $modules modules (CPU s):"
  echo
  for rule in $("$torchlint" --list-checks 2>/dev/null | grep -o 'torch-[a-z0-9-]*' | sort -u); do
    read -r seconds _ < <(measure "$torchlint" --no-cache -j 1 --quiet \
      --checks="-*,$rule" "$dir/compile_commands.json")
    echo "- $rule: $seconds"
  done
fi
