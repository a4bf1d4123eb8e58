#!/usr/bin/env bash
# Makes a release for this machine's architecture: the Debian package, the portable tarball, the
# sdist and the wheel of ipybox-native, and their checksums, and writes the tarballs' checksums
# into the plugins that fetch them (plugins/*/release.txt), versions in sync. A tag v<version>
# does the same on GitHub for x86_64 and aarch64 and publishes it (.github/workflows/release.yml).
#
#   ./release.sh [--out DIR] [--release-url URL]
#
#   DIR  (default dist/) receives ipybox_<version>_<arch>.deb, ipybox-<version>-linux-<arch>.tar.gz,
#        ipybox_native-<version>.tar.gz (sdist), ipybox_native-<version>-py3-none-manylinux_*.whl
#        and SHA256SUMS. Upload them to <URL>/v<version>/ (on GitHub: a release tagged
#        v<version>), then commit the changed plugins/*/release.txt with the version.
#   URL  the base the plugins download from (GitHub: https://github.com/<owner>/<repo>/releases/download);
#        kept from the previous release when not given.
#
# macOS: no Mac runs this script. The tag's workflow builds the macOS wheels and tarballs
# (ipybox-<version>-macos-<arch>.tar.gz, arch arm64 or x86_64, made from the tested wheel by
# packaging/make-macos-tarball.sh) on GitHub's macOS runners; their checksums reach the plugins with
# `plugins/sync-version.py --release-sums SHA256SUMS` run on the release's SHA256SUMS (which lists
# every platform's files), then commit plugins/*/release.txt. Until then the launchers say on a Mac
# that this release has no macOS build. This script rewrites release.txt from its own SHA256SUMS
# (this machine's Linux tarball only), so run sync-version.py on the release's SHA256SUMS last.
#
# On a fresh Debian 12 / Ubuntu it installs what it needs first (root or sudo): the build
# dependencies (./install.sh --deps-only), patchelf, binutils and python3-venv from apt, and the
# pinned Python packaging tools (scikit-build-core, build, auditwheel, twine) from PyPI into
# .cache/packaging-tools (packaging/tools.sh).
#
# Three builds, each in its own folder: build-deb links Debian's shared libraries (the package
# depends on them); build-portable is an IPYBOX_PORTABLE build for the tarball (static libstdc++,
# Boost, OpenSSL); build-wheel is the same portable build made from the sdist, the tracked files.
# Reproducible where the tools allow: times come from SOURCE_DATE_EPOCH (default: the last commit's
# time) and source paths are mapped to "."; the same commit built in the same folder with the same
# compiler and libraries gives the same bytes (the binary still records where its source's Python
# runtime was, for running from the build tree).
set -euo pipefail
cd "$(dirname "$0")"
ROOT="$PWD"

out=dist
release_url=""
while [ $# -gt 0 ]; do
    case "$1" in
        --out) out="$2"; shift 2 ;;
        --out=*) out="${1#--out=}"; shift ;;
        --release-url) release_url="$2"; shift 2 ;;
        --release-url=*) release_url="${1#--release-url=}"; shift ;;
        -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0"; exit 0 ;;
        *) echo "release.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
out="$(cd "$out" && pwd)"

JOBS="${JOBS:-$(nproc)}"
DEB_BUILD_DIR="${DEB_BUILD_DIR:-build-deb}"
PORTABLE_BUILD_DIR="${PORTABLE_BUILD_DIR:-build-portable}"
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}"
export SOURCE_DATE_EPOCH
version="$(sed -n 's/^project(ipybox VERSION \([0-9][0-9.]*\).*/\1/p' CMakeLists.txt)"
deb_arch="$(dpkg --print-architecture)"
arch="$(uname -m)"

# Every tool this script runs, installed when missing (a newcomer's machine has no patchelf).
./install.sh --deps-only
release_packages=()
for tool_and_package in patchelf:patchelf objdump:binutils cpack:cmake dpkg-shlibdeps:dpkg-dev \
    sha256sum:coreutils gzip:gzip git:git; do
    command -v "${tool_and_package%%:*}" > /dev/null || release_packages+=("${tool_and_package#*:}")
done
dpkg-query -W -f='${Status}' python3-venv 2> /dev/null | grep -q "install ok installed" || release_packages+=(python3-venv)
if [ ${#release_packages[@]} -gt 0 ]; then
    echo "release.sh: installing ${release_packages[*]}"
    if [ "$(id -u)" = 0 ]; then as_root=(); else as_root=(sudo); fi
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${release_packages[@]}"
fi
source packaging/tools.sh
ensure_packaging_tools

python3 plugins/sync-version.py > /dev/null

configure_and_build() {  # configure_and_build <dir> [cmake options...]
    local dir="$1"
    shift
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=Release -DIPYBOX_BUILD_TESTS=OFF -DIPYBOX_BUILD_BENCH=OFF \
        -DCMAKE_CXX_FLAGS="-ffile-prefix-map=$ROOT=." "$@" > /dev/null
    cmake --build "$dir" -j "$JOBS"
}

echo "release.sh: ipybox $version: the Debian package"
configure_and_build "$DEB_BUILD_DIR"
rm -f "$out/ipybox_${version}_${deb_arch}.deb"
(cd "$DEB_BUILD_DIR" && cpack -G DEB -B "$out/.cpack" > /dev/null)
mv "$out/.cpack/ipybox_${version}_${deb_arch}.deb" "$out/"
rm -rf "$out/.cpack"

echo "release.sh: ipybox $version: the portable tarball"
configure_and_build "$PORTABLE_BUILD_DIR" -DIPYBOX_PORTABLE=ON
packaging/make-tarball.sh "$PORTABLE_BUILD_DIR" "$out" > /dev/null

echo "release.sh: ipybox $version: the sdist and the wheel (ipybox-native)"
rm -f "$out"/ipybox_native-"$version"*
sdist="$(packaging/make-sdist.sh "$out")"
wheel="$(WHEEL_BUILD_DIR="${WHEEL_BUILD_DIR:-build-wheel}" JOBS="$JOBS" packaging/make-wheel.sh "$sdist" "$out")"

(cd "$out" && sha256sum "ipybox_${version}_${deb_arch}.deb" "ipybox-$version-linux-$arch.tar.gz" \
    "$(basename "$sdist")" "$(basename "$wheel")" > SHA256SUMS)
python3 plugins/sync-version.py --release-sums "$out/SHA256SUMS" ${release_url:+--release-url "$release_url"} > /dev/null
echo "release.sh: wrote, in $out:"
(cd "$out" && ls -l "ipybox_${version}_${deb_arch}.deb" "ipybox-$version-linux-$arch.tar.gz" \
    "$(basename "$sdist")" "$(basename "$wheel")" SHA256SUMS)
echo "release.sh: plugins/*/release.txt now list the tarball's SHA-256; commit them with the release."
