#!/usr/bin/env bash
# Regenerates test-inputs/<name>.fixed.cpp from `torchlint --fix` for every
# program that draws a fix-it. Review the result with `git diff` before
# committing: the goldens are the specification, not a snapshot to accept
# blindly.
#
#   scripts/update-goldens.sh [build-dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
torchlint=$build/bin/torchlint
database=$build/test-inputs/compile_commands.json
[[ -x $torchlint ]] || { echo "no $torchlint: build first" >&2; exit 2; }
[[ -f $database ]] || { echo "no $database: run ctest -R configure_test_inputs" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 - "$database" "$root/test-inputs" "$work" <<'PY'
import json, shutil, sys, pathlib
database, inputs, work = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
entries = []
for entry in json.load(open(database)):
    source = pathlib.Path(entry["file"])
    if source.parent != inputs:
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
"$torchlint" --fix --quiet --fail-on=error "$work/compile_commands.json" >/dev/null || true
for copy in "$work"/*.cpp; do
  name=$(basename "$copy" .cpp)
  if ! cmp -s "$copy" "$root/test-inputs/$name.cpp"; then
    cp "$copy" "$root/test-inputs/$name.fixed.cpp"
    echo "updated test-inputs/$name.fixed.cpp"
  fi
done
