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

def program_of(source):
    """A program's path relative to test-inputs/: a .cpp, or the folder of a
    multi-unit program."""
    relative = source.relative_to(inputs)
    return relative if len(relative.parts) == 1 else pathlib.Path(relative.parts[0])

entries = []
for entry in json.load(open(database)):
    source = pathlib.Path(entry["file"])
    if inputs not in source.parents or ".fixed." in source.name:
        continue
    program = program_of(source)
    # A program already fixed against an earlier generation is not redone.
    if any((generation / program).exists() for generation in done.iterdir()
           if generation != work):
        continue
    if not (work / program).exists():
        if (inputs / program).is_dir():
            shutil.copytree(inputs / program, work / program,
                            ignore=shutil.ignore_patterns("*.fixed.*"))
        else:
            shutil.copy(inputs / program, work / program)
    copy = work / source.relative_to(inputs)
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
python3 - "$work" "$root/test-inputs" <<'PY'
import filecmp, pathlib, shutil, sys
work, inputs = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for generation in sorted(p for p in work.iterdir() if p.is_dir()):
    for copy in sorted(generation.rglob("*")):
        relative = copy.relative_to(generation)
        if (copy.suffix not in (".cpp", ".h", ".hpp") or not copy.is_file()
                or any(part.startswith(".") for part in relative.parts)):
            continue
        original = inputs / relative
        golden = original.with_name(original.stem + ".fixed" + original.suffix)
        if filecmp.cmp(copy, original, shallow=False):
            continue
        if golden.exists() and filecmp.cmp(copy, golden, shallow=False):
            continue
        shutil.copy(copy, golden)
        print("updated", golden.relative_to(inputs.parent))
PY
