#!/usr/bin/env bash
# Makes a release: the Debian package, the portable tarball and their checksums, and writes the
# tarballs' checksums into the plugins that fetch them (plugins/*/release.txt), versions in sync.
#
#   ./release.sh [--out DIR] [--release-url URL]
#
#   DIR  (default dist/) receives ipybox_<version>_<arch>.deb, ipybox-<version>-linux-<arch>.tar.gz
#        and SHA256SUMS. Upload the three to <URL>/v<version>/ (on GitHub: a release tagged
#        v<version>), then commit the changed plugins/*/release.txt with the version.
#   URL  the base the plugins download from (GitHub: https://github.com/<owner>/<repo>/releases/download);
#        kept from the previous release when not given.
#
# Two builds, each in its own folder: build-deb links Debian's shared libraries (the package
# depends on them); build-portable is an IPYBOX_PORTABLE build for the tarball (static libstdc++,
# Boost, OpenSSL, ZeroMQ). Reproducible where the tools allow: times come from SOURCE_DATE_EPOCH
# (default: the last commit's time) and source paths are mapped to "."; the same commit built in
# the same folder with the same compiler and libraries gives the same bytes (the binary still
# records where its source's Python runtime was, for running from the build tree).
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
        -h | --help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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

(cd "$out" && sha256sum "ipybox_${version}_${deb_arch}.deb" "ipybox-$version-linux-$arch.tar.gz" > SHA256SUMS)
python3 plugins/sync-version.py --release-sums "$out/SHA256SUMS" ${release_url:+--release-url "$release_url"} > /dev/null
echo "release.sh: wrote, in $out:"
(cd "$out" && ls -l "ipybox_${version}_${deb_arch}.deb" "ipybox-$version-linux-$arch.tar.gz" SHA256SUMS)
echo "release.sh: plugins/*/release.txt now list the tarball's SHA-256; commit them with the release."
