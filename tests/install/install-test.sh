#!/usr/bin/env bash
# `cmake --install` into a scratch prefix chosen at install time; the tree is
# then moved, and every installed program runs from where it landed:
# torchlint on a test-input program, the doctor, the replay of torchlint's
# log, and the clang-tidy wrapper, which finds the plugin relative to itself.
#
#   tests/install/install-test.sh BUILD SOURCE DATABASE PROGRAM
set -euo pipefail
build=$(realpath "$1") source=$(realpath "$2") database=$(realpath "$3") program=$(realpath "$4")
scratch=$(mktemp -d "${TMPDIR:-/tmp}/torchlint-install.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fail() { echo "install-test: $*" >&2; exit 1; }
source "$(dirname "$0")/installed-checks.sh"

cmake --install "$build" --prefix "$scratch/chosen" > "$scratch/install.log"
mv "$scratch/chosen" "$scratch/moved"
prefix=$scratch/moved
if grep -rqs "$scratch/chosen" "$prefix/bin"; then
  fail "an installed program names the prefix it was installed into"
fi

for program_name in torchlint torchlint-doctor torchlint-replay clang-tidy-torchlint; do
  [[ -x $prefix/bin/$program_name ]] || fail "bin/$program_name is not installed"
done
plugin=$(find "$prefix" -name libTorchlintTidyModule.so)
[[ -n $plugin ]] || fail "the clang-tidy plugin is not installed"
if [[ -n ${MAN_PAGES:-} ]]; then
  for page in torchlint torchlint-doctor torchlint-replay; do
    man_page=$prefix/share/man/man1/$page.1
    [[ -s $man_page ]] || fail "share/man/man1/$page.1 is not installed"
    grep -q -- '\\-\\-version' "$man_page" || fail "$page.1 does not hold the options of --help"
  done
fi
rules=$(ls "$source"/docs/rules/torch-*.md | wc -l)
installed_rules=$(ls "$prefix"/share/doc/torchlint/rules/torch-*.md | wc -l)
((rules == installed_rules)) || fail "$installed_rules of $rules rule pages installed"

# The analyzer, from the moved tree, on one program of test-inputs.
"$prefix/bin/torchlint" --version | grep -q '^torchlint ' || fail "torchlint --version"
expect_findings "$prefix/bin/torchlint" "$database" "$program" "$scratch/log.sarif"

# The replay of that log, on the CPU (the scenarios whose claim holds there).
"$prefix/bin/torchlint-replay" "$scratch/log.sarif" --device cpu \
  --budget-seconds 1 --repeats 3 -o "$scratch/replayed.sarif" > "$scratch/replay.txt"
grep -q '"replay"' "$scratch/replayed.sarif" || fail "the replay wrote no verdict"

# The doctor: a report on this machine, whatever it finds.
set +e
"$prefix/bin/torchlint-doctor" --json > "$scratch/doctor.json"
set -e
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["checks"]' \
  "$scratch/doctor.json" || fail "torchlint-doctor --json wrote no checks"

# The wrapper loads the installed plugin into stock clang-tidy-19.
"$prefix/bin/clang-tidy-torchlint" --checks='-*,torch-*' --list-checks \
  | grep -q 'torch-' || fail "clang-tidy-torchlint lists no torch- check"
expect_tidy_findings "$database" "$program" "$prefix/bin/clang-tidy-torchlint"
echo "install-test: installed, moved, and every program ran from $prefix"
