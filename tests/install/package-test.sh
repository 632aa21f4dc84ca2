#!/usr/bin/env bash
# The Debian package: `cpack -G DEB` builds it; it must declare its
# dependencies on Debian's packages rather than bundle them, and what it
# installs must run: torchlint on a test-input program, and the plugin in
# stock clang-tidy-19. With TORCHLINT_PACKAGE_TEST=apt (CI, as root on a
# machine of its own) the package is installed with apt-get and removed
# afterwards; otherwise it is unpacked into a scratch root, so that a
# developer's machine is left as it was.
#
#   tests/install/package-test.sh BUILD DATABASE PROGRAM
set -euo pipefail
build=$(realpath "$1") database=$(realpath "$2") program=$(realpath "$3")
scratch=$(mktemp -d "${TMPDIR:-/tmp}/torchlint-package.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fail() { echo "package-test: $*" >&2; exit 1; }
source "$(dirname "$0")/installed-checks.sh"

(cd "$scratch" && cpack -G DEB --config "$build/CPackConfig.cmake" -B "$scratch/out" \
  > "$scratch/cpack.log" 2>&1) || { cat "$scratch/cpack.log" >&2; fail "cpack -G DEB failed"; }
package=$(ls "$scratch"/out/torchlint_*.deb 2>/dev/null | head -n 1)
[[ -n $package ]] || fail "cpack wrote no torchlint_*.deb"

depends=$(dpkg-deb --field "$package" Depends)
for needed in clang-tidy-19 libclang-common-19-dev libclang-cpp19 libllvm19 libtorch; do
  [[ $depends == *"$needed"* ]] || fail "Depends does not name $needed: $depends"
done
contents=$(dpkg-deb --contents "$package")
for file in usr/bin/torchlint usr/bin/torchlint-doctor usr/bin/torchlint-replay \
    usr/bin/clang-tidy-torchlint libTorchlintTidyModule.so; do
  grep -q "$file" <<< "$contents" || fail "the package lacks $file"
done
if grep -Eq 'libLLVM|libclang-cpp|libtorch' <<< "$contents"; then
  fail "the package bundles a library it should depend on"
fi

if [[ ${TORCHLINT_PACKAGE_TEST:-} == apt ]]; then
  if dpkg-query -W -f='${Status}' torchlint 2>/dev/null | grep -qx 'install ok installed'; then
    fail "a torchlint package is already installed; not replacing it"
  fi
  sudo=()
  if ((EUID != 0)); then
    command -v sudo > /dev/null ||
      fail "TORCHLINT_PACKAGE_TEST=apt needs root or sudo to install the package"
    sudo=(sudo)
  fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get install -y -q "$package" > "$scratch/apt.log" 2>&1 ||
    { cat "$scratch/apt.log" >&2; fail "apt-get install $package failed"; }
  trap '"${sudo[@]}" apt-get purge -y -q torchlint > /dev/null 2>&1; rm -rf "$scratch"' EXIT
  root=
  how="installed with apt-get"
else
  dpkg-deb --extract "$package" "$scratch/root"
  root=$scratch/root
  how="unpacked into $root"
fi

expect_findings "$root/usr/bin/torchlint" "$database" "$program" "$scratch/log.sarif"
plugin=$(find "$root/usr/lib" -maxdepth 2 -name libTorchlintTidyModule.so | head -n 1)
expect_tidy_findings "$database" "$program" clang-tidy-19 --load="$plugin"
expect_tidy_findings "$database" "$program" "$root/usr/bin/clang-tidy-torchlint"
echo "package-test: $(basename "$package") $how; Depends: $depends"
