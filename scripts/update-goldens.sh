#!/usr/bin/env bash
# Regenerates test-inputs/<name>.fixed.cpp from `torchlint --fix` for every
# program that draws a fix-it: against the libtorch 1.13 database, and against
# the 2.x one for programs that only build with libtorch 2. Review the result with `git diff` before
# committing: the goldens are the specification, not a snapshot to accept
# blindly.
#
#   scripts/update-goldens.sh [build-dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
torchlint=$build/bin/torchlint
databases=("$build/test-inputs/compile_commands.json"
           "$build/test-inputs-libtorch2/compile_commands.json")
[[ -x $torchlint ]] || { echo "no $torchlint: build first" >&2; exit 2; }
for database in "${databases[@]}"; do
  [[ -f $database ]] || { echo "no $database: run ctest -R configure_test_inputs" >&2; exit 2; }
done

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for database in "${databases[@]}"; do
  generation=$work/$(basename "$(dirname "$database")")
  mkdir "$generation"
  python3 - "$database" "$root/test-inputs" "$generation" "$work" <<'PY'
import json, shutil, sys, pathlib
database, inputs = sys.argv[1], pathlib.Path(sys.argv[2])
work, done = pathlib.Path(sys.argv[3]), pathlib.Path(sys.argv[4])
entries = []
for entry in json.load(open(database)):
    source = pathlib.Path(entry["file"])
    # A program already fixed against an earlier generation is not redone.
    if source.parent != inputs or any(done.glob("*/" + source.name)):
        continue
    copy = work / source.name
    shutil.copy(source, copy)
    for key in ("command", "arguments"):
        if key in entry:
            entry[key] = (entry[key].replace(str(source), str(copy))
                          if isinstance(entry[key], str)
                          else [str(copy) if a == str(source) else a for a in entry[key]])
    entry["file"] = str(copy)
    entries.append(entry)
json.dump(entries, open(work / "compile_commands.json", "w"), indent=1)
PY
  "$torchlint" --fix --quiet --fail-on=error "$generation/compile_commands.json" >/dev/null || true
done
for copy in "$work"/*/*.cpp; do
  name=$(basename "$copy" .cpp)
  golden=$root/test-inputs/$name.fixed.cpp
  if ! cmp -s "$copy" "$root/test-inputs/$name.cpp" && ! cmp -s "$copy" "$golden"; then
    cp "$copy" "$golden"
    echo "updated test-inputs/$name.fixed.cpp"
  fi
done
