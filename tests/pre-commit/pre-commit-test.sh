#!/usr/bin/env bash
# The pre-commit hook, run by the real pre-commit on a scratch repository:
# a staged file without findings commits; a staged file with one is
# blocked, and so is a staged header whose finding shows only through the
# unit that includes it. The hook repository is a copy of this one's hook
# files, committed, as pre-commit clones it; no network is needed.
#
#   tests/pre-commit/pre-commit-test.sh SOURCE BIN_DIR MODEL_DATABASE
set -euo pipefail
source=$(realpath "$1") bin=$(realpath "$2") model=$(realpath "$3")
scratch=$(mktemp -d "${TMPDIR:-/tmp}/torchlint-pre-commit.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fail() { echo "pre-commit-test: $*" >&2; exit 1; }
export PRE_COMMIT_HOME=$scratch/pre-commit-home PATH=$bin:$PATH
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com
export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1

hooks=$scratch/hooks
mkdir -p "$hooks/scripts"
cp "$source/.pre-commit-hooks.yaml" "$hooks/"
cp "$source/scripts/pre-commit-torchlint.sh" "$hooks/scripts/"
git -C "$hooks" init -q && git -C "$hooks" add -A && git -C "$hooks" commit -qm hooks
rev=$(git -C "$hooks" rev-parse HEAD)

project=$scratch/project
mkdir -p "$project"
for file in plain.cpp cli_program.cpp with_header.cpp project_model.h; do
  cp "$source/tests/data/$file" "$project/"
done
# The units compile as the test-inputs do: their command, with the file swapped.
python3 "$source/tests/support/compile_database.py" "$model" \
  "$project/compile_commands.json" \
  "$project/plain.cpp" "$project/cli_program.cpp" "$project/with_header.cpp"
cat > "$project/.pre-commit-config.yaml" <<YAML
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: torchlint
YAML
cd "$project"
git init -q
printf '.torchlint-cache/\n' > .gitignore
pre-commit install > /dev/null

git add .gitignore .pre-commit-config.yaml compile_commands.json plain.cpp
git commit -qm "a file without findings" > "$scratch/clean.log" 2>&1 ||
  { cat "$scratch/clean.log" >&2; fail "the commit of a clean file was blocked"; }

git add cli_program.cpp
if git commit -qm "a file with a finding" > "$scratch/finding.log" 2>&1; then
  fail "the commit of a file with a finding was not blocked"
fi
grep -q 'cli_program.cpp:[0-9]*:[0-9]*: warning: .*\[torch-' "$scratch/finding.log" ||
  { cat "$scratch/finding.log" >&2; fail "the hook did not show the finding"; }
git reset -q cli_program.cpp

# The unit is committed without the hook; then only its header is staged.
git add with_header.cpp && git commit -qm "the unit" --no-verify
git add project_model.h
if git commit -qm "a header with a finding" > "$scratch/header.log" 2>&1; then
  fail "the commit of a header with a finding was not blocked"
fi
grep -q 'project_model.h:[0-9]*:[0-9]*: .*\[torch-' "$scratch/header.log" ||
  { cat "$scratch/header.log" >&2; fail "the header's finding was not shown"; }
if grep -q 'with_header.cpp:[0-9]*:[0-9]*:' "$scratch/header.log"; then
  fail "the hook showed a finding of a file that was not staged"
fi
echo "pre-commit-test: a clean file committed; a file and a header with findings blocked"
