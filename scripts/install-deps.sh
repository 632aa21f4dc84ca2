#!/usr/bin/env bash
# Installs what torchlint needs from Debian 12's packages, and nothing that is
# already there: with everything present it changes nothing and says so.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)

packages=(
  # the analyzer and the clang-tidy plugin: LibTooling from LLVM 19
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev clang-tidy-19
  # the programs it analyzes, and the runtime
  libtorch-dev
  # the fuzzers and sanitizers (scripts/fuzz.sh, scripts/sanitize.sh)
  libclang-rt-19-dev
  # the analyzer's allocator: huge pages for the units the summary pass keeps
  libjemalloc-dev
  # JSON, tests, build
  nlohmann-json3-dev libgtest-dev cmake ninja-build g++ make
  # the editor test: a real LSP client drives `torchlint lsp`
  neovim
  # the Bazel aspect's check (scripts/bazel-check.sh): Bazel 4.2 and a JDK
  bazel-bootstrap
  # man pages from --help; the Debian package (cpack -G DEB: dpkg-shlibdeps
  # and file find the libraries it depends on); the pre-commit hook's test;
  # the CI action's test reads action.yml
  help2man dpkg-dev file pre-commit python3-yaml
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done
# Node.js runs the SARIF validators of the tests; any install of it will do.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  missing+=(nodejs npm)
fi

sudo=()
if ((${#missing[@]} > 0)); then
  if ((EUID != 0)); then
    if command -v sudo >/dev/null; then
      sudo=(sudo)
    else
      echo "install-deps: missing ${missing[*]}; run this script as root" >&2
      exit 1
    fi
  fi
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -q
  "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "install-deps: all ${#packages[@]} packages are installed"
fi

# The SARIF validators the tests run (test tooling only), pinned by
# tests/sarif/package-lock.json; reinstalled only when the lock file changes.
sarif=$root/tests/sarif
stamp=$sarif/node_modules/.torchlint-lock.sha256
wanted=$(sha256sum "$sarif/package-lock.json" | cut -d' ' -f1)
if [[ -f "$stamp" && "$(cat "$stamp")" == "$wanted" ]]; then
  echo "install-deps: the SARIF validators are installed"
else
  echo "install-deps: installing the SARIF validators (npm ci in tests/sarif)"
  npm ci --prefix "$sarif" --no-audit --no-fund --ignore-scripts --loglevel=error
  echo "$wanted" >"$stamp"
fi

# The headers of libtorch 2.x, to test against both generations: Debian 13's
# libtorch-dev, fetched by name from the Debian registry with a private
# sources list and state, and unpacked into the project. Nothing is installed
# system-wide and the machine's own apt sources stay untouched.
libtorch2=$root/.deps/libtorch2
if [[ -f "$libtorch2/include/torch/csrc/api/include/torch/torch.h" ]]; then
  echo "install-deps: libtorch $(cat "$libtorch2/VERSION") headers are in .deps/libtorch2"
  exit 0
fi
echo "install-deps: fetching Debian 13's libtorch-dev headers into .deps/libtorch2"
work=$root/.deps/apt-trixie
rm -rf "$work" "$libtorch2"
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/download" \
  "$work/unpacked"
echo "deb http://deb.debian.org/debian trixie main" >"$work/sources.list"
apt_private=(
  -o "Dir::Etc::sourcelist=$work/sources.list" -o "Dir::Etc::sourceparts=-"
  -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
  -o "APT::Sandbox::User=$(id -un)" -q
)
apt-get "${apt_private[@]}" update
(cd "$work/download" && apt-get "${apt_private[@]}" download libtorch-dev)
deb=$(ls "$work"/download/libtorch-dev_*.deb)
version=$(dpkg-deb -f "$deb" Version)
if [[ "$version" != 2.* ]]; then
  echo "install-deps: Debian 13's libtorch-dev is $version, not 2.x" >&2
  exit 1
fi
dpkg -x "$deb" "$work/unpacked"
mkdir -p "$libtorch2"
mv "$work/unpacked/usr/include" "$libtorch2/include"
echo "$version" >"$libtorch2/VERSION"
rm -rf "$work"
echo "install-deps: libtorch $version headers are in .deps/libtorch2"
