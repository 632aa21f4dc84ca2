#!/usr/bin/env bash
# Accuracy on real code: runs torchlint over every unit of each labelled
# sub-project of the real-world corpus (every labels-*.tsv of it) and of this
# project's blind labels (bench/realworld-labels-*.tsv), and scores it against
# the hand-labelled lines: per label file, repository and rule, with the
# unlabelled findings of fully labelled files. Not a test: a benchmark,
# recorded in docs/accuracy.md. LABEL_FILES="a.tsv b.tsv" runs only those.
#
#   bench/realworld.sh REPOS [OUT]
#
# REPOS: a folder with a clone of each repo the labels name, as owner+name (a
# bare clone, or a folder with repo/ inside, as `fetch` leaves them). OUT: a
# scratch folder (default: a temporary one, removed afterwards). The labels,
# the tree extraction and the scoring are the corpus's own, in
# $REALWORLD (default: ../shared/realworld beside the project); the
# compilation databases are this benchmark's (bench/realworld_compdb.py).
# Needs LIBTORCH2_INCLUDE for the one C++20 repo (default: the headers that
# scripts/install-deps.sh unpacks). Installs the header packages the repos
# include when they are missing.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/bench/realworld-corpus.sh"
corpus_setup "${1:?usage: bench/realworld.sh REPOS [OUT]}" "${2:-}" || exit 2

for entry in $(corpus_repos); do
  name=${entry%@*}; commit=${entry#*@}
  tree=$(corpus_tree "$name" "$commit") || continue
  python3 "$root/bench/realworld_compdb.py" "$labels" "$name" "$tree" "$out/stubs" "$specs" > "$out/$name.json"
  units=$(python3 -c "import json,sys;print(len(json.load(open(sys.argv[1]))))" "$out/$name.json")
  start=$SECONDS
  "$torchlint" --format=sarif --no-cache -o "$out/$name.sarif" "$out/$name.json" > "$out/$name.log" 2>&1
  status=$?
  echo "$name: exit $status, $units units, $(grep -c ' could not be analyzed: ' "$out/$name.log") not analyzed, $(grep -c ' does not compile; ' "$out/$name.log") analyzed in part, $((SECONDS - start)) s"
  # A unit torchlint could not analyze, or analyzed only in part, is its
  # failure only if clang parses it with the same flags.
  sed -n -e 's/^torchlint: error: \(.*\) could not be analyzed: .*/not analyzed\t\1/p' \
         -e 's/^torchlint: error: \(.*\) does not compile; .*/analyzed in part\t\1/p' \
         "$out/$name.log" | sort -u |
    while IFS=$'\t' read -r how unit; do
      verdict=$(python3 - "$out/$name.json" "$unit" <<'PY'
import json, os, subprocess, sys
for entry in json.load(open(sys.argv[1])):
    path = os.path.join(entry["directory"], entry["file"])
    if os.path.realpath(path) != os.path.realpath(sys.argv[2]):
        continue
    args = ["clang++-19", "-fsyntax-only"] + [
        a for a in entry["arguments"][1:] if a not in ("-c", "-o", "/dev/null", entry["file"])]
    run = subprocess.run(args + [entry["file"]], cwd=entry["directory"],
                         capture_output=True, text=True)
    errors = [l for l in run.stderr.splitlines() if "error:" in l]
    print("clang parses it: a torchlint failure" if run.returncode == 0
          else "clang fails too: " + (errors[0] if errors else "exit %d" % run.returncode))
PY
)
      echo "  $how: ${unit#$tree/} ($verdict)"
    done
done
python3 "$root/bench/realworld_score.py" "$out" "${label_files[@]}"
