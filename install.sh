#!/usr/bin/env bash
# Installs what ipybox needs on Debian 12 / Ubuntu, builds it, installs `ipybox` on PATH, and runs
# a short demo. Idempotent: a second run only rebuilds what changed.
#
#   ./install.sh              dependencies + build + install + demo
#   ./install.sh --deps-only  only the Debian packages (used by run-tests.sh)
#   PREFIX=~/.local ./install.sh   install somewhere else (default /usr/local)
set -euo pipefail
cd "$(dirname "$0")"

PREFIX="${PREFIX:-/usr/local}"
BUILD_DIR="${BUILD_DIR:-build-release}"
JOBS="${JOBS:-$(nproc)}"

# Build tools and C++ libraries, then the kernel side: Debian's Python with ipykernel, Pydantic
# (1.10 on bookworm) and matplotlib. pip is for install_package.
PACKAGES=(
    build-essential cmake pkg-config git
    nlohmann-json3-dev libcli11-dev cppzmq-dev libzmq3-dev libspdlog-dev libfmt-dev doctest-dev
    libssl-dev libboost-dev libboost-filesystem-dev
    python3 python3-ipykernel python3-jupyter-client python3-zmq python3-pydantic
    python3-matplotlib python3-numpy python3-pip
)

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi
}

install_packages() {
    local missing=()
    for package in "${PACKAGES[@]}"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
            missing+=("$package")
    done
    if [ ${#missing[@]} -eq 0 ]; then
        echo "install.sh: all Debian packages present"
        return
    fi
    echo "install.sh: installing ${missing[*]}"
    as_root apt-get update -qq
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

build_and_install() {
    cmake -S . -B "$BUILD_DIR" -DCMAKE_BUILD_TYPE=Release -DIPYBOX_BUILD_TESTS=OFF \
        -DIPYBOX_BUILD_BENCH=OFF -DCMAKE_INSTALL_PREFIX="$PREFIX" > /dev/null
    cmake --build "$BUILD_DIR" -j "$JOBS"
    if [ -w "$PREFIX" ] || [ "$(id -u)" = 0 ]; then
        cmake --install "$BUILD_DIR" > /dev/null
    else
        as_root cmake --install "$BUILD_DIR" > /dev/null
    fi
    echo "install.sh: installed $PREFIX/bin/ipybox"
}

demo() {
    local ipybox="$PREFIX/bin/ipybox"
    local workspace
    workspace="$(mktemp -d /tmp/ipybox-demo-XXXXXX)"
    echo
    "$ipybox" --version
    "$ipybox" doctor
    echo
    echo "== Demo: one stateful kernel across snippets, a plot, an error, a timeout =="
    "$ipybox" run --workspace "$workspace" \
        -c "import math, sys; radius = 2; print(f'Python {sys.version.split()[0]} in', __import__('os').getcwd())" \
        -c "area = math.pi * radius ** 2; print(f'area of a circle of radius {radius}: {area:.3f}')" \
        -c "import matplotlib.pyplot as plt; plt.plot([x * x for x in range(10)]); plt.title('squares'); plt.show()" \
        -c "await __import__('asyncio').sleep(0.1); print('top-level await works; area is still', round(area, 3))"
    echo "-- an exception comes back as a traceback and a non-zero exit code:"
    "$ipybox" run --workspace "$workspace" -c $'def f():\n    return 1 / 0' -c "f()" || echo "(exit code $?)"
    echo "-- a timeout interrupts the code and keeps the kernel's state:"
    "$ipybox" run --workspace "$workspace" --timeout 1 -c "import time; n = 0" \
        -c "while True: n += 1" || echo "(exit code $?)"
    echo "Demo workspace (images/ holds the plot): $workspace"
}

install_packages
if [ "${1:-}" = "--deps-only" ]; then exit 0; fi
build_and_install
demo
