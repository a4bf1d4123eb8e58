#!/usr/bin/env bash
# Makes the portable tarball ipybox-<version>-linux-<arch>.tar.gz from a configured and built tree:
# `cmake --install` into a staging folder, then every shared library the binary needs that is not
# part of glibc is copied into lib/ and found there through an $ORIGIN-relative RUNPATH (patchelf).
# From an IPYBOX_PORTABLE build (see native/cmake/ipybox_portable.cmake) that is nothing (the
# kernel's ZeroMQ protocol is ipybox's own, so no Kerberos either) and lib/ is left out; from an
# ordinary build it is everything (libstdc++, OpenSSL, ...).
#
#   packaging/make-tarball.sh <build dir> <output dir>     prints the tarball's path
#
# Reproducible: file times are SOURCE_DATE_EPOCH (default: the last commit's time), owners are 0,
# entries are sorted and gzip stores no name or time, so the same inputs give the same bytes.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"
mkdir -p "$2"
out="$(cd "$2" && pwd)"

version="$(sed -n 's/^project(ipybox VERSION \([0-9][0-9.]*\).*/\1/p' "$ROOT/CMakeLists.txt")"
name="ipybox-$version-linux-$(uname -m)"
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || echo 0)}"
for tool in patchelf ldd objdump; do
    command -v "$tool" > /dev/null || { echo "make-tarball: $tool is needed (apt-get install patchelf binutils)" >&2; exit 1; }
done

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
tree="$stage/$name"
cmake --install "$build" --prefix "$tree" --strip > /dev/null
binary="$tree/bin/ipybox"
# The licence, and those of what the binary links statically (NOTICE lists them).
cp "$ROOT/LICENSE" "$ROOT/NOTICE" "$tree/"
mkdir "$tree/licenses"
cp "$ROOT"/packaging/licenses/* "$tree/licenses/"

# glibc's own libraries are the one thing the tarball expects from the system.
is_glibc() {
    case "$1" in
        linux-vdso.so.* | ld-linux*.so.* | libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | \
            librt.so.* | libresolv.so.* | libutil.so.* | libanl.so.* | libnsl.so.*) return 0 ;;
    esac
    return 1
}
mkdir -p "$tree/lib"
# `ldd` lists the whole closure, so one pass copies every library a bundled library needs too.
while read -r soname _ path _; do
    is_glibc "$soname" && continue
    [ -f "$path" ] || { echo "make-tarball: $soname is not found on this machine" >&2; exit 1; }
    cp -L "$path" "$tree/lib/$soname"
    chmod 0644 "$tree/lib/$soname"
    patchelf --set-rpath '$ORIGIN' "$tree/lib/$soname"
done < <(ldd "$binary" | awk '$2 == "=>" { print $1, $2, $3, $4 }')
patchelf --set-rpath '$ORIGIN/../lib' "$binary"
rmdir "$tree/lib" 2> /dev/null || true

# The newest glibc symbol version anything in the tarball needs is the minimum glibc it runs on.
# (lib/ is gone when it held nothing: find must not be given it, or the pipeline fails.)
elf_dirs=("$tree/bin")
[ -d "$tree/lib" ] && elf_dirs+=("$tree/lib")
glibc="$(find "${elf_dirs[@]}" -type f -exec objdump -T {} + 2> /dev/null |
    grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1)"
cat > "$tree/README.txt" <<TEXT
ipybox $version for Linux $(uname -m): the native binary (bin/ipybox), the libraries it needs that
are not part of glibc (lib/, if any) and its Python runtime (share/ipybox/). Licence: Apache-2.0
(LICENSE; NOTICE and licenses/ for the third-party code in the binary).

Needs glibc $glibc or newer, and a Python 3 with ipykernel for the kernel:
run \`bin/ipybox doctor\`, which says what to install.
TEXT

find "$tree" -exec touch -h -d "@$epoch" {} +
tarball="$out/$name.tar.gz"
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$epoch" --format=gnu \
    -C "$stage" -cf - "$name" | gzip -9n > "$tarball"
echo "$tarball"
