#!/usr/bin/env bash
# Makes the macOS tarball ipybox-<version>-macos-<arch>.tar.gz, which the plugins' launchers fetch
# on a Mac with neither ipybox nor uv, from the macOS wheel (packaging/make-wheel.sh on macOS): the
# very binary the release workflow tested, laid out as the Linux tarball is (packaging/
# make-tarball.sh): bin/ipybox, its Python runtime in share/ipybox/, LICENSE, NOTICE, licenses/ and
# a README.txt. A wheel into which delocate bundled libraries (ipybox_native/.dylibs) is refused:
# the tarball's binary must need nothing but macOS itself.
#
#   packaging/make-macos-tarball.sh <macOS wheel> <output dir>     prints the tarball's path
#
# Written in Python (the packaging tools' interpreter, or python3), not with tar: the same bytes
# from GNU tar on Linux and bsdtar on macOS. Reproducible: every entry has the time
# SOURCE_DATE_EPOCH (default: the last commit's time), owner 0, a fixed mode, sorted order, and
# gzip stores no name or time. Runs anywhere (tests/integration/packaging/macos_tarball.test.sh
# runs it on Linux with a stand-in wheel).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
[ $# = 2 ] || { echo "usage: packaging/make-macos-tarball.sh <macOS wheel> <output dir>" >&2; exit 2; }
mkdir -p "$2"
out="$(cd "$2" && pwd)"
epoch="${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2> /dev/null || echo 0)}"
python="$(command -v python3)"
[ -x "$ROOT/.cache/packaging-tools/bin/python" ] && python="$ROOT/.cache/packaging-tools/bin/python"

"$python" - "$1" "$out" "$epoch" <<'PYTHON'
import gzip, io, re, sys, tarfile, zipfile
from pathlib import Path

wheel, out, epoch = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
match = re.fullmatch(r"ipybox_native-([0-9][0-9.]*)-py3-none-macosx_(\d+)_(\d+)_(arm64|x86_64)\.whl", wheel.name)
if not match:
    sys.exit(f"make-macos-tarball: {wheel.name} is not a py3-none-macosx_<version>_<arch> wheel of ipybox-native")
version, major, minor, arch = match.groups()
name = f"ipybox-{version}-macos-{arch}"
data = f"ipybox_native-{version}.data/"
licenses = f"ipybox_native-{version}.dist-info/licenses/"

entries = {}  # path in the tarball -> (bytes, mode)
with zipfile.ZipFile(wheel) as archive:
    for info in archive.infolist():
        if info.is_dir():
            continue
        path = info.filename
        if "/.dylibs/" in path or path.startswith(".dylibs/"):
            sys.exit(f"make-macos-tarball: {wheel.name} bundles {path}: the binary must need only macOS")
        if path == data + "scripts/ipybox":
            entries["bin/ipybox"] = (archive.read(info), 0o755)
        elif path.startswith(data + "data/share/"):
            entries[path[len(data + "data/"):]] = (archive.read(info), 0o644)
        elif path in (licenses + "LICENSE", licenses + "NOTICE"):
            entries[path[len(licenses):]] = (archive.read(info), 0o644)
        elif path.startswith(licenses + "packaging/licenses/"):
            entries["licenses/" + path[len(licenses + "packaging/licenses/"):]] = (archive.read(info), 0o644)
for needed in ("bin/ipybox", "LICENSE", "NOTICE", "share/ipybox/python/ipybox_runtime/kernel_main.py"):
    if needed not in entries:
        sys.exit(f"make-macos-tarball: {wheel.name} has no {needed}")
system = "Apple silicon" if arch == "arm64" else "Intel"
entries["README.txt"] = (
    f"""ipybox {version} for macOS on {system} ({arch}): the native binary (bin/ipybox) and its Python
runtime (share/ipybox/), from the wheel ipybox-native {version}. Licence: Apache-2.0 (LICENSE; NOTICE
and licenses/ for the third-party code in the binary).

Needs macOS {major}.{minor} or newer and a Python 3 with ipykernel for the kernel:
run `bin/ipybox doctor`, which says what to install.
""".encode(), 0o644)

def directories(path):
    parts = path.split("/")[:-1]
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]

every_dir = sorted({d for path in entries for d in directories(path)})
raw = io.BytesIO()
with tarfile.open(fileobj=raw, mode="w", format=tarfile.GNU_FORMAT) as tar:
    for path in sorted([""] + every_dir + list(entries)):
        info = tarfile.TarInfo(f"{name}/{path}".rstrip("/"))
        info.mtime, info.uid, info.gid, info.uname, info.gname = epoch, 0, 0, "", ""
        if path in entries:
            content, info.mode = entries[path]
            info.size = len(content)
            tar.addfile(info, io.BytesIO(content))
        else:
            info.type, info.mode = tarfile.DIRTYPE, 0o755
            tar.addfile(info)
tarball = out / f"{name}.tar.gz"
with open(tarball, "wb") as file, gzip.GzipFile(filename="", mode="wb", fileobj=file, compresslevel=9, mtime=0) as gz:
    gz.write(raw.getvalue())
print(tarball)
PYTHON
