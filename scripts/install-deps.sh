#!/usr/bin/env bash
# Installs what torchlint needs from Debian 12's packages, and nothing that is
# already there: with everything present it changes nothing and says so.
set -euo pipefail

packages=(
  # the analyzer and the clang-tidy plugin: LibTooling from LLVM 19
  clang-19 libclang-19-dev libclang-cpp19-dev llvm-19-dev clang-tidy-19
  # the programs it analyzes, and the runtime
  libtorch-dev
  # JSON, tests, build
  nlohmann-json3-dev libgtest-dev cmake ninja-build g++ make
)

missing=()
for package in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$package")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages are installed"
  exit 0
fi

sudo=()
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
