#!/usr/bin/env bash
# Installs what the tests need, builds everything with warnings as errors, and runs every test
# tier (unit, golden, integration) with ctest. This is what CI runs (.ci/run).
#
#   ./run-tests.sh               everything
#   ./run-tests.sh -L unit       only one tier (arguments go to ctest)
#   ./run-tests.sh -L docker     the Docker image tier (slow; not part of the default run)
#   ./run-tests.sh -L release    ./release.sh and the .deb on a clean Debian 12 (slow; not default)
#   ./run-tests.sh -L wheel      the wheel from a local index through uvx and the plugin (slow; not default)
#   ./run-tests.sh -L reference  bench/reference_bench.mjs --quick against ipybox 0.9.2 from PyPI,
#                                checking that both servers answer every step (needs PyPI; not default)
#   ./run-tests.sh -L lint       only clang-tidy over native/ (part of the default run)
#   ./run-tests.sh -L sanitize   unit tests of the byte-level modules under ASan and UBSan (not default)
#   ./run-tests.sh -L portable   the POSIX implementations Darwin builds, built and tested on Linux
#                                (IPYBOX_PLATFORM=portable, issue 39; not default)
#   ./run-tests.sh -L macos-cross  the probe and ipybox cross-linked for aarch64/x86_64 macOS with zig
#                                (packaging/macos-cross/; slow when cold; not default)
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR="${BUILD_DIR:-build}"
# The tests run against the configuration users install: Release, as install.sh, the .deb and the
# tarball build it (no debug information, which also makes the build cheaper: 21-35% less compile
# time on the heaviest files than RelWithDebInfo, measured).
# BUILD_TYPE=RelWithDebInfo gives a developer's build with debug information.
BUILD_TYPE="${BUILD_TYPE:-Release}"
JOBS="${JOBS:-$(nproc)}"

./install.sh --deps-only

# What only the tests need, from Debian: the style tier's formatters and linters, and
# python3-jsonschema, which judges the argument sets the fuzz and real-servers tiers build.
TEST_PACKAGES=(clang-format clang-tidy black flake8 python3-jsonschema)
# The packaging tier: lintian checks the .deb, patchelf points the tarball's binary at its lib/.
TEST_PACKAGES+=(lintian patchelf)
# The packaging tools live in a virtual environment of their own (packaging/tools.sh).
TEST_PACKAGES+=(python3-venv unzip)
missing=()
for package in "${TEST_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
        missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then as_root=(); else as_root=(sudo); fi
    "${as_root[@]}" apt-get update -qq
    "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The packaging tools, pinned (packaging/tools.sh): scikit-build-core, build, auditwheel, twine and
# uv from PyPI into .cache/packaging-tools; actionlint, which checks .github/workflows in the
# packaging tier, built from the Go module proxy into .cache/go-bin.
source packaging/tools.sh
ensure_packaging_tools
ensure_actionlint
# The MCP Registry's published server.json schema, which integration.registry validates against.
ensure_registry_schema

# Real MCP peers and clients from npm (tests/node/package.json), when the suite has them.
if [ -f tests/node/package.json ]; then
    (cd tests/node && npm install --no-audit --no-fund --loglevel=error)
fi

# The real-servers codegen tier (tests/servers-node/): popular MCP servers from npm, pinned.
(cd tests/servers-node && npm install --no-audit --no-fund --loglevel=error)

# The MCP conformance suite needs Node 22, which npm provides as a package; kept apart from the
# machine's own Node. 0.1.16 has the scenarios of MCP 2025-11-25 and older; the 0.2 alpha, under
# the alias conformance-next, those of 2026-07-28.
CONFORMANCE_DIR="$PWD/tests/conformance-node"
if [ ! -f "$CONFORMANCE_DIR/node_modules/@modelcontextprotocol/conformance/package.json" ] ||
   [ ! -f "$CONFORMANCE_DIR/node_modules/conformance-next/package.json" ] ||
   [ ! -x "$CONFORMANCE_DIR/node_modules/.bin/node" ]; then
    mkdir -p "$CONFORMANCE_DIR"
    (cd "$CONFORMANCE_DIR" && { [ -f package.json ] || npm init -y > /dev/null; } &&
        npm install --no-audit --no-fund --loglevel=error node@22 @modelcontextprotocol/conformance@0.1.16 \
            conformance-next@npm:@modelcontextprotocol/conformance@0.2.0-alpha.12)
fi

LAUNCHER=()
if command -v ccache > /dev/null; then LAUNCHER=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
cmake -S . -B "$BUILD_DIR" "${LAUNCHER[@]}" -DCMAKE_BUILD_TYPE="$BUILD_TYPE" -DIPYBOX_BUILD_TESTS=ON \
    -DIPYBOX_BUILD_BENCH=ON -DIPYBOX_WARNINGS_AS_ERRORS=ON \
    -DIPYBOX_MCP_CONFORMANCE_DIR="$CONFORMANCE_DIR" > /dev/null
cmake --build "$BUILD_DIR" -j "$JOBS"
# The docker tier builds a whole image (14-27 minutes) and needs docker.io and debootstrap; it
# runs only when asked for: ./run-tests.sh -L docker. So does the release tier (two more full
# builds, a debootstrap of Debian 12; needs debootstrap): ./run-tests.sh -L release.
# The lint tier (clang-tidy over native/, label lint) is part of the default run; ctest packs its
# shards between the other tests. The sanitizer tier (a second build under ASan and UBSan, label
# sanitize) is opt-in: ./run-tests.sh -L sanitize. Next to the build and the lint tier it would
# take CI to about 38 of its 40 minutes on two cores (measured).
# The wheel tier (a third, portable build, then uvx and Claude Code against a local index) is
# opt-in as well: ./run-tests.sh -L wheel. So is the reference tier (label reference, 1-2 minutes):
# it installs the Python reference, ipybox 0.9.2, from PyPI into .cache/ and runs the benchmark's
# quick mode against it and the build, checking the table's shape, never its timings. The
# portable tier (label portable: another build, with IPYBOX_PLATFORM=portable) is opt-in too.
# The macOS cross tier (label macos-cross) is opt-in too: ./run-tests.sh -L macos-cross links
# a probe and ipybox for aarch64-macos and x86_64-macos with zig (packaging/macos-cross/build.sh),
# building OpenSSL for each target into .cache/macos-cross/ first (cost: tests/macos-cross/).
# The suite runs as users run it: after `./install.sh`. The fresh build is installed into a prefix
# of its own, first on PATH for every test; in CI (CI=true) also into /usr/local when nothing is
# there, so that what a user's machine has (an installed ipybox the plugin's launcher finds) is
# there in CI too. Tests that must not see an installed copy hide it themselves.
INSTALLED="$PWD/$BUILD_DIR/installed"
cmake --install "$BUILD_DIR" --prefix "$INSTALLED" > /dev/null
export PATH="$INSTALLED/bin:$PATH"
if [ "${CI:-}" = true ] && [ ! -e /usr/local/bin/ipybox ] && [ -w /usr/local/bin ]; then
    cmake --install "$BUILD_DIR" --prefix /usr/local > /dev/null
    echo "run-tests.sh: installed this build to /usr/local as ./install.sh would (CI=true)"
fi
if [ $# -eq 0 ]; then set -- -LE 'docker|release|sanitize|wheel|reference|portable|macos-cross'; fi
ctest --test-dir "$BUILD_DIR" -j "$JOBS" --output-on-failure --timeout 600 "$@"
