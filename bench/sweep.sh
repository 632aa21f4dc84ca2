#!/usr/bin/env bash
# Robustness on real code: every source of the five repositories of the open
# real-world corpus (labelled or not), each sub-project a program, analyzed
# with every rule, each unit in a process of its own under --timeout. Reports
# the units torchlint crashed on, those past the timeout, and those it could
# not analyze, with clang's reason: a missing third-party header is named as
# such, and any other error is checked with clang++-19 -fsyntax-only (code
# that does not build with this toolchain and libtorch fails there too). Not a test: a sweep, recorded in docs/reliability.md.
#
#   bench/sweep.sh REPOS [OUT]
#
# REPOS and OUT as for bench/realworld.sh (whose packages, tree extraction
# and compile heuristics it shares). SWEEP_TIMEOUT: seconds per unit
# (default 600).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/realworld-corpus.sh"
timeout=${SWEEP_TIMEOUT:-600}
corpus_setup "${1:?usage: bench/sweep.sh REPOS [OUT]}" "${2:-}" || exit 2
total_start=$SECONDS
for entry in $(corpus_repos); do
  name=${entry%@*}; commit=${entry#*@}
  tree=$(corpus_tree "$name" "$commit") || continue
  REALWORLD_ALL_SOURCES=1 python3 "$root/bench/realworld_compdb.py" "$labels" "$name" \
    "$tree" "$out/stubs" "$specs" > "$out/sweep-$name.json"
  start=$SECONDS
  "$torchlint" --format=json --checks='*' -j "$(nproc)" --timeout="$timeout" \
    --cache-dir="$out/sweep-cache" "$out/sweep-$name.json" \
    > "$out/sweep-$name.out" 2> "$out/sweep-$name.err"
  status=$?
  python3 - "$out/sweep-$name.json" "$out/sweep-$name.out" "$name" \
    "$status" "$((SECONDS - start))" <<'PY'
import collections, json, os, re, subprocess, sys
database, output, name, status, seconds = sys.argv[1:6]
units = len(json.load(open(database)))
try:
    run = json.load(open(output))
except ValueError:
    print(f"{name}: torchlint exited {status} without a log"); sys.exit()
kinds = collections.defaultdict(list)
for failure in run["failures"]:
    message = failure["message"]
    header = re.search(r"'([^']+)' file not found", message)
    # A unit with compile errors is analyzed where clang recovered.
    how = "analyzed in part, " if failure.get("analyzedInPart") else ""
    if "crashed" in message:
        kinds["crash"].append(failure["file"])
    elif "took longer than" in message:
        kinds["past the timeout"].append(failure["file"])
    elif header:
        kinds[how + "missing header " + header.group(1)].append(failure["file"])
    else:
        # Code that does not build with this toolchain and libtorch is the
        # project's, not torchlint's, if clang fails on it too.
        verdict = "torchlint failure"
        for entry in json.load(open(database)):
            path = os.path.join(entry["directory"], entry["file"])
            if os.path.realpath(path) != os.path.realpath(failure["file"]):
                continue
            args = ["clang++-19", "-fsyntax-only"] + [
                a for a in entry["arguments"][1:]
                if a not in ("-c", "-o", "/dev/null", entry["file"])]
            clang = subprocess.run(args + [entry["file"]],
                                   cwd=entry["directory"], capture_output=True)
            if clang.returncode != 0:
                verdict = "clang fails too"
        kinds[how + verdict + ": " + message.split("error: ", 1)[-1]].append(
            failure["file"])
failed = sum(len(v) for k, v in kinds.items() if not k.startswith("analyzed"))
in_part = sum(len(v) for k, v in kinds.items() if k.startswith("analyzed"))
print(f"{name}: {units} units in {seconds} s, exit {status}, "
      f"{len(run['findings'])} findings, {failed} not analyzed, "
      f"{in_part} analyzed in part")
for kind, files in sorted(kinds.items()):
    print(f"  {len(files)} {kind}: {', '.join(sorted(files)[:3])}"
          + (" ..." if len(files) > 3 else ""))
PY
done
echo "sweep: $((SECONDS - total_start)) s in all"
