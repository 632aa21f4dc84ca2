#!/usr/bin/env bash
# The pre-commit hook (.pre-commit-hooks.yaml): torchlint's findings in the
# staged C++ files. Each file is analyzed through the nearest
# compile_commands.json above it (in a folder, or in its build/): the whole
# program, so that what other units tell counts, with only the findings in
# the staged files shown (--line-filter). A header is reported through the
# units that include it. The cache beside the database keeps later commits
# to the units that changed.
#
#   pre-commit-torchlint.sh [-p BUILD_DIR] [TORCHLINT_OPTION...] FILE...
#
# torchlint is $TORCHLINT, else the one on PATH. Options start with '-' and
# go to torchlint as they are (--fail-on=error, --checks=...); -p names the
# folder of the compilation database for every file, as clang-tidy's -p.
set -uo pipefail
torchlint=${TORCHLINT:-torchlint}
if ! command -v "$torchlint" > /dev/null; then
  echo "torchlint: not found on PATH (install it, or set TORCHLINT)" >&2
  exit 2
fi

database=
options=()
files=()
while (($#)); do
  case $1 in
    -p) database=${2:?-p needs a folder}; shift 2 ;;
    -p=* | --p=*) database=${1#*=}; shift ;;
    -*) options+=("$1"); shift ;;
    *) files+=("$(realpath -m "$1")"); shift ;;
  esac
done

nearest_database() {
  local dir
  dir=$(dirname "$1")
  while :; do
    for candidate in "$dir/compile_commands.json" "$dir/build/compile_commands.json"; do
      [[ -f $candidate ]] && { echo "$candidate"; return 0; }
    done
    [[ $dir == / || -d $dir/.git ]] && return 1
    dir=$(dirname "$dir")
  done
}

declare -A staged_in
for file in "${files[@]}"; do
  if [[ -n $database ]]; then
    found=$(realpath "$database")
    [[ -d $found ]] && found=$found/compile_commands.json
  elif ! found=$(nearest_database "$file"); then
    echo "torchlint: note: no compile_commands.json above $file; not analyzed" >&2
    continue
  fi
  staged_in[$found]+="$file"$'\n'
done

status=0
for found in "${!staged_in[@]}"; do
  filter=$(python3 -c 'import json,sys
print(json.dumps([{"name": f} for f in sys.argv[1].splitlines() if f]))' "${staged_in[$found]}")
  "$torchlint" "${options[@]}" --line-filter="$filter" "$found"
  result=$?
  ((result > status)) && status=$result
done
exit "$status"
