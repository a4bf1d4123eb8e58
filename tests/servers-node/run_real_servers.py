"""The real-servers tier: tool schemas of popular npm MCP servers through the code generator.

    /usr/bin/python3 tests/servers-node/run_real_servers.py --codegen <codegen_files>
                                                            [--seeds N] [--min-servers N]

list_tools.mjs starts each pinned server (tests/servers-node/package.json) offline, in a network
namespace of its own (unshare), and asks for tools/list; the schemas are fetched at test time,
never stored in the repository. Every server's package is generated, every module imported under
pydantic 1 and 2, and for every tool N argument sets (and structured outputs) built from its own
schemas and accepted by jsonschema must round-trip exactly (fuzz_worker.py). A server that
cannot be listed is a failure, as is any module that does not import or any value that changes.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "fuzz"))

import run_fuzz  # noqa: E402 - the fuzz tier's generator, worker and interpreter lookup


def list_servers() -> Dict[str, Any]:
    # A network namespace of its own (only a loopback, down): no server can reach the network.
    done = subprocess.run(
        ["unshare", "--net", "--map-root-user", "node", str(HERE / "list_tools.mjs")],
        capture_output=True,
        cwd=str(HERE),
        check=False,
        timeout=900,
    )
    if done.returncode != 0:
        raise SystemExit(f"FAIL: list_tools.mjs: {done.stderr.decode('utf-8', 'replace')[-2000:]}")
    return json.loads(done.stdout.decode("utf-8").splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--codegen", required=True)
    parser.add_argument("--seeds", type=int, default=5, help="argument sets per tool")
    parser.add_argument("--min-servers", type=int, default=10)
    args = parser.parse_args()
    listing = list_servers()
    servers: Dict[str, List[Dict[str, Any]]] = listing["servers"]
    ok = True
    for name, why in listing["failures"].items():
        print(f"FAIL: server {name} could not be listed: {why}", file=sys.stderr)
        ok = False
    if len(servers) < args.min_servers:
        print(f"FAIL: only {len(servers)} servers listed", file=sys.stderr)
        ok = False
    tools: List[Dict[str, Any]] = []
    owner: List[str] = []
    for name, server_tools in sorted(servers.items()):
        tools += server_tools
        owner += [name] * len(server_tools)
        print(f"{name}: {len(server_tools)} tools")
    for major, python in run_fuzz.interpreters():
        counts = {"imported": 0, "arguments": 0, "outputs": 0}
        for seed in range(1, args.seeds + 1):
            report = run_fuzz.check_tools(args.codegen, python, tools, seed, "real_servers")
            for key in counts:
                counts[key] += report.get("checked", {}).get(key, 0)
            for failure in report["failures"]:
                ok = False
                index = failure["id"]
                where = f"{owner[index]}.{tools[index]['name']}" if index is not None else "-"
                print(
                    f"\n--- pydantic {major}, seed {seed}, {where}, {failure['kind']}:\n"
                    f"{failure['detail']}",
                    file=sys.stderr,
                )
                if index is not None and "arguments" in failure["kind"]:
                    case = report["cases"][index]
                    print("arguments: " + json.dumps(case.get("arguments"))[:2000], file=sys.stderr)
        imported = counts["imported"] // args.seeds
        print(
            f"pydantic {major}: {imported}/{len(tools)} modules import; "
            f"{counts['arguments']} argument sets and {counts['outputs']} outputs checked"
        )
    print("real servers: " + ("all exact" if ok else "FAILED"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
