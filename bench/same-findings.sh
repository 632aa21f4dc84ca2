#!/usr/bin/env bash
# Whether a change of structure kept behaviour: runs two torchlint binaries
# over the same inputs and compares everything a user reads (findings, notes,
# fix-its, code flows, recipes, tool messages) in JSON and in SARIF. Only what
# differs from run to run of one binary is left out (times, the version).
#
#   bench/same-findings.sh OLD NEW|- [REPOS] [OUT]
#
# OLD, NEW: torchlint binaries (copy the old one out of build/ before
# rebuilding). The inputs: every program of test-inputs/ against libtorch
# 1.13 and 2.6 (the build's test-inputs databases), and with REPOS (as for
# bench/realworld.sh) every labelled unit of the real-world corpus. OUT
# keeps each binary's outputs (default: a temporary folder); OLD's are
# reused, so a baseline is computed once. Exits 1
# when anything differs, and prints what. NEW '-' only makes OLD's outputs
# (a baseline, with OUT).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
old=${1:?usage: bench/same-findings.sh OLD NEW [REPOS] [OUT]}
new=${2:?usage: bench/same-findings.sh OLD NEW [REPOS] [OUT]}
repos=${3:-}
for bin in "$old" "${new/#-/$old}"; do
  [[ -x $bin ]] || { echo "same-findings: $bin is not an executable" >&2; exit 2; }
done
if [[ -n ${4:-} ]]; then out=$4; mkdir -p "$out"; else
  out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi

databases=()
for db in "$root"/build/test-inputs/compile_commands.json \
  "$root"/build/test-inputs-libtorch2/compile_commands.json; do
  [[ -f $db ]] || { echo "same-findings: no $db (build and run ctest -R configure first)" >&2; exit 2; }
  databases+=("$db")
done

# analyze BIN DIR: JSON and SARIF of every input into DIR.
analyze() {
  local bin=$1 dir=$2 db name
  mkdir -p "$dir"
  for db in "${databases[@]}"; do
    name=$(basename "$(dirname "$db")")
    [[ $dir == "$out/old" && -f $dir/$name.done ]] && continue
    (cd "$root" && "$bin" --no-cache --quiet --fail-on=error --format=json \
      -o "$dir/$name.json" --export-sarif="$dir/$name.sarif" "$db" \
      >"$dir/$name.log" 2>&1)
    touch "$dir/$name.done"
  done
  [[ -n $repos ]] || return 0
  TORCHLINT=$bin source "$root/bench/realworld-corpus.sh"
  local keep=$out
  corpus_setup "$repos" "$keep/corpus" || return 2
  out=$keep # corpus_setup names its folder $out
  local entry commit tree
  for entry in $(corpus_repos); do
    name=${entry%@*}; commit=${entry#*@}
    [[ $dir == "$out/old" && -f $dir/$name.done ]] && continue
    tree=$(corpus_tree "$name" "$commit") || continue
    [[ -f $out/corpus/$name.db.json ]] ||
      python3 "$root/bench/realworld_compdb.py" "$labels" "$name" "$tree" \
        "$out/corpus/stubs" "$specs" >"$out/corpus/$name.db.json"
    "$bin" --no-cache --quiet --fail-on=error --format=json -o "$dir/$name.json" \
      --export-sarif="$dir/$name.sarif" "$out/corpus/$name.db.json" \
      >"$dir/$name.log" 2>&1
    touch "$dir/$name.done"
  done
}

# OLD's outputs are kept input by input (a .done beside each), so that an
# interrupted or extended baseline is not made again.
analyze "$old" "$out/old" || exit 2
[[ $new != - ]] || exit 0
rm -rf "$out/new"
analyze "$new" "$out/new" || exit 2

python3 - "$out/old" "$out/new" <<'PY'
import json, os, sys

old_dir, new_dir = sys.argv[1:]

def strip(value):
    """What differs between two runs of one binary: times and the version."""
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items()
                if k not in ("startTimeUtc", "endTimeUtc", "version",
                             "semanticVersion", "seconds", "elapsed")}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value

def lines(path):
    if path.endswith(".log"):
        return open(path, errors="replace").read().splitlines()
    return json.dumps(strip(json.load(open(path))), indent=1,
                      sort_keys=True).splitlines()

names = sorted(set(os.listdir(old_dir)) | set(os.listdir(new_dir)))
names = [n for n in names if n.endswith((".json", ".sarif", ".log"))]
differ = 0
for name in names:
    a, b = os.path.join(old_dir, name), os.path.join(new_dir, name)
    if not (os.path.isfile(a) and os.path.isfile(b)):
        print(f"{name}: only in {'old' if os.path.isfile(a) else 'new'}")
        differ += 1
        continue
    la, lb = lines(a), lines(b)
    if la != lb:
        import difflib
        differ += 1
        print(f"{name}: differs")
        for line in list(difflib.unified_diff(la, lb, "old", "new", lineterm="", n=2))[:40]:
            print("  " + line)
print(f"same-findings: {len(names) - differ} of {len(names)} outputs identical")
sys.exit(1 if differ else 0)
PY
