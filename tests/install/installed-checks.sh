# The checks the install and package tests run on what they installed,
# sourced by both. Each needs $scratch (a scratch folder) and fail().

# TORCHLINT analyzes PROGRAM through DATABASE into the SARIF log OUT: exit
# status 1 and at least one finding, as the program has.
expect_findings() {
  local torchlint=$1 database=$2 program=$3 out=$4 status=0
  "$torchlint" --no-cache --quiet --format=sarif -o "$out" "$database" \
    "$program" || status=$?
  ((status == 1)) || fail "$torchlint exited with $status on $program, not 1"
  grep -q '"ruleId": "torch-' "$out" || fail "$torchlint found nothing in $program"
}

# The clang-tidy command line given (the plugin loaded one way or another)
# reports a torch- check on PROGRAM through DATABASE.
expect_tidy_findings() {
  local database=$1 program=$2
  shift 2
  "$@" --checks='-*,torch-*' --quiet -p "$(dirname "$database")" "$program" \
    > "$scratch/tidy.txt" 2> "$scratch/tidy.err" || true
  grep -q '\[torch-' "$scratch/tidy.txt" ||
    { cat "$scratch/tidy.err" >&2; fail "'$*' found nothing in $program"; }
}
