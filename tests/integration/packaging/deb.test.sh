#!/usr/bin/env bash
# The Debian package, made by CPack from the already built tree (no second build): its name, its
# files, its dependencies (dpkg-shlibdeps plus the kernel side), lintian, and whether apt would
# install it here. The clean Debian 12 install itself is the opt-in `release` tier's job.
#
#   tests/integration/packaging/deb.test.sh <build dir>
set -uo pipefail
source "$(dirname "$0")/checks.sh"
BUILD="${1:?pass the build dir}"

if ! (cd "$BUILD" && cpack -G DEB -B "$SCRATCH/cpack") > "$SCRATCH/last" 2>&1; then
    echo "not ok - cpack -G DEB failed:"
    cat "$SCRATCH/last"
    exit 1
fi
deb="$SCRATCH/cpack/ipybox_${VERSION}_$(dpkg --print-architecture).deb"
check "CPack writes ipybox_<version>_<arch>.deb" test -f "$deb"

dpkg-deb --contents "$deb" | awk '{ print $6 }' > "$SCRATCH/last"
for path in ./usr/bin/ipybox ./usr/share/ipybox/python/ipybox_runtime/kernel_main.py \
    ./usr/share/ipybox/python/ipybox_runtime/tool_client.py ./usr/share/ipybox/gentools-template/README.md \
    ./usr/share/doc/ipybox/copyright ./usr/share/doc/ipybox/changelog.gz ./usr/share/lintian/overrides/ipybox; do
    check "the package holds $path" grep -qxF -- "$path" "$SCRATCH/last"
done
check "the package holds no compiled Python (__pycache__)" lacks "$SCRATCH/last" "__pycache__"
dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/doc/ipybox/copyright > "$SCRATCH/copyright"
check "its copyright file states Apache-2.0 and the licences of the code compiled in" \
    eval 'grep -qx "License: Apache-2.0" "$SCRATCH/copyright" && grep -qx "License: BSL-1.0" "$SCRATCH/copyright" && grep -qx "License: Expat" "$SCRATCH/copyright" && grep -qx "License: BSD-3-clause" "$SCRATCH/copyright"'
check "everything is under /usr" eval '! grep -v "^\./usr/\|^\./$\|^\./usr$" "$SCRATCH/last"'

dpkg-deb --field "$deb" Depends | tr ',' '\n' | sed 's/^ *//; s/ .*//' > "$SCRATCH/last"
for package in libc6 libssl3 libstdc++6 python3 python3-ipykernel python3-pydantic \
    python3-matplotlib python3-pip; do
    check "Depends names $package" grep -qxF "$package" "$SCRATCH/last"
done
dpkg-deb --field "$deb" Recommends | tr ',' '\n' | sed 's/^ *//; s/ .*//' > "$SCRATCH/last"
for package in bubblewrap socat ripgrep nodejs npm; do
    check "Recommends names $package" grep -qxF "$package" "$SCRATCH/last"
done

lintian --fail-on error,warning "$deb" > "$SCRATCH/last" 2>&1
echo $? > "$SCRATCH/status"
check "lintian reports no error and no warning" eval '[ "$(cat "$SCRATCH/status")" = 0 ] && ! grep -q "^[EW]: " "$SCRATCH/last"'
# (--show-overrides makes lintian's exit status count overridden tags too: a run of its own.)
lintian --show-overrides "$deb" > "$SCRATCH/last" 2>&1
check "lintian applies the package's documented override (no manual page)" \
    contains "$SCRATCH/last" "O: ipybox: no-manual-page"

apt-get install --simulate --no-install-recommends "$deb" > "$SCRATCH/last" 2>&1
echo $? > "$SCRATCH/status"
check "apt-get install --simulate resolves every dependency" \
    eval '[ "$(cat "$SCRATCH/status")" = 0 ] && grep -q "^Inst ipybox " "$SCRATCH/last"'
finish
