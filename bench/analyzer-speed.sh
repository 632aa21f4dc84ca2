#!/usr/bin/env bash
# torchlint against clang's parse floor and against clang-tidy with the
# torchlint plugin: wall time and peak resident memory of each, and the
# ratios that have targets (docs/performance.md). Prints a Markdown table for
# docs/performance.md (add the machine and the date). Not a test: run it on an
# otherwise idle machine.
#
#   bench/analyzer-speed.sh [build-dir]     (default: build/)
#
# The project: 16 distinct libtorch units, the test-inputs/ programs that
# build with Debian 12's libtorch, then copies of the first ones made distinct
# by a function of their own, compiled with test-inputs/'s own flags.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

TORCHLINT_BUILD_DIR=$build "$root/scripts/build.sh" torchlint \
  TorchlintTidyModule >/dev/null
plugin=$(find "$build" -name 'libTorchlintTidyModule.so' | head -1)
torchlint=$build/bin/torchlint
model_db=$work/model
cmake -S "$root/test-inputs" -B "$model_db" -G Ninja \
  -DCMAKE_BUILD_TYPE=Release >/dev/null

project=$work/project
mkdir -p "$project"
python3 - "$model_db/compile_commands.json" "$project" <<'PY'
import json, os, shutil, sys
model, project = json.load(open(sys.argv[1])), sys.argv[2]
entries, units = [], 16
for i in range(units):
    source = model[i % len(model)]
    stem = os.path.splitext(os.path.basename(source["file"]))[0]
    target = os.path.join(project, "unit%02d_%s.cpp" % (i, stem))
    text = open(source["file"]).read()
    if i >= len(model):
        text += "\nint distinct_unit_%d() { return %d; }\n" % (i, i)
    open(target, "w").write(text)
    command = source["command"].replace(source["file"], target)
    entries.append({"directory": source["directory"], "command": command,
                    "file": target})
json.dump(entries, open(os.path.join(project, "compile_commands.json"), "w"),
          indent=1)
PY
db=$project/compile_commands.json
one=$(ls "$project"/unit00_*.cpp)

# measure NAME COMMAND...: wall seconds and peak RSS (MiB) of COMMAND (for a
# command that starts others, the largest of them).
declare -A wall rss
measure() {
  local name=$1
  shift
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >/dev/null 2>"$work/err" ||
    true
  read -r seconds kib < <(tail -1 "$work/time")
  wall[$name]=$seconds
  rss[$name]=$((kib / 1024))
}

# The parse floor: the unit's own command with -fsyntax-only.
floor_command=$(python3 - "$db" "$one" <<'PY'
import json, shlex, sys
for entry in json.load(open(sys.argv[1])):
    if entry["file"] == sys.argv[2]:
        args = shlex.split(entry["command"])
        out, skip = [], False
        for a in args[1:]:
            if skip:
                skip = False
                continue
            if a in ("-o", "-MF", "-MT", "-MQ"):
                skip = True
                continue
            if a in ("-c", "-MD", "-MMD") or a == entry["file"]:
                continue
            out.append(a)
        print(" ".join(shlex.quote(a) for a in
                       ["clang++-19", "-fsyntax-only"] + out + [entry["file"]]))
PY
)
cache=$work/cache
measure floor bash -c "$floor_command"
measure tidy_one clang-tidy-19 --load="$plugin" -checks='-*,torch-*' \
  -p "$project" "$one"
measure one_cold "$torchlint" --cache-dir="$cache/one" -j 1 "$db" "$one"
measure one_warm "$torchlint" --cache-dir="$cache/one" -j 1 "$db" "$one"
measure tidy_all run-clang-tidy-19 -load="$plugin" -checks='-*,torch-*' \
  -p "$project" -j 2 -quiet
measure all_plain "$torchlint" --no-cache -j 2 "$db"
measure all_cold "$torchlint" --cache-dir="$cache/all" -j 2 "$db"
measure all_warm "$torchlint" --cache-dir="$cache/all" -j 2 "$db"
echo "// edited" >>"$(ls "$project"/unit05_*.cpp)"
measure all_edit "$torchlint" --cache-dir="$cache/all" -j 2 "$db"
reparsed=$(grep -o '[0-9]* of [0-9]* translation units unchanged' \
  "$work/err" || echo "none unchanged")
measure worker_cold "$torchlint" --cache-dir="$cache/worker" -j 1 "$db"

ratio() { python3 -c "print('%.2f' % ($1 / max($2, 0.01)))"; }
cat <<TABLE
| measurement | wall (s) | peak RSS (MiB) | ratio |
| --- | --- | --- | --- |
| one unit: clang++-19 -fsyntax-only (the parse floor) | ${wall[floor]} | ${rss[floor]} | 1.00 of the floor |
| one unit: clang-tidy-19 with the plugin | ${wall[tidy_one]} | ${rss[tidy_one]} | $(ratio "${wall[tidy_one]}" "${wall[floor]}") of the floor |
| one unit: torchlint, cold | ${wall[one_cold]} | ${rss[one_cold]} | $(ratio "${wall[one_cold]}" "${wall[floor]}") of the floor |
| one unit: torchlint, warm | ${wall[one_warm]} | ${rss[one_warm]} | $(ratio "${wall[one_warm]}" "${wall[floor]}") of the floor |
| 16 units, -j 2: run-clang-tidy-19 with the plugin | ${wall[tidy_all]} | ${rss[tidy_all]} (largest process) | 1.00 |
| 16 units, -j 2: torchlint, no cache, no PCH | ${wall[all_plain]} | ${rss[all_plain]} (2 workers) | $(ratio "${wall[tidy_all]}" "${wall[all_plain]}")x faster than clang-tidy |
| 16 units, -j 2: torchlint, cold | ${wall[all_cold]} | ${rss[all_cold]} (2 workers) | $(ratio "${wall[tidy_all]}" "${wall[all_cold]}")x faster than clang-tidy |
| 16 units, -j 2: torchlint, warm, nothing changed | ${wall[all_warm]} | ${rss[all_warm]} | $(ratio "${wall[all_cold]}" "${wall[all_warm]}")x faster than cold |
| 16 units, -j 2: torchlint, warm, one unit edited ($reparsed) | ${wall[all_edit]} | ${rss[all_edit]} | $(ratio "${wall[all_cold]}" "${wall[all_edit]}")x faster than cold |
| 16 units, -j 1: torchlint, cold (one worker's peak) | ${wall[worker_cold]} | ${rss[worker_cold]} | $(ratio "${rss[worker_cold]}" "${rss[floor]}") of the floor's memory |
TABLE
