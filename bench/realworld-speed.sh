#!/usr/bin/env bash
# Speed on a real multi-project repository: torchlint against run-clang-tidy
# with the torchlint plugin over koba-jon/pytorch_cpp at the corpus's commit,
# every unit of its labelled sub-projects (each with its own -I folders, and
# the repo's shared utils). Wall time and peak resident memory of each run;
# prints a Markdown table for docs/performance.md (add the machine and the
# date). Not a test: run it on an otherwise idle machine.
#
#   bench/realworld-speed.sh REPOS [OUT]
#
# REPOS and OUT as for bench/realworld.sh. REALWORLD_SPEED_REPO picks another
# repo of the corpus; REALWORLD_SPEED_JOBS the workers (default 2).
# Targets: cold at least 5x faster than run-clang-tidy-19 with the plugin;
# warm, nothing changed, at most 2% of cold; after one edit, only that unit
# parsed (and the units whose summaries from it changed); the whole-program
# summary pass at most 10% over the same cold run without it.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/realworld-corpus.sh"
repo=${REALWORLD_SPEED_REPO:-koba-jon+pytorch_cpp}
jobs=${REALWORLD_SPEED_JOBS:-2}
corpus_setup "${1:?usage: bench/realworld-speed.sh REPOS [OUT]}" "${2:-}" || exit 2
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (package time)" >&2; exit 2; }
build=$(dirname "$(dirname "$torchlint")")
plugin=$(find "$build" -name 'libTorchlintTidyModule.so' | head -1)
[[ -n $plugin ]] || { echo "no clang-tidy plugin in $build: build it first" >&2; exit 2; }

commit=$(corpus_repos | sed -n "s/^$repo@//p")
[[ -n $commit ]] || { echo "$repo is not in $labels" >&2; exit 2; }
# A fresh copy of the tree: the edit below must not touch the extraction.
tree=$(corpus_tree "$repo" "$commit") || exit 2
rm -rf "$out/speed" && mkdir -p "$out/speed" && cp -r "$tree" "$out/speed/src"
project=$out/speed/src
python3 "$root/bench/realworld_compdb.py" "$labels" "$repo" "$project" \
  "$out/stubs" "$specs" >"$project/compile_commands.json"
db=$project/compile_commands.json
read -r units subprojects < <(python3 - "$db" "$project" <<'PY'
import json, os, sys
entries = json.load(open(sys.argv[1]))
tops = {os.path.relpath(e["file"] if os.path.isabs(e["file"]) else
                        os.path.join(e["directory"], e["file"]),
                        sys.argv[2]).split(os.sep)[0] for e in entries}
print(len(entries), len(tops))
PY
)

declare -A wall rss note
measure() {
  local name=$1
  shift
  /usr/bin/time -f '%e %M' -o "$out/speed/time" "$@" >"$out/speed/$name.out" \
    2>"$out/speed/$name.err" || true
  read -r seconds kib < <(tail -1 "$out/speed/time")
  wall[$name]=$seconds
  rss[$name]=$((kib / 1024))
  note[$name]=$(grep -o '[0-9]* of [0-9]* translation units unchanged' \
    "$out/speed/$name.err" || echo "none read from the cache")
}
cache=$out/speed/cache
measure tidy run-clang-tidy-19 -load="$plugin" -checks='-*,torch-*' \
  -p "$project" -j "$jobs" -quiet
measure plain "$torchlint" --no-cache --no-pch -j "$jobs" "$db"
measure cold "$torchlint" --cache-dir="$cache" -j "$jobs" "$db"
# The same cold run without the whole-program summary pass: its cost.
measure nosummaries "$torchlint" --cache-dir="$out/speed/cache-no-summaries" \
  --no-summaries -j "$jobs" "$db"
measure warm "$torchlint" --cache-dir="$cache" -j "$jobs" "$db"
edited=$(python3 -c "import json,os,sys;e=json.load(open(sys.argv[1]))[0];print(os.path.join(e['directory'],e['file']))" "$db")
echo "// edited after the cold run" >>"$edited"
measure edit "$torchlint" --cache-dir="$cache" -j "$jobs" "$db"
prefixes=$(find "$cache" -name '*.pch' | wc -l)
ratio() { python3 -c "print('%.2f' % ($1 / max($2, 0.01)))"; }
percent() { python3 -c "print('%.1f%%' % (100 * $1 / max($2, 0.01)))"; }
cat <<TABLE
$repo at ${commit:0:7}: $units units in $subprojects sub-projects, -j $jobs; the cold run precompiled $prefixes libtorch prefix(es).

| measurement | wall (s) | peak RSS (MiB) | ratio |
| --- | --- | --- | --- |
| run-clang-tidy-19 with the plugin | ${wall[tidy]} | ${rss[tidy]} (largest process) | 1.00 |
| torchlint --no-cache --no-pch | ${wall[plain]} | ${rss[plain]} | $(ratio "${wall[tidy]}" "${wall[plain]}")x faster than clang-tidy |
| torchlint, cold | ${wall[cold]} | ${rss[cold]} | $(ratio "${wall[tidy]}" "${wall[cold]}")x faster than clang-tidy |
| torchlint --no-summaries, cold | ${wall[nosummaries]} | ${rss[nosummaries]} | the summary pass costs $(percent "$(python3 -c "print(${wall[cold]} - ${wall[nosummaries]})")" "${wall[nosummaries]}") |
| torchlint, warm, nothing changed (${note[warm]}) | ${wall[warm]} | ${rss[warm]} | $(percent "${wall[warm]}" "${wall[cold]}") of cold |
| torchlint, warm, one unit edited (${note[edit]}) | ${wall[edit]} | ${rss[edit]} | $(percent "${wall[edit]}" "${wall[cold]}") of cold |
TABLE
