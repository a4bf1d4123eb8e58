#!/usr/bin/env bash
# The Docker image's inputs, checked in seconds instead of at the next (25-minute) image build:
# the build context docker-build.sh packs configures as the image's build stage configures it,
# and the check can fail (without a file CMake reads, configuration stops).
set -uo pipefail
source "$(dirname "$0")/checks.sh"

configure() {  # configure <source dir> <build dir>: as the Dockerfile's build stage does
    cmake -S "$1" -B "$2" -DCMAKE_BUILD_TYPE=Release -DIPYBOX_BUILD_TESTS=OFF \
        -DIPYBOX_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX=/usr/local > "$SCRATCH/last" 2>&1
}

"$ROOT/docker-build.sh" --context > "$SCRATCH/context.tar" 2> "$SCRATCH/last"
check "docker-build.sh --context packs the build context without Docker" test -s "$SCRATCH/context.tar"
mkdir -p "$SCRATCH/src"
tar -xf "$SCRATCH/context.tar" -C "$SCRATCH/src"
check "the context is the tracked source set (packaging/ and native/ in, no build tree)" \
    test -f "$SCRATCH/src/packaging/changelog.in" -a -d "$SCRATCH/src/native" \
    -a ! -e "$SCRATCH/src/build" -a ! -e "$SCRATCH/src/tests/node/node_modules"
# The build stage takes the whole context: a COPY of a subset would bring the problem back.
grep -E '^COPY ' "$ROOT/Dockerfile" > "$SCRATCH/copies"
check "the Dockerfile's build stage copies the whole context" contains "$SCRATCH/copies" "COPY . ."
check "the project configures from exactly the image's context" configure "$SCRATCH/src" "$SCRATCH/build"
rm "$SCRATCH/src/packaging/changelog.in"
check "control: without packaging/changelog.in the same configuration fails" \
    sh -c "! { $(declare -f configure); configure '$SCRATCH/src' '$SCRATCH/build-missing'; }"
finish
