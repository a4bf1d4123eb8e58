#!/bin/sh
# Runs the MCP conformance suite's server scenarios of one protocol revision against
# `ipybox mcp --transport http` on 127.0.0.1, with conformance-baseline.yml (scenarios that need
# the suite's own test tools). The suite fails the run on an unexpected failure and on a baseline
# entry that passes; this script also fails when no scenario passed at all.
# Usage: run_server_conformance.sh <spec version> <ipybox> <dir with Node 22 + the suite>
set -eu
version=$1
ipybox=$2
dir=$3
here=$(cd "$(dirname "$0")" && pwd)
node="$dir/node_modules/.bin/node"
cli="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -x "$node" ] || [ ! -f "$cli" ]; then
    echo "FAIL: Node 22 and @modelcontextprotocol/conformance are not installed in $dir" \
         "(run-tests.sh installs them)." >&2
    exit 1
fi
work=$(mktemp -d)
server_pid=
cleanup() {
    if [ -n "$server_pid" ]; then
        kill -TERM "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT
XDG_STATE_HOME="$work/state" "$ipybox" mcp --transport http --listen 127.0.0.1:0 \
    --workspace "$work/ws" 2>"$work/server.log" &
server_pid=$!
port=
for _ in $(seq 1 200); do
    port=$(sed -n 's|.*serving MCP over HTTP on http://127\.0\.0\.1:\([0-9]*\)/mcp.*|\1|p' \
        "$work/server.log" | head -n 1)
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    echo "FAIL: the server did not listen" >&2
    cat "$work/server.log" >&2
    exit 1
fi
status=0
PATH="$dir/node_modules/.bin:$PATH" "$node" "$cli" server --url "http://127.0.0.1:$port/mcp" \
    --spec-version "$version" --expected-failures "$here/conformance-baseline.yml" \
    -o "$work/out" || status=$?
passed=$(find "$work/out" -name checks.json -exec grep -l '"status": *"SUCCESS"' {} + 2>/dev/null |
    wc -l)
echo "scenarios with a passing check: $passed"
if [ "$passed" -eq 0 ]; then
    echo "FAIL: no scenario passed" >&2
    exit 1
fi
exit "$status"
