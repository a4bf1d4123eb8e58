#!/usr/bin/env bash
# The portable tarball made from the already built tree (packaging/make-tarball.sh): the same tree
# gives the same bytes; unpacked, its binary needs nothing from the system but glibc (every library
# ldd resolves is glibc's or in the tarball), runs code with an empty LD_LIBRARY_PATH and starts
# when the system's libzmq and libstdc++ are hidden. The IPYBOX_PORTABLE build is checked by the opt-in
# release tier.
#
#   tests/integration/packaging/tarball.test.sh <build dir>
set -uo pipefail
source "$(dirname "$0")/checks.sh"
BUILD="$(cd "${1:?pass the build dir}" && pwd)"
export SOURCE_DATE_EPOCH=1700000000

first="$("$ROOT/packaging/make-tarball.sh" "$BUILD" "$SCRATCH/first" 2> "$SCRATCH/last")" || {
    echo "not ok - make-tarball.sh failed:"
    cat "$SCRATCH/last"
    exit 1
}
second="$("$ROOT/packaging/make-tarball.sh" "$BUILD" "$SCRATCH/second")"
check "named ipybox-<version>-linux-<arch>.tar.gz" \
    test "$(basename "$first")" = "ipybox-$VERSION-linux-$ARCH.tar.gz"
check "made twice from the same tree, the bytes are the same" cmp "$first" "$second"

mkdir "$SCRATCH/unpacked"
tar -xzf "$first" -C "$SCRATCH/unpacked"
tree="$SCRATCH/unpacked/ipybox-$VERSION-linux-$ARCH"
check "the Python runtime is next to the binary" test -f "$tree/share/ipybox/python/ipybox_runtime/kernel_main.py"
licences_shipped() {  # every licence file, and NOTICE naming each third-party one
    cmp -s "$ROOT/LICENSE" "$tree/LICENSE" && cmp -s "$ROOT/NOTICE" "$tree/NOTICE" || return 1
    for file in "$ROOT"/packaging/licenses/*; do
        grep -qF "$(basename "$file")" "$tree/NOTICE" && cmp -s "$file" "$tree/licenses/$(basename "$file")" || return 1
    done
}
check "the licence, NOTICE and the third-party licences NOTICE lists are in it" licences_shipped
check "README.txt states the minimum glibc" grep -q "Needs glibc [0-9][0-9.]* or newer" "$tree/README.txt"

# Every library the loader would use comes from glibc or from the tarball's lib/.
libraries_from_elsewhere() {  # libraries_from_elsewhere <binary>: "soname => path" outside glibc and lib/
    env -i LD_LIBRARY_PATH= ldd "$1" | awk '$2 == "=>" { print $1, $3 }' | while read -r soname path; do
        case "$soname" in
            libc.so.* | libm.so.* | libpthread.so.* | libdl.so.* | librt.so.* | libresolv.so.*) ;;
            *) case "$(readlink -f "$path")" in "$tree/lib/"*) ;; *) echo "$soname => $path" ;; esac ;;
        esac
    done
}
libraries_from_elsewhere "$tree/bin/ipybox" > "$SCRATCH/last"
check "every library ldd resolves is glibc's or inside the unpacked tarball" \
    eval '[ ! -s "$SCRATCH/last" ] && ! env -i LD_LIBRARY_PATH= ldd "$tree/bin/ipybox" | grep -q "not found"'
libraries_from_elsewhere "$BUILD/native/cli/ipybox" > "$SCRATCH/last"
check "control: the same check lists the system's libraries for the build tree's binary" \
    eval '[ -s "$SCRATCH/last" ] || ! ldd "$BUILD/native/cli/ipybox" | grep -q libzmq'

run_code() {  # run_code <binary>: prints what `ipybox run -c "print(6*7)"` printed
    mkdir -p "$SCRATCH/workspace"
    env -i LD_LIBRARY_PATH= PATH=/usr/bin:/bin HOME="$SCRATCH" "$1" run --workspace "$SCRATCH/workspace" \
        --timeout 60 -c "print(6*7)" 2>&1
}
run_code "$tree/bin/ipybox" > "$SCRATCH/last"
check "the unpacked binary runs ipybox run -c 'print(6*7)' with an empty LD_LIBRARY_PATH" grep -qx 42 "$SCRATCH/last"

# Hide the system's copies of what the tarball carries, as on a machine without libzmq5 or with an
# older libstdc++: the tarball's binary still starts, the build tree's binary (the control) does
# not. (Only the binary: Debian's kernel side, pyzmq, needs the system's libzmq itself.)
hide_system_libraries() {  # hide_system_libraries <command...>: runs it with libzmq, libstdc++ hidden
    local mounts=""
    for library in libzmq.so.5 libstdc++.so.6; do
        local path
        path="$(ldconfig -p | awk -v name="$library" '$1 == name && /x86-64|aarch64|64bit/ { print $NF; exit }')"
        [ -n "$path" ] && mounts="$mounts mount --bind /dev/null $(readlink -f "$path") &&"
    done
    unshare --mount sh -c "$mounts exec \"\$@\"" sh "$@"
}
if [ "$(id -u)" = 0 ] && command -v unshare > /dev/null; then
    hide_system_libraries "$tree/bin/ipybox" --version > "$SCRATCH/last" 2>&1
    check "with the system's libzmq and libstdc++ hidden, the tarball's binary starts" \
        grep -qx "ipybox $VERSION" "$SCRATCH/last"
    hide_system_libraries "$BUILD/native/cli/ipybox" --version > "$SCRATCH/last" 2>&1
    check "control: with them hidden, the build tree's binary does not start" \
        eval '! grep -q "^ipybox " "$SCRATCH/last"'
else
    echo "not ok - hiding the system's libraries needs root and unshare"
    failed=$((failed + 1))
fi
finish
