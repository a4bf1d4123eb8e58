#!/usr/bin/env bash
# The wheel as users get it (opt-in tier `wheel`: ctest -L wheel, ./run-tests.sh -L wheel). Builds
# the sdist and the wheel from it (or takes $WHEEL), checks what the wheel holds, then serves it
# from a package index on 127.0.0.1 (the simple-index layout over HTTP) beside its dependencies,
# downloaded once into .cache/wheel-deps. In a clean environment (no compiler on PATH, HOME and uv
# cache of its own, Debian's python3 only as uv's base interpreter, no system site-packages):
#   - `uvx ipybox-native mcp` answers initialize, runs a cell on the venv's Python, registers
#     server-everything and calls get_sum through the generated API (wheel_session.mjs), cold;
#   - the same warm, with the index stopped: a warm start touches no network;
#   - `claude plugin install codeact-default` from a local marketplace reaches `claude mcp list`
#     Connected through the launcher's uvx route (wheel_plugin.test.mjs).
# Prints the wheel's size and the cold and warm times to initialize, with and without matplotlib.
#
#   tests/integration/packaging/wheel.test.sh          WHEEL=path.whl to test a built wheel
#
# On macOS (the release workflow's macOS jobs) the same, with the macosx wheel checked by delocate
# instead of auditwheel; WHEEL_BASE_PYTHON names uv's base interpreter there (default, and on
# Linux: Debian's /usr/bin/python3), and the clean PATH takes /bin's commands too.
set -uo pipefail
source "$(dirname "$0")/checks.sh"
source "$ROOT/packaging/tools.sh"
ensure_packaging_tools > "$SCRATCH/last" 2>&1 || { cat "$SCRATCH/last"; exit 1; }
BASE_PYTHON="${WHEEL_BASE_PYTHON:-/usr/bin/python3}"
SYSTEM="$(uname -s)"
NODE="$(command -v node)" || { echo "not ok - node is needed (apt-get install nodejs)"; exit 1; }
EVERYTHING="$ROOT/tests/servers-node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
[ -f "$EVERYTHING" ] || { echo "not ok - $EVERYTHING is missing: (cd tests/servers-node && npm install)"; exit 1; }
say() { echo "# $*"; }

if [ -z "${WHEEL:-}" ]; then
    sdist="$("$ROOT/packaging/make-sdist.sh" "$SCRATCH/dist")" &&
        WHEEL="$("$ROOT/packaging/make-wheel.sh" "$sdist" "$SCRATCH/dist")" || { echo "not ok - the wheel did not build"; exit 1; }
fi
WHEEL="$(cd "$(dirname "$WHEEL")" && pwd)/$(basename "$WHEEL")"
name="$(basename "$WHEEL")"
if [ "$SYSTEM" = Darwin ]; then
    check "one py3-none-macosx wheel for this architecture" \
        eval '[[ "$name" =~ ^ipybox_native-$VERSION-py3-none-macosx_[0-9]+_[0-9]+_$ARCH\.whl$ ]]'
else
    check "one py3-none-manylinux wheel for this architecture" \
        eval '[[ "$name" =~ ^ipybox_native-$VERSION-py3-none-manylinux_[0-9]+_[0-9]+_$ARCH\.whl$ ]]'
fi
say "wheel: $name, $(($(wc -c < "$WHEEL") / 1024)) KiB"
unzip -Z1 "$WHEEL" > "$SCRATCH/contents"
for entry in "ipybox_native-$VERSION.data/scripts/ipybox" \
    "ipybox_native-$VERSION.data/data/share/ipybox/python/ipybox_runtime/kernel_main.py" \
    "ipybox_native-$VERSION.data/data/share/ipybox/gentools-template/README.md" \
    "ipybox_native/__init__.py" "ipybox_native-$VERSION.dist-info/licenses/LICENSE" \
    "ipybox_native-$VERSION.dist-info/licenses/NOTICE" \
    "ipybox_native-$VERSION.dist-info/licenses/packaging/licenses/OpenSSL-Apache-2.0.txt"; do
    check "the wheel holds $entry" grep -qxF "$entry" "$SCRATCH/contents"
done
if [ "$SYSTEM" = Darwin ]; then
    "$PACKAGING_BIN/delocate-listdeps" "$WHEEL" > "$SCRATCH/last" 2>&1
    check "delocate: the binary needs no library outside macOS itself (nothing bundled)" \
        eval '[ ! -s "$SCRATCH/last" ] && ! grep -q "ipybox_native/.dylibs" "$SCRATCH/contents"'
else
    "$PACKAGING_BIN/auditwheel" show "$WHEEL" > "$SCRATCH/last" 2>&1
    check "auditwheel: the binary needs no library outside the manylinux policy (nothing bundled)" \
        eval 'tr -s "\n " "  " < "$SCRATCH/last" | grep -q "is consistent with the following platform tag: \"manylinux_" && ! grep -q "ipybox_native.libs" "$SCRATCH/contents"'
fi
"$PACKAGING_BIN/twine" check --strict "$WHEEL" > "$SCRATCH/last" 2>&1
check "twine check --strict passes" grep -q PASSED "$SCRATCH/last"

# The dependencies, once: everything ipykernel, Pydantic and matplotlib need, as wheels.
DEPS="${IPYBOX_WHEEL_DEPS:-$ROOT/.cache/wheel-deps}"
if [ ! -f "$DEPS/.complete" ]; then
    mkdir -p "$DEPS"
    "$PACKAGING_PYTHON" -m pip download --quiet --disable-pip-version-check --only-binary=:all: \
        --python-version "$("$BASE_PYTHON" -c 'import sys; print("%d.%d" % sys.version_info[:2])')" \
        -d "$DEPS" ipykernel 'pydantic>=1.10,<3' pip 'matplotlib>=3.5' > "$SCRATCH/last" 2>&1 &&
        touch "$DEPS/.complete" || { echo "not ok - could not download the dependencies"; cat "$SCRATCH/last"; exit 1; }
fi
# The index: <index>/simple/<project>/ links each file with its SHA-256 (PEP 503).
mkdir -p "$SCRATCH/index/files"
cp "$DEPS"/*.whl "$WHEEL" "$SCRATCH/index/files/"
"$BASE_PYTHON" - "$SCRATCH/index" <<'PY'
import hashlib, re, sys
from pathlib import Path
root = Path(sys.argv[1])
projects = {}
for file in sorted((root / "files").iterdir()):
    project = re.sub(r"[-_.]+", "-", file.name.split("-")[0]).lower()
    digest = hashlib.sha256(file.read_bytes()).hexdigest()
    projects.setdefault(project, []).append(f'<a href="../../files/{file.name}#sha256={digest}">{file.name}</a><br>')
for project, links in projects.items():
    (root / "simple" / project).mkdir(parents=True)
    (root / "simple" / project / "index.html").write_text("<!DOCTYPE html><html><body>\n" + "\n".join(links) + "\n</body></html>\n")
(root / "simple" / "index.html").write_text("".join(f'<a href="{p}/">{p}</a><br>\n' for p in sorted(projects)))
PY
"$BASE_PYTHON" -u -m http.server --bind 127.0.0.1 --directory "$SCRATCH/index" 0 > "$SCRATCH/http.out" 2> "$SCRATCH/http.log" &
http_pid=$!
trap 'kill "$http_pid" 2> /dev/null; rm -rf "$SCRATCH"' EXIT
for _ in $(seq 100); do grep -q "port [0-9]" "$SCRATCH/http.out" && break; sleep 0.1; done
INDEX="http://127.0.0.1:$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$SCRATCH/http.out")/simple"

# The clean environment: the system's commands without compilers, Python or ipybox, plus uv.
mkdir -p "$SCRATCH/bin" "$SCRATCH/home" "$SCRATCH/workspace"
system_dirs=(/usr/bin)
[ "$SYSTEM" = Darwin ] && system_dirs+=(/bin)  # Debian's /bin is /usr/bin; macOS's holds sh, ls, realpath
for system_dir in "${system_dirs[@]}"; do
    for tool in "$system_dir"/*; do
        case "$(basename "$tool")" in
            *gcc* | *g++* | *c++* | cc | cpp* | clang* | *-ld | ld | ld.* | as | *-as | python* | pip* | ipybox*) ;;
            *) [ -e "$SCRATCH/bin/$(basename "$tool")" ] || ln -s "$tool" "$SCRATCH/bin/$(basename "$tool")" ;;
        esac
    done
done
ln -s "$PACKAGING_BIN/uv" "$SCRATCH/bin/uv"
ln -s "$PACKAGING_BIN/uvx" "$SCRATCH/bin/uvx"
check "the clean PATH has no compiler" \
    env -i PATH="$SCRATCH/bin" /bin/sh -c '! command -v cc && ! command -v gcc && ! command -v g++ && ! command -v c++ && ! command -v python3 && ! command -v ipybox'
clean() {  # clean <uv cache> <command...>: runs in the clean environment
    local cache="$1"
    shift
    env -i HOME="$SCRATCH/home" PATH="$SCRATCH/bin" LANG=C.UTF-8 UV_CACHE_DIR="$cache" \
        UV_INDEX_URL="$INDEX" UV_PYTHON="$BASE_PYTHON" UV_PYTHON_DOWNLOADS=never UV_NO_CONFIG=1 \
        UV_TOOL_DIR="$SCRATCH/home/uv-tools" "$@"
}
session() {  # session <uv cache> <uvx args...>: one MCP session, its report in $SCRATCH/report
    local cache="$1"
    shift
    clean "$cache" "$NODE" "$ROOT/tests/integration/packaging/wheel_session.mjs" "$SCRATCH/workspace" \
        "$EVERYTHING" "$SCRATCH/bin/uvx" "$@" > "$SCRATCH/report" 2> "$SCRATCH/last"
}
field() { "$BASE_PYTHON" -c 'import json, sys; print(eval("r" + sys.argv[2], {}, {"r": json.loads(open(sys.argv[1]).read().splitlines()[-1])}))' "$SCRATCH/report" "$1"; }

session "$SCRATCH/cache" ipybox-native mcp --workspace "$SCRATCH/workspace"
check "cold: uvx ipybox-native mcp from the local index answers initialize, runs a cell, calls a registered server's tool" \
    eval 'grep -q "The sum of 2 and 3 is 5" "$SCRATCH/report" && [ "$(field "[\"kernel\"][\"answer\"]")" = 42 ]'
cp "$SCRATCH/report" "$SCRATCH/cold-report"
check "the kernel runs on the interpreter of uv's environment, not Debian's, with no dist-packages on sys.path, and has pip" \
    eval '[ "$(field "[\"kernel\"][\"pip\"]")" = True ] && case "$(field "[\"kernel\"][\"executable\"]")" in "$SCRATCH/cache/"*) ;; *) false ;; esac && [ "$(field "[\"kernel\"][\"dist_packages\"]")" = "[]" ] && case "$(field "[\"kernel\"][\"ipykernel\"]")" in "$SCRATCH/cache/"*) ;; *) false ;; esac'
cold_ms="$(field '["initialize_ms"]' 2> /dev/null)"
say "cold uvx start to initialize: ${cold_ms} ms (first cell $(field '["first_cell_ms"]' 2> /dev/null) ms)"

# The Python SDK from the installed wheel: ipybox_native drives the wheel's binary (ipybox sdk).
(cd "$SCRATCH/workspace" && clean "$SCRATCH/cache" "$SCRATCH/bin/uv" run --no-project --with ipybox-native \
    python -c 'import asyncio
from ipybox_native import CodeExecutor
async def main():
    async with CodeExecutor() as executor:
        print((await executor.execute("print(6 * 7)")).text)
asyncio.run(main())') > "$SCRATCH/last" 2>&1
check "the wheel's Python SDK: from ipybox_native import CodeExecutor runs a cell" grep -qx 42 "$SCRATCH/last"
# Our SDK suite (tests/python/sdk) against the wheel installed in a virtual environment, as
# `pip install ipybox-native` in a venv has it: its package and its binary, the kernel on the venv's
# Python (IPYBOX_SDK_FROM_SOURCE=0: not the sources). Not `uv run --with`, whose environment lies
# over Debian's interpreter with its dist-packages, where Debian's matplotlib meets PyPI's numpy.
# Installed without a compiler on PATH; the suite runs with the system's PATH, since srt runs the
# first bash on PATH inside the sandbox, which hides /tmp and so the clean PATH's links.
sdk_venv="$SCRATCH/sdk-venv"
clean "$SCRATCH/cache" "$SCRATCH/bin/uv" venv --quiet --python "$BASE_PYTHON" "$sdk_venv" > "$SCRATCH/sdk.out" 2>&1 &&
    clean "$SCRATCH/cache" "$SCRATCH/bin/uv" pip install --quiet --python "$sdk_venv/bin/python" ipybox-native \
        >> "$SCRATCH/sdk.out" 2>&1 &&
    (cd "$SCRATCH/workspace" && clean "$SCRATCH/cache" env PATH=/usr/bin:/bin \
        IPYBOX_BIN="$sdk_venv/bin/ipybox" IPYBOX_SDK_FROM_SOURCE=0 \
        sh -c '"$0" -c "import ipybox_native; print(ipybox_native.__file__)" && "$0" "$1"' \
        "$sdk_venv/bin/python" "$ROOT/tests/python/sdk/run_sdk.py") > "$SCRATCH/sdk.out" 2>&1
# On failure: where the package came from, then each failure's traceback.
{ head -1 "$SCRATCH/sdk.out"; grep -E -A45 "^(ERROR|FAIL):" "$SCRATCH/sdk.out"; tail -3 "$SCRATCH/sdk.out"; } > "$SCRATCH/last"
check "our SDK suite passes against the wheel installed in a venv (its package and binary)" \
    eval 'head -1 "$SCRATCH/sdk.out" | grep -q "^$sdk_venv/" && grep -qE "^OK( \(skipped=[0-9]+\))?$" "$SCRATCH/sdk.out"'

kill "$http_pid"
wait "$http_pid" 2> /dev/null
session "$SCRATCH/cache" ipybox-native mcp --workspace "$SCRATCH/workspace"
check "warm, with the index stopped: the same session, no network needed" grep -q "The sum of 2 and 3 is 5" "$SCRATCH/report"
say "warm uvx start to initialize: $(field '["initialize_ms"]' 2> /dev/null) ms"
clean "$SCRATCH/cache" "$SCRATCH/bin/uvx" --from "ipybox-native==$VERSION" ipybox --version > "$SCRATCH/last" 2>&1
check "the plugin's pinned form (uvx --from ipybox-native==<version> ipybox) runs the cached wheel" grep -qx "ipybox $VERSION" "$SCRATCH/last"

# Plots as an extra: what matplotlib adds to a cold start (the decision in pyproject.toml).
"$BASE_PYTHON" -u -m http.server --bind 127.0.0.1 --directory "$SCRATCH/index" 0 > "$SCRATCH/http.out" 2> "$SCRATCH/http.log" &
http_pid=$!
for _ in $(seq 100); do grep -q "port [0-9]" "$SCRATCH/http.out" && break; sleep 0.1; done
INDEX="http://127.0.0.1:$(sed -n 's/.* port \([0-9]*\) .*/\1/p' "$SCRATCH/http.out")/simple"
session "$SCRATCH/cache-plots" --from "ipybox-native[plots]" ipybox mcp --workspace "$SCRATCH/workspace"
check "cold with the plots extra works too" grep -q "The sum of 2 and 3 is 5" "$SCRATCH/report"
say "cold uvx start to initialize with matplotlib (the plots extra): $(field '["initialize_ms"]' 2> /dev/null) ms, without: ${cold_ms} ms"
say "uv cache: $(du -sm "$SCRATCH/cache" | cut -f 1) MiB without matplotlib, $(du -sm "$SCRATCH/cache-plots" | cut -f 1) MiB with"

# The plugin, installed from the local marketplace, starting the wheel through uvx. The launcher
# rightly prefers an ipybox of its version installed on the machine (/usr/local/bin/ipybox, which
# the README's first command puts there): it runs in a private mount namespace with that folder
# emptied, as on a machine with only uv (needs root and unshare, as in CI; else it says so).
hidden_local=(sh -c 'mount -t tmpfs ipybox-wheel-hidden /usr/local/bin && exec "$@"' sh)
if [ ! -e /usr/local/bin/ipybox ]; then
    hidden_local=()
elif [ "$(id -u)" != 0 ] || ! unshare --mount true 2> /dev/null; then
    hidden_local=(sh -c 'echo "cannot hide /usr/local/bin/ipybox for this check: needs root and unshare --mount" >&2; exit 1' sh)
else
    hidden_local=(unshare --mount "${hidden_local[@]}")
fi
clean "$SCRATCH/plugin-cache" "${hidden_local[@]}" "$NODE" "$ROOT/tests/integration/packaging/wheel_plugin.test.mjs" \
    > "$SCRATCH/plugin.out" 2>&1
plugin_status=$?
cp "$SCRATCH/plugin.out" "$SCRATCH/last"
check "claude plugin install codeact-default: claude mcp list shows it Connected through uvx" test "$plugin_status" = 0
grep '^# claude' "$SCRATCH/plugin.out" || true
finish
