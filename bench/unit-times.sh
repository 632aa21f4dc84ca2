#!/usr/bin/env bash
# No slow units: each unit of the open real-world corpus analyzed alone, cold
# (torchlint --no-cache --no-summaries -j 1, every rule: no cache and no
# precompiled prefix, the slowest way it runs), against `clang++-19
# -fsyntax-only` with the same flags, the parse alone (bench/unit_times.py
# says how the parse is made to parse what the analysis parses, and how small
# units are measured). Writes OUT/unit-times.tsv and prints the slowest five
# and every unit whose analysis took longer than its parse. Target: none.
# Not a test: run it on an otherwise idle machine; record it in
# docs/performance.md.
#
#   bench/unit-times.sh REPOS [OUT]
#
# REPOS and OUT as for bench/realworld.sh, whose compile heuristics it uses:
# the units of the labelled sub-projects by default, every source of the five
# repositories with UNIT_TIMES_ALL_SOURCES=1; UNIT_TIMES_REPOS, a list of
# names (owner+name), limits it to those repositories, and UNIT_TIMES_MATCH,
# a Python regular expression, to the units whose path (owner+name/...)
# it finds. UNIT_TIMES_JOBS (default 1): units measured at once, each
# measurement one process on one core. UNIT_TIMES_REPEATS (default 5): the
# runs more of a small or close unit, of which the fastest counts.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/realworld-corpus.sh"
corpus_setup "${1:?usage: bench/unit-times.sh REPOS [OUT]}" "${2:-}" || exit 2

for entry in $(corpus_repos); do
  name=${entry%@*}; commit=${entry#*@}
  [[ -z ${UNIT_TIMES_REPOS:-} || " $UNIT_TIMES_REPOS " == *" $name "* ]] || continue
  tree=$(corpus_tree "$name" "$commit") || continue
  REALWORLD_ALL_SOURCES=${UNIT_TIMES_ALL_SOURCES:-} python3 \
    "$root/bench/realworld_compdb.py" "$labels" "$name" "$tree" "$out/stubs" "$specs" \
    > "$out/times-$name.json"
done

python3 "$root/bench/unit_times.py" "$out" "$torchlint" "${UNIT_TIMES_JOBS:-1}" \
  "${UNIT_TIMES_MATCH:-}" "${UNIT_TIMES_REPEATS:-5}"
