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
    libssl-dev libboost-dev
    python3 python3-ipykernel python3-jupyter-client python3-zmq python3-pydantic
    python3-matplotlib python3-numpy python3-pip
    # The kernel sandbox (--sandbox): srt from npm runs the kernel under bubblewrap.
    bubblewrap socat ripgrep
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
    install_sandbox_runtime
}

# srt (Anthropic's sandbox-runtime, from npm) for --sandbox, next to the binary where ipybox looks
# for it when srt is not on PATH. Optional: without npm, --sandbox refuses to start (fails closed).
SRT_VERSION="0.0.83"
install_sandbox_runtime() {
    local target="$PREFIX/share/ipybox/sandbox-runtime"
    if [ -x "$target/node_modules/.bin/srt" ] &&
       grep -q "\"version\": \"$SRT_VERSION\"" "$target/node_modules/@anthropic-ai/sandbox-runtime/package.json" 2>/dev/null; then
        return
    fi
    if ! command -v npm > /dev/null; then
        echo "install.sh: npm not found; --sandbox will need srt (npm install -g @anthropic-ai/sandbox-runtime)"
        return
    fi
    local run=()
    if [ ! -w "$PREFIX" ] && [ "$(id -u)" != 0 ]; then run=(sudo); fi
    "${run[@]}" mkdir -p "$target"
    "${run[@]}" npm install --prefix "$target" --no-audit --no-fund --loglevel=error \
        "@anthropic-ai/sandbox-runtime@$SRT_VERSION" > /dev/null
    echo "install.sh: installed srt $SRT_VERSION for --sandbox in $target"
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
    if "$ipybox" doctor 2>/dev/null | grep -q "^  srt  *\/"; then
        echo "-- the same code under --sandbox: no network, writes only to the workspace, no .env:"
        echo "SECRET=kept-from-the-kernel" > "$workspace/.env"
        "$ipybox" run --workspace "$workspace" --sandbox -c $'import os, socket\nfor what, act in [("write ~/escape.txt", lambda: open(os.path.expanduser("~/ipybox-escape.txt"), "w")), ("read .env", lambda: open(".env").read()), ("connect to 127.0.0.1:22", lambda: socket.create_connection(("127.0.0.1", 22), timeout=3))]:\n    try:\n        act(); print(what, "-> allowed")\n    except OSError as e:\n        print(what, "-> blocked:", type(e).__name__)\nopen("inside.txt", "w").write("ok"); print("write inside the workspace -> allowed")' ||
            echo "(the sandbox did not start here: $?)"
    fi
    echo "Demo workspace (images/ holds the plot): $workspace"
}

install_packages
if [ "${1:-}" = "--deps-only" ]; then exit 0; fi
build_and_install
demo
