# Sourced by the real-world benchmarks (realworld.sh, realworld-speed.sh,
# sweep.sh, unit-times.sh): the corpus's labels, its header packages and its
# trees.
#
#   corpus_setup REPOS [OUT] checks the labels and torchlint, installs the
#                            header packages, prepares OUT/src and OUT/stubs;
#                            sets out to OUT (default: a temporary folder,
#                            removed when the script exits)
#   corpus_repos             each labelled repo as NAME@COMMIT
#   corpus_tree NAME COMMIT  the repo's tree at COMMIT under OUT/src (printed),
#                            extracted once; fails when REPOS has no clone
# REPOS: a folder with a clone of each repo the labels name, as owner+name (a
# bare clone, or a folder with repo/ inside, as `fetch` leaves them).

bench_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
realworld=${REALWORLD:-$bench_root/../shared/realworld}
torchlint=${TORCHLINT:-$bench_root/build/bin/torchlint}
# Every label file: the corpus's (labels-*.tsv) and this project's blind ones
# (bench/realworld-labels-*.tsv), or those LABEL_FILES names. corpus_setup
# joins them into $labels, and the hand-written unit lists beside them
# (repos-*.json, bench/realworld-repos-*.json) into $specs.
if [[ -n ${LABEL_FILES:-} ]]; then
  read -r -a label_files <<<"$LABEL_FILES"
else
  label_files=("$realworld"/labels-*.tsv "$bench_root"/bench/realworld-labels-*.tsv)
fi
spec_files=("$realworld"/repos-*.json "$bench_root"/bench/realworld-repos-*.json)
# The one C++20 repo needs libtorch 2's headers (scripts/install-deps.sh).
export LIBTORCH2_INCLUDE=${LIBTORCH2_INCLUDE:-$bench_root/.deps/libtorch2/include}

corpus_setup() {
  corpus_repos_dir=$(cd "$1" && pwd) || return 2
  if [[ -n ${2:-} ]]; then out=$2; mkdir -p "$out"; else
    out=$(mktemp -d); trap 'rm -rf "$out"' EXIT; fi
  corpus_out=$out
  local f
  for f in "${label_files[@]}"; do
    [[ -f $f ]] || { echo "no label file $f" >&2; return 2; }
  done
  [[ -x $torchlint ]] || { echo "no $torchlint: build first" >&2; return 2; }
  labels=$corpus_out/labels.tsv
  { head -n 1 "${label_files[0]}"; for f in "${label_files[@]}"; do tail -n +2 "$f"; done; } >"$labels"
  specs=$corpus_out/repos.json
  python3 -c 'import json,sys,os
merged = {}
for f in sys.argv[1:]:
    if os.path.isfile(f): merged.update(json.load(open(f)))
print(json.dumps(merged))' "${spec_files[@]}" >"$specs"
  # The headers the repos include (Debian 12), and those their lists name.
  local packages=(libopencv-dev libboost-program-options-dev libpng++-dev
    libcxxopts-dev libstb-dev libspdlog-dev libmsgpack-cxx-dev cppzmq-dev
    pybind11-dev libomp-19-dev python3-dev libpoco-dev libsentencepiece-dev
    libyaml-cpp-dev libbackward-cpp-dev libfmt-dev nlohmann-json3-dev
    libpython3.11-dev)
  packages+=($(python3 -c 'import json,sys
print(" ".join(sorted({p for v in json.load(open(sys.argv[1])).values() for p in v.get("packages", [])})))' "$specs"))
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$p")
  done
  if ((${#missing[@]})); then
    local sudo=()
    [[ $(id -u) -eq 0 ]] || sudo=(sudo)
    "${sudo[@]}" apt-get install -y -qq "${missing[@]}" >/dev/null ||
      { echo "could not install: ${missing[*]}" >&2; return 2; }
  fi
  mkdir -p "$corpus_out/src" "$corpus_out/stubs"
  : >"$corpus_out/stubs/io.h" # stands in for a Windows header one repo includes
}

corpus_repos() {
  tail -n +2 "$labels" | cut -f1,2 | sort -u | tr '\t' '@'
}

corpus_tree() {
  local name=$1 commit=$2 git_dir=$corpus_repos_dir/$1
  [[ -d $git_dir/repo ]] && git_dir=$git_dir/repo
  [[ -d $git_dir ]] || { echo "$name: no clone in $corpus_repos_dir" >&2; return 1; }
  local tree=$corpus_out/src/$name
  [[ -d $tree ]] || { mkdir -p "$tree" &&
    python3 "$realworld/extract.py" "$git_dir" "$commit" "$tree" >&2; } || return 1
  echo "$tree"
}
