#!/usr/bin/env bash
# The wheel's inputs, checked in seconds instead of at the next (long) wheel build: the sdist is
# exactly the files git tracks (packaging/make-sdist.sh; the wheel is built from it, so the same
# holds for the wheel), its metadata prepares (licence files, readme, dependencies) and CMake
# configures from it as the wheel build configures it; and each check can fail (an untracked
# file stays out; without a file they read, metadata and configuration stop).
set -uo pipefail
source "$(dirname "$0")/checks.sh"
source "$ROOT/packaging/tools.sh"
ensure_packaging_tools > "$SCRATCH/last" 2>&1 || { cat "$SCRATCH/last"; exit 1; }

sdist="$("$ROOT/packaging/make-sdist.sh" "$SCRATCH/dist" 2> "$SCRATCH/last")"
check "make-sdist.sh writes ipybox_native-<version>.tar.gz" test "$(basename "$sdist")" = "ipybox_native-$VERSION.tar.gz"
tar -tzf "$sdist" | grep -v '/$' | sed 's|^[^/]*/||' | grep -vx PKG-INFO | sort > "$SCRATCH/in-sdist"
(cd "$ROOT" && git ls-files --cached | while IFS= read -r file; do [ -e "$file" ] && echo "$file"; done) | sort > "$SCRATCH/tracked"
diff "$SCRATCH/tracked" "$SCRATCH/in-sdist" > "$SCRATCH/last"
check "the sdist holds exactly the tracked files (and PKG-INFO)" test ! -s "$SCRATCH/last"

mkdir "$SCRATCH/src"
tar -xzf "$sdist" -C "$SCRATCH/src" --strip-components=1
metadata() {  # metadata <source dir> <out dir>: the wheel's METADATA as the backend prepares it
    (cd "$1" && "$PACKAGING_PYTHON" -c 'import sys, pyproject_hooks
hooks = pyproject_hooks.BuildBackendHookCaller(".", "scikit_build_core.build")
print(hooks.prepare_metadata_for_build_wheel(sys.argv[1]))' "$2") > "$SCRATCH/last" 2>&1
}
metadata "$SCRATCH/src" "$SCRATCH/meta" && cat "$SCRATCH/meta"/*.dist-info/METADATA > "$SCRATCH/METADATA"
check "the wheel's metadata prepares from the sdist: Apache-2.0, its licence files, ipykernel and Pydantic 1.10-2.x" \
    eval 'grep -qx "License-Expression: Apache-2.0" "$SCRATCH/METADATA" && grep -qx "License-File: packaging/licenses/Boost-BSL-1.0.txt" "$SCRATCH/METADATA" && grep -qx "License-File: NOTICE" "$SCRATCH/METADATA" && grep -qx "Requires-Dist: ipykernel>=6" "$SCRATCH/METADATA" && grep -qx "Requires-Dist: pydantic<3,>=1.10" "$SCRATCH/METADATA"'

configure() {  # configure <source dir> <build dir>: as scikit-build-core configures the wheel build
    cmake -S "$1" -B "$2" -DSKBUILD=2 -DSKBUILD_SCRIPTS_DIR="$2/wheel/scripts" \
        -DSKBUILD_DATA_DIR="$2/wheel/data" -DCMAKE_BUILD_TYPE=Release -DIPYBOX_BUILD_TESTS=OFF \
        -DIPYBOX_BUILD_BENCH=OFF -DIPYBOX_PORTABLE=ON > "$SCRATCH/last" 2>&1
}
check "the project configures from exactly the sdist, as the wheel build does" configure "$SCRATCH/src" "$SCRATCH/build"
check "the wheel build installs the binary as a script and the runtime as data" \
    eval 'grep -q "wheel/scripts" "$SCRATCH/build/native/cli/cmake_install.cmake" && grep -q "wheel/data/share/ipybox/python" "$SCRATCH/build/native/cmake_install.cmake"'

# Controls, in a git checkout of the tracked files.
mkdir "$SCRATCH/checkout"
(cd "$ROOT" && git ls-files -z --cached | while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null --files-from=- -cf -) | tar -xf - -C "$SCRATCH/checkout"
(cd "$SCRATCH/checkout" && git init -q && git add -A && git -c user.name=t -c user.email=t@ipybox.invalid commit -qm copy)
echo stray > "$SCRATCH/checkout/native/stray-untracked.txt"
control_sdist="$("$SCRATCH/checkout/packaging/make-sdist.sh" "$SCRATCH/control-dist" 2> "$SCRATCH/last")"
check "control: a file git does not track stays out of the sdist" \
    eval 'test -f "$control_sdist" && ! tar -tzf "$control_sdist" | grep -q stray-untracked'
rm "$SCRATCH/src/NOTICE"
check "control: without NOTICE (a licence file) the metadata does not prepare" \
    sh -c "! { $(declare -f metadata); PACKAGING_PYTHON='$PACKAGING_PYTHON' SCRATCH='$SCRATCH' metadata '$SCRATCH/src' '$SCRATCH/meta-missing'; }"
rm "$SCRATCH/src/native/cmake/ipybox_portable.cmake"
check "control: without a file CMake reads the same configuration fails" \
    sh -c "! { $(declare -f configure); SCRATCH='$SCRATCH' configure '$SCRATCH/src' '$SCRATCH/build-missing'; }"
finish
