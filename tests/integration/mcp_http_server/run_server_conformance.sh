#!/bin/sh
# Runs every server scenario of the MCP conformance suite for one protocol revision (--suite all)
# against `ipybox mcp --transport http` on 127.0.0.1, and judges each check: a failing check not
# in conformance-expected-failures.txt fails the test, and so does an entry there whose check
# passes; at least one check must pass.
# Usage: run_server_conformance.sh <spec version> <ipybox> <dir with Node 22> <suite package dir>
set -eu
version=$1
ipybox=$2
dir=$3
suite=$4
here=$(cd "$(dirname "$0")" && pwd)
node="$dir/node_modules/.bin/node"
cli="$suite/dist/index.js"
if [ ! -x "$node" ] || [ ! -f "$cli" ]; then
    echo "FAIL: Node 22 and the conformance suite are not installed ($node, $cli);" \
         "run-tests.sh installs them." >&2
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
# The suite's own verdict is per scenario; ours is per check, below.
PATH="$dir/node_modules/.bin:$PATH" "$node" "$cli" server --url "http://127.0.0.1:$port/mcp" \
    --spec-version "$version" --suite all -o "$work/out" > "$work/suite.log" 2>&1 || true
"$node" "$cli" list --server --spec-version "$version" 2>&1 |
    sed -n 's/^  - \([^ ]*\).*/\1/p' > "$work/scenarios.txt"
"$node" -e '
const fs = require("fs");
const path = require("path");
const [outDir, listFile, scenariosFile] = process.argv.slice(1);
const expected = new Set(fs.readFileSync(listFile, "utf8").split("\n")
    .filter((line) => line.trim() && !line.startsWith("#"))
    .map((line) => line.trim().split(/\s+/).slice(0, 2).join(" ")));
const listed = fs.readFileSync(scenariosFile, "utf8").split("\n").filter((name) => name);
const ran = new Set();
let passed = 0, problems = 0;
for (const run of fs.existsSync(outDir) ? fs.readdirSync(outDir) : []) {
    const file = path.join(outDir, run, "checks.json");
    if (!fs.existsSync(file)) continue;
    const scenario = run.replace(/^server-/, "").replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, "");
    ran.add(scenario);
    for (const check of JSON.parse(fs.readFileSync(file, "utf8"))) {
        const key = `${scenario} ${check.id}`;
        if (check.status === "SUCCESS") {
            passed++;
            if (expected.has(key)) { console.log(`STALE    ${key}: passes, remove it from the list`); problems++; }
        } else if (check.status === "FAILURE") {
            if (expected.has(key)) continue;
            console.log(`FAILURE  ${key}: ${check.errorMessage ?? ""}`);
            problems++;
        } else if (check.status === "WARNING") {
            console.log(`WARNING  ${key}: ${check.errorMessage ?? ""}`);
        }
    }
}
if (listed.length === 0) { console.log("the suite listed no server scenario"); problems++; }
for (const name of listed.filter((name) => !ran.has(name))) {
    console.log(`MISSING  ${name}: the suite left no checks for it`);
    problems++;
}
console.log(`${ran.size} of ${listed.length} scenarios ran, ${passed} checks passed, ${problems} problem(s)`);
if (passed === 0) { console.log("no check passed"); problems++; }
process.exit(problems === 0 ? 0 : 1);
' "$work/out" "$here/conformance-expected-failures.txt" "$work/scenarios.txt"
