#!/usr/bin/env bash
# ./release.sh end to end, in a copy of the checked-in tree (it rewrites plugins/*/release.txt):
# the five files, checksums that verify and that the plugins now carry, the IPYBOX_PORTABLE
# binary linked statically against everything but glibc and Kerberos, and the same bytes from a
# second run. Two full builds: opt-in (ctest -L release), about 20-30 minutes on two cores.
#
#   tests/integration/packaging/release.test.sh
set -uo pipefail
source "$(dirname "$0")/checks.sh"
copy="$SCRATCH/source"
mkdir "$copy"
git -C "$ROOT" ls-files -z | (cd "$ROOT" && xargs -0 tar -cf - --) | tar -xf - -C "$copy"
# A checkout of its own: the sdist (and the wheel built from it) is the files git tracks.
(cd "$copy" && git init -q && git add -A && git -c user.name=tests -c user.email=tests@ipybox.invalid commit -qm copy)
git -C "$ROOT" log -1 --format=%ct > "$SCRATCH/epoch"
export SOURCE_DATE_EPOCH="$(cat "$SCRATCH/epoch")"

if ! (cd "$copy" && ./release.sh --out "$SCRATCH/dist" --release-url http://127.0.0.1:9/releases) > "$SCRATCH/last" 2>&1; then
    echo "not ok - release.sh failed:"
    tail -n 40 "$SCRATCH/last"
    exit 1
fi
deb="ipybox_${VERSION}_$(dpkg --print-architecture).deb"
tarball="ipybox-$VERSION-linux-$ARCH.tar.gz"
sdist="ipybox_native-$VERSION.tar.gz"
check "release.sh writes the .deb, the tarball, the sdist, a manylinux wheel and SHA256SUMS" \
    eval 'test -f "$SCRATCH/dist/$deb" -a -f "$SCRATCH/dist/$tarball" -a -f "$SCRATCH/dist/$sdist" -a -f "$SCRATCH/dist/SHA256SUMS" && ls "$SCRATCH/dist"/ipybox_native-"$VERSION"-py3-none-manylinux_*_"$ARCH".whl'
(cd "$SCRATCH/dist" && sha256sum --check --strict SHA256SUMS) > "$SCRATCH/last" 2>&1
check "SHA256SUMS verifies the four artifacts" eval '[ "$(grep -c ": OK$" "$SCRATCH/last")" = 4 ]'
digest="$(sha256sum "$SCRATCH/dist/$tarball" | cut -d " " -f 1)"
for plugin in codeact-default codeact-sandbox; do
    cp "$copy/plugins/$plugin/release.txt" "$SCRATCH/last"
    check "$plugin/release.txt carries the tarball's SHA-256 and the release URL" \
        eval 'grep -qx "sha256 $tarball $digest" "$SCRATCH/last" && grep -qx "url http://127.0.0.1:9/releases" "$SCRATCH/last"'
done
check "versions and release files agree (sync-version.py --check)" \
    eval '(cd "$copy" && python3 plugins/sync-version.py --check) > "$SCRATCH/last" 2>&1'

mkdir "$SCRATCH/unpacked"
tar -xzf "$SCRATCH/dist/$tarball" -C "$SCRATCH/unpacked"
tree="$SCRATCH/unpacked/ipybox-$VERSION-linux-$ARCH"
readelf -d "$tree/bin/ipybox" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' > "$SCRATCH/last"
check "the portable binary needs no libstdc++, Boost, ZeroMQ, OpenSSL, fmt or spdlog shared library" \
    eval '! grep -E "libstdc\+\+|libgcc_s|libboost|libzmq|libssl|libcrypto|libfmt|libspdlog" "$SCRATCH/last"'
# Nothing beyond glibc: no lib/ at all (Kerberos, which libzmq's GSSAPI once pulled in, would
# be the only thing allowed there).
{ [ ! -e "$tree/lib" ] || ls "$tree/lib"; } > "$SCRATCH/last" 2>&1
check "it carries no shared library but, at most, Kerberos" \
    eval '! grep -vE "^lib(gssapi_krb5|krb5|k5crypto|com_err|krb5support|keyutils)\.so" "$SCRATCH/last"'
mkdir -p "$SCRATCH/workspace"
env -i LD_LIBRARY_PATH= PATH=/usr/bin:/bin HOME="$SCRATCH" "$tree/bin/ipybox" run --workspace "$SCRATCH/workspace" \
    --timeout 60 -c "print(6*7)" > "$SCRATCH/last" 2>&1
check "the portable binary runs code" grep -qx 42 "$SCRATCH/last"

cp "$SCRATCH/dist/SHA256SUMS" "$SCRATCH/first-sums"
(cd "$copy" && ./release.sh --out "$SCRATCH/dist-again") > "$SCRATCH/last" 2>&1
check "a second release.sh run gives the same bytes" cmp "$SCRATCH/first-sums" "$SCRATCH/dist-again/SHA256SUMS"
finish
