#!/usr/bin/env bash
# The .deb on a clean Debian 12: a minimal bookworm made by debootstrap (no Docker needed), then
# `apt-get install ./ipybox_*.deb`, which must pull the Python side from Debian's archive, and the
# README's first commands: ipybox --version, doctor, run. Downloads about 150 MB from the archive:
# opt-in (ctest -L release). Needs root, debootstrap and unshare.
#
#   tests/integration/packaging/clean_debian.test.sh <build dir>
set -uo pipefail
source "$(dirname "$0")/checks.sh"
BUILD="${1:?pass the build dir}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
for tool in debootstrap unshare chroot; do
    command -v "$tool" > /dev/null || { echo "not ok - $tool is needed (apt-get install debootstrap)"; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "not ok - debootstrap and chroot need root"; exit 1; }

(cd "$BUILD" && cpack -G DEB -B "$SCRATCH/cpack") > "$SCRATCH/last" 2>&1 || { cat "$SCRATCH/last"; exit 1; }
deb="ipybox_${VERSION}_$(dpkg --print-architecture).deb"
system="$SCRATCH/bookworm"
if ! debootstrap --variant=minbase bookworm "$system" "$MIRROR" > "$SCRATCH/last" 2>&1; then
    echo "not ok - debootstrap failed:"
    tail -n 20 "$SCRATCH/last"
    exit 1
fi
cp "$SCRATCH/cpack/$deb" "$system/root/"
cp /etc/resolv.conf "$system/etc/resolv.conf"

in_system() {  # in_system <shell command>: runs it in the clean system, /proc and /tmp its own
    unshare --mount --pid --fork sh -c "mount -t proc proc '$system/proc' && mount -t tmpfs tmpfs '$system/tmp' &&
        exec chroot '$system' env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 sh -c \"\$1\"" sh "$1"
}
check "the clean system has no Python and no ipybox before" \
    eval 'in_system "! command -v python3 && ! command -v ipybox" > "$SCRATCH/last" 2>&1'
in_system "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends /root/$deb" \
    > "$SCRATCH/last" 2>&1
echo $? > "$SCRATCH/status"
check "apt-get install ./$deb succeeds on a clean Debian 12" eval '[ "$(cat "$SCRATCH/status")" = 0 ]'
in_system "dpkg-query -W -f='\${Package}\n' python3-ipykernel python3-pydantic python3-matplotlib python3-pip libzmq5" \
    > "$SCRATCH/last" 2>&1
check "it pulled the Python side and the libraries from Debian's archive" \
    eval '[ "$(grep -cE "^(python3-ipykernel|python3-pydantic|python3-matplotlib|python3-pip|libzmq5)$" "$SCRATCH/last")" = 5 ]'
in_system "ipybox --version" > "$SCRATCH/last" 2>&1
check "ipybox --version" grep -qx "ipybox $VERSION" "$SCRATCH/last"
in_system "ipybox doctor" > "$SCRATCH/last" 2>&1
check "ipybox doctor: the kernel side is complete" contains "$SCRATCH/last" "Everything ipybox needs is here."
in_system 'mkdir -p /root/ws && cd /root/ws && ipybox run -c "x = 41" -c "print(x + 1)"' > "$SCRATCH/last" 2>&1
check "the README's first command: ipybox run prints 42" grep -qx 42 "$SCRATCH/last"
in_system 'cd /root/ws && ipybox run --workspace . -c "import matplotlib.pyplot as plt; plt.plot([1, 4, 9]); plt.show()" && ls images' \
    > "$SCRATCH/last" 2>&1
check "a plot is saved under images/" grep -q "\.png$" "$SCRATCH/last"
printf '%s\n' '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}' \
    > "$system/root/initialize.json"
in_system 'cd /root/ws && ipybox mcp --workspace . < /root/initialize.json' > "$SCRATCH/last" 2>&1
check "ipybox mcp answers initialize" contains "$SCRATCH/last" '"serverInfo"'
finish
