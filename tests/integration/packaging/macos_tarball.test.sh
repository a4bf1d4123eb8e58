#!/usr/bin/env bash
# packaging/make-macos-tarball.sh, run here on Linux with stand-in wheels (a shell script for the
# binary; no Mac needed): the layout the plugins' launchers unpack (bin/ipybox, share/ipybox/),
# licences, the same bytes twice, and a wheel with bundled libraries or of another platform refused.
# shellcheck disable=SC2016 # the checks are strings, eval'd when they run
set -uo pipefail
source "$(dirname "$0")/checks.sh"
MAKE="$ROOT/packaging/make-macos-tarball.sh"

stand_in_wheel() {  # stand_in_wheel <file name> [extra entry]: a wheel with the real one's layout
    python3 - "$SCRATCH/$1" "$VERSION" "${2:-}" <<'PY'
import sys, zipfile
path, version, extra = sys.argv[1:4]
data, licenses = f"ipybox_native-{version}.data/", f"ipybox_native-{version}.dist-info/licenses/"
with zipfile.ZipFile(path, "w") as wheel:
    wheel.writestr(data + "scripts/ipybox", f"#!/bin/sh\necho 'ipybox {version}'\n")
    wheel.writestr(data + "data/share/ipybox/python/ipybox_runtime/kernel_main.py", "# runtime\n")
    wheel.writestr(data + "data/share/ipybox/gentools-template/README.md", "template\n")
    wheel.writestr("ipybox_native/__init__.py", "")
    for name in ("LICENSE", "NOTICE", "packaging/licenses/OpenSSL-Apache-2.0.txt"):
        wheel.writestr(licenses + name, name + "\n")
    if extra:
        wheel.writestr(extra, "library")
PY
}
wheel="ipybox_native-$VERSION-py3-none-macosx_11_0_arm64.whl"
stand_in_wheel "$wheel"
made="$(SOURCE_DATE_EPOCH=1700000000 "$MAKE" "$SCRATCH/$wheel" "$SCRATCH/one" 2> "$SCRATCH/last")"
check "the tarball is named ipybox-<version>-macos-arm64.tar.gz" test "$made" = "$SCRATCH/one/ipybox-$VERSION-macos-arm64.tar.gz"
tar -tzvf "$made" > "$SCRATCH/last" 2>&1
top="ipybox-$VERSION-macos-arm64"
for entry in "$top/bin/ipybox" "$top/share/ipybox/python/ipybox_runtime/kernel_main.py" \
    "$top/share/ipybox/gentools-template/README.md" "$top/LICENSE" "$top/NOTICE" \
    "$top/licenses/OpenSSL-Apache-2.0.txt" "$top/README.txt"; do
    check "the tarball holds $entry" grep -q " $entry\$" "$SCRATCH/last"
done
check "bin/ipybox is executable, owned by 0, and the Python package is not in the tarball" \
    eval 'grep " $top/bin/ipybox\$" "$SCRATCH/last" | grep -q "^-rwxr-xr-x 0/0" && ! grep -q ipybox_native/ "$SCRATCH/last"'
mkdir -p "$SCRATCH/unpacked"
tar -xzf "$made" -C "$SCRATCH/unpacked" --strip-components=1
check "unpacked as the launcher does (--strip-components=1), bin/ipybox runs" \
    eval '[ "$("$SCRATCH/unpacked/bin/ipybox")" = "ipybox $VERSION" ]'
check "README.txt names macOS 11.0 and Apple silicon" \
    eval 'grep -q "macOS 11.0 or newer" "$SCRATCH/unpacked/README.txt" && grep -q "Apple silicon" "$SCRATCH/unpacked/README.txt"'
SOURCE_DATE_EPOCH=1700000000 "$MAKE" "$SCRATCH/$wheel" "$SCRATCH/two" > /dev/null 2> "$SCRATCH/last"
check "reproducible: the same wheel gives the same bytes" cmp "$made" "$SCRATCH/two/$(basename "$made")"

intel="ipybox_native-$VERSION-py3-none-macosx_11_0_x86_64.whl"
stand_in_wheel "$intel"
check "an Intel wheel gives ipybox-<version>-macos-x86_64.tar.gz" \
    eval '[ "$("$MAKE" "$SCRATCH/$intel" "$SCRATCH/intel" 2> "$SCRATCH/last")" = "$SCRATCH/intel/ipybox-$VERSION-macos-x86_64.tar.gz" ]'

bundled="ipybox_native-$VERSION-py3-none-macosx_11_0_arm64.whl"
mkdir -p "$SCRATCH/bundled"
(cd "$SCRATCH" && stand_in_wheel "bundled/$bundled" "ipybox_native/.dylibs/libssl.3.dylib")
"$MAKE" "$SCRATCH/bundled/$bundled" "$SCRATCH/refused" > /dev/null 2> "$SCRATCH/last"
check "a wheel with libraries bundled by delocate is refused, nothing written" \
    eval 'grep -q "bundles ipybox_native/.dylibs/libssl.3.dylib" "$SCRATCH/last" && [ -z "$(ls -A "$SCRATCH/refused")" ]'
linux="ipybox_native-$VERSION-py3-none-manylinux_2_36_x86_64.whl"
stand_in_wheel "$linux"
"$MAKE" "$SCRATCH/$linux" "$SCRATCH/refused" > /dev/null 2> "$SCRATCH/last"
check "control: a manylinux wheel is refused" grep -q "is not a py3-none-macosx" "$SCRATCH/last"
finish
