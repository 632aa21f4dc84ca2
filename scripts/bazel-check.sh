#!/usr/bin/env bash
# torchlint's Bazel aspect (bazel/torchlint.bzl) on the example workspace
# (bazel/example), offline, in a scratch copy:
#   1. the first build runs one torchlint action per source (2);
#   2. after `bazel clean`, a build with the same --disk_cache runs none;
#   3. after one source is edited, exactly its action runs again; after the
#      rule options are, every action;
#   4. the merged log holds both units' findings; torchlint_test fails on
#      them at warning level and passes at error level (there are none).
# Needs Debian 12's bazel-bootstrap (4.2.3) and a built torchlint.
#
#   scripts/bazel-check.sh [build-dir]   (default: build)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-${TORCHLINT_BUILD_DIR:-$root/build}}
command -v bazel >/dev/null ||
  { echo "bazel-check: no bazel (apt-get install bazel-bootstrap)" >&2; exit 2; }
[[ -x $build/bin/torchlint ]] || { echo "bazel-check: build torchlint first" >&2; exit 2; }

work=$(mktemp -d)
trap 'bazel --output_user_root="$work/user-root" shutdown >/dev/null 2>&1 || true; chmod -R u+w "$work"; rm -rf "$work"' EXIT
cp -r "$root/bazel" "$work/rules"
# @torchlint: the binary, as a target the actions can run. It needs
# Debian's LLVM 19 libraries and clang's resource folder at run time: what a
# remote executor's image must hold.
mkdir -p "$work/torchlint/bin"
cp "$build/bin/torchlint" "$work/torchlint/bin/torchlint"
echo 'workspace(name = "torchlint")' > "$work/torchlint/WORKSPACE"
cat > "$work/torchlint/BUILD" <<'EOF'
sh_binary(
    name = "torchlint",
    srcs = ["bin/torchlint"],
    visibility = ["//visibility:public"],
)

filegroup(
    name = "config",
    srcs = ["torchlint.yaml"],
    visibility = ["//visibility:public"],
)
EOF
printf 'CheckOptions:\n  torch-dataloader-no-workers.Workers: 4\n' > "$work/torchlint/torchlint.yaml"

offline=$work/rules/offline
flags=(--override_repository=rules_cc="$offline/rules_cc"
       --override_repository=rules_java="$offline/rules_java"
       --override_repository=rules_proto="$offline/rules_proto"
       --override_repository=remote_coverage_tools="$offline/remote_coverage_tools"
       --override_repository=torchlint="$work/torchlint"
       --disk_cache="$work/disk-cache")
cd "$work/rules/example"
bazel_() { bazel --output_user_root="$work/user-root" "$@"; }

# Torchlint spawns that ran (not served from the disk cache), by source.
ran() {
  python3 - "$1" <<'PY'
import json, sys
text = open(sys.argv[1]).read()
decoder, position, ran = json.JSONDecoder(), 0, []
while position < len(text):
    while position < len(text) and text[position].isspace():
        position += 1
    if position == len(text):
        break
    spawn, position = decoder.raw_decode(text, position)
    if spawn.get("mnemonic") == "Torchlint" and not spawn.get("remoteCacheHit"):
        ran.append(spawn.get("progressMessage", "").split()[-1])
print(" ".join(sorted(ran)))
PY
}

status=0
expect() { # what, expected, got
  if [[ $2 == "$3" ]]; then echo "bazel-check: $1: $3"; else
    echo "bazel-check: $1: expected '$2', got '$3'" >&2; status=1; fi
}

start=$SECONDS
bazel_ build "${flags[@]}" --execution_log_json_file="$work/first.json" //:torchlint
expect "first build, torchlint actions run ($((SECONDS - start)) s)" \
  "train/model.cpp train/train.cpp" "$(ran "$work/first.json")"

bazel_ clean
bazel_ build "${flags[@]}" --execution_log_json_file="$work/cached.json" //:torchlint
expect "after bazel clean, with the disk cache" "" "$(ran "$work/cached.json")"

echo "// edited" >> train/train.cpp
bazel_ build "${flags[@]}" --execution_log_json_file="$work/edited.json" //:torchlint
expect "after editing train/train.cpp" "train/train.cpp" "$(ran "$work/edited.json")"

sed -i 's/Workers: 4/Workers: 8/' "$work/torchlint/torchlint.yaml"
bazel_ build "${flags[@]}" --execution_log_json_file="$work/options.json" //:torchlint
expect "after editing the rule options" "train/model.cpp train/train.cpp" \
  "$(ran "$work/options.json")"

merged=$(bazel_ info "${flags[@]}" bazel-bin)/torchlint.sarif
expect "files with findings in the merged log" "train/model.cpp train/train.cpp" \
  "$(python3 -c '
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
print(" ".join(sorted({r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                       for r in runs[0]["results"]})))' "$merged")"

test_status=0
bazel_ test "${flags[@]}" //:torchlint_test >/dev/null 2>&1 || test_status=$?
expect "torchlint_test at warning level (bazel test's exit status)" 3 "$test_status"
test_status=0
bazel_ test "${flags[@]}" //:torchlint_errors_test >/dev/null 2>&1 || test_status=$?
expect "torchlint_test at error level (bazel test's exit status)" 0 "$test_status"
exit $status
