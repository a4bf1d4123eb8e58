#!/bin/sh
# Runs one client scenario of the MCP conformance suite against our conformance_client adapter.
# Usage: run_conformance.sh <scenario> <conformance_client path> <dir with Node 22 + the suite>
# Missing prerequisites fail (exit 1) with the command that installs them; checks with status
# FAILURE fail the test, WARNINGs are printed.
set -eu
scenario=$1
client=$2
dir=$3
node="$dir/node_modules/.bin/node"
cli="$dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
install_hint="mkdir -p '$dir' && cd '$dir' && npm init -y && npm install node@22 @modelcontextprotocol/conformance@0.1.16"
if [ ! -x "$node" ] || [ ! -f "$cli" ]; then
    echo "FAIL: Node 22 and @modelcontextprotocol/conformance are not installed in $dir." >&2
    echo "Install them with: $install_hint" >&2
    exit 1
fi
major=$("$node" -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 22 ]; then
    echo "FAIL: $node is Node $major; the conformance suite needs Node 22. $install_hint" >&2
    exit 1
fi
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
PATH="$dir/node_modules/.bin:$PATH" "$node" "$cli" client --command "$client" \
    --scenario "$scenario" --timeout 30000 -o "$out" || true
checks=$(find "$out" -name checks.json | head -n 1)
if [ -z "$checks" ]; then
    echo "FAIL: the suite wrote no checks.json for scenario $scenario" >&2
    exit 1
fi
"$node" -e '
const checks = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
let failures = 0;
for (const c of checks) {
    if (c.status === "INFO") continue;
    console.log(`${c.status.padEnd(8)} ${c.id}${c.errorMessage ? ": " + c.errorMessage : ""}`);
    if (c.status === "FAILURE") failures++;
}
if (!checks.some(c => c.status === "SUCCESS")) { console.log("no successful check"); failures++; }
process.exit(failures === 0 ? 0 : 1);
' "$checks"
