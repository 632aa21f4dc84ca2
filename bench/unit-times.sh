#!/usr/bin/env bash
# No slow units: each unit of the open real-world corpus analyzed alone, cold
# (torchlint --no-cache --no-summaries -j 1, every rule: no cache and no
# precompiled prefix, the slowest way it runs), against `clang++-19
# -fsyntax-only` with the same flags, the parse alone. Writes OUT/unit-times.tsv
# (repo, unit, analysis seconds, parse seconds, ratio) and prints the slowest
# five and every unit whose analysis took longer than its parse. Target: none.
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
# it finds. UNIT_TIMES_JOBS
# (default 1): units measured at once, each measurement one process on one
# core.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/realworld-corpus.sh"
corpus_setup "${1:?usage: bench/unit-times.sh REPOS [OUT]}" "${2:-}" || exit 2
command -v /usr/bin/time >/dev/null || { echo "needs GNU time (package time)" >&2; exit 2; }

for entry in $(corpus_repos); do
  name=${entry%@*}; commit=${entry#*@}
  [[ -z ${UNIT_TIMES_REPOS:-} || " $UNIT_TIMES_REPOS " == *" $name "* ]] || continue
  tree=$(corpus_tree "$name" "$commit") || continue
  REALWORLD_ALL_SOURCES=${UNIT_TIMES_ALL_SOURCES:-} python3 \
    "$root/bench/realworld_compdb.py" "$labels" "$name" "$tree" "$out/stubs" \
    > "$out/times-$name.json"
done

python3 - "$out" "$torchlint" "${UNIT_TIMES_JOBS:-1}" "${UNIT_TIMES_MATCH:-}" <<'PY'
import concurrent.futures, glob, json, os, re, subprocess, sys, tempfile
out, torchlint, jobs, match = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]

def seconds(command, cwd):
    with tempfile.NamedTemporaryFile(mode="r") as t:
        run = subprocess.run(["/usr/bin/time", "-f", "%e", "-o", t.name]
                             + command, cwd=cwd, capture_output=True)
        return float(t.read().split()[-1]), run.returncode

def measure(item):
    repo, database, entry = item
    unit = os.path.join(entry["directory"], entry["file"])
    analysis, status = seconds([torchlint, "--no-cache", "--no-summaries",
                                "-j", "1", "--checks=*", "--format=json",
                                database, unit], entry["directory"])
    flags = [a for a in entry["arguments"][1:]
             if a not in ("-c", "-o", "/dev/null", entry["file"])]
    parse, clang_status = seconds(["clang++-19", "-fsyntax-only"] + flags
                                  + [entry["file"]], entry["directory"])
    return repo, os.path.relpath(unit, os.path.join(out, "src")), analysis, \
        parse, status, clang_status

items = []
for database in sorted(glob.glob(os.path.join(out, "times-*.json"))):
    repo = os.path.basename(database)[len("times-"):-len(".json")]
    items += [(repo, database, e) for e in json.load(open(database))
              if re.search(match, os.path.relpath(
                  os.path.join(e["directory"], e["file"]),
                  os.path.join(out, "src")))]
rows = []
with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
    for row in pool.map(measure, items):
        rows.append(row)
        print("%s\t%.2f\t%.2f" % (row[1], row[2], row[3]), file=sys.stderr)
with open(os.path.join(out, "unit-times.tsv"), "w") as tsv:
    tsv.write("repo\tunit\tanalysis_s\tparse_s\tratio\ttorchlint_exit\tclang_exit\n")
    for repo, unit, analysis, parse, status, clang in rows:
        tsv.write("%s\t%s\t%.2f\t%.2f\t%.2f\t%d\t%d\n"
                  % (repo, unit, analysis, parse, analysis / max(parse, 0.01),
                     status, clang))
# A unit clang cannot parse stops early in both: compared all the same.
print(f"{len(rows)} units; analysis/parse: "
      f"min {min(r[2] / r[3] for r in rows):.2f}, "
      f"max {max(r[2] / r[3] for r in rows):.2f}; "
      f"analysis {sum(r[2] for r in rows):.0f} s, parse {sum(r[3] for r in rows):.0f} s in all")
print("\nslowest five analyses:\n\n| unit | analysis (s) | parse (s) | ratio |\n| --- | --- | --- | --- |")
for repo, unit, analysis, parse, *_ in sorted(rows, key=lambda r: -r[2])[:5]:
    print(f"| {unit} | {analysis:.2f} | {parse:.2f} | {analysis / parse:.2f} |")
slower = [r for r in rows if r[2] > r[3]]
print(f"\n{len(slower)} units analyzed slower than parsed" + (":" if slower else ""))
for repo, unit, analysis, parse, status, clang in slower:
    print(f"  {unit}: {analysis:.2f} s against {parse:.2f} s "
          f"(torchlint exit {status}, clang exit {clang})")
PY
