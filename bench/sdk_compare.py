"""ipybox_native's CodeExecutor against the reference's (ipybox 0.9.2), ratios first.

    IPYBOX_BIN=<binary> python3 bench/sdk_compare.py --ours PYTHON --reference PYTHON [--runs N]
        [--rounds R]

`--ours` is an interpreter with ipybox_native importable (and ``mcp`` for the MCP row);
`--reference` one with ipybox 0.9.2 and ``mcp<2`` (bench/reference_venv.mjs installs it under
.cache/). Each round runs bench/sdk_bench.py once per SDK, alternating, so that the machine's
noise hits both alike; the table shows the median over the rounds of each measure.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

BENCH = Path(__file__).resolve().parent / "sdk_bench.py"
ROWS = [
    ("start", "CodeExecutor start to the first result"),
    ("pass", 'execute("pass") p50'),
    ("tool_call", "tool call with approval from stream() p50"),
]


def run(python: str, sdk: str, runs: int, mcp: bool) -> Dict[str, Any]:
    command = [python, str(BENCH), "--sdk", sdk, "--runs", str(runs)] + (["--mcp"] if mcp else [])
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"sdk_bench.py --sdk {sdk} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def median_of(rounds: List[Dict[str, Any]], key: str) -> float:
    return statistics.median(r[key]["p50"] for r in rounds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ours", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    ours: List[Dict[str, Any]] = []
    reference: List[Dict[str, Any]] = []
    for _ in range(args.rounds):
        ours.append(run(args.ours, "ipybox_native", args.runs, mcp=True))
        reference.append(run(args.reference, "ipybox", args.runs, mcp=False))
    print("| measure | ratio ours/reference | ipybox_native (ms) | ipybox 0.9.2 (ms) |")
    print("|---|---:|---:|---:|")
    for key, label in ROWS:
        a, b = median_of(ours, key), median_of(reference, key)
        print(f"| {label} | {a / b:.3f} | {a:.1f} | {b:.1f} |")
    sdk_pass, mcp_pass = median_of(ours, "pass"), median_of(ours, "mcp_pass")
    print(
        f"| ours: SDK pass / MCP pass (ipybox mcp, Python client) | {sdk_pass / mcp_pass:.2f} "
        f"| {sdk_pass:.1f} | {mcp_pass:.1f} (MCP) |"
    )
    print(json.dumps({"ours": ours, "reference": reference}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
