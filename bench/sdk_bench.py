"""The Python SDK against the reference's: one process per SDK, the same workload.

    python3 bench/sdk_bench.py --sdk ipybox_native [--runs N] [--mcp]   # ours ($IPYBOX_BIN)
    <reference venv>/bin/python bench/sdk_bench.py --sdk ipybox          # ipybox 0.9.2

Prints one JSON object of measures in milliseconds: ``start`` (CodeExecutor start to the first
result, median of 5), ``pass`` (``execute("pass")`` p50/p99), ``tool_call`` (a tool call of a
stdio MCP server with its approval accepted from ``stream()``, p50/p99) and, with ``--mcp``,
``mcp_pass``: ``execute_ipython_cell`` with ``pass`` through ``ipybox mcp`` from the Python MCP
client (needs the ``mcp`` package). bench/sdk_compare.py runs both and prints the ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List

HERE = Path(__file__).resolve().parent
ECHO_SERVER = HERE.parent / "tests" / "python" / "sdk" / "echo_mcp_server.py"
TOOL_CODE = "from echo.echo_text import run, Params\nrun(Params(s='x'))"


def percentiles(samples: List[float]) -> Dict[str, float]:
    ordered = sorted(samples)
    return {
        "p50": round(statistics.median(ordered), 2),
        "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 2),
        "n": len(ordered),
    }


async def timed(action) -> float:
    started = time.perf_counter()
    await action()
    return (time.perf_counter() - started) * 1000


async def measure(sdk: Any, runs: int, quiet: Dict[str, Any]) -> Dict[str, Any]:
    measures: Dict[str, Any] = {}
    starts = []
    for _ in range(5):
        executor = sdk.CodeExecutor(**quiet)
        started = time.perf_counter()
        await executor.start()
        await executor.execute("pass")
        starts.append((time.perf_counter() - started) * 1000)
        await executor.stop()
    measures["start"] = percentiles(starts)

    with tempfile.TemporaryDirectory() as scratch:
        params = {"command": sys.executable, "args": [str(ECHO_SERVER)]}
        await sdk.generate_mcp_sources("echo", params, Path(scratch))
        executor = sdk.CodeExecutor(kernel_env={"PYTHONPATH": scratch}, **quiet)
        await executor.start()
        try:
            for _ in range(20):
                await executor.execute("pass")
            measures["pass"] = percentiles(
                [await timed(lambda: executor.execute("pass")) for _ in range(runs)]
            )

            async def tool_call() -> None:
                async for item in executor.stream(TOOL_CODE):
                    if isinstance(item, sdk.ApprovalRequest):
                        await item.accept()

            for _ in range(5):
                await tool_call()
            measures["tool_call"] = percentiles(
                [await timed(tool_call) for _ in range(max(runs // 3, 10))]
            )
        finally:
            await executor.stop()
    return measures


async def mcp_pass(runs: int) -> Dict[str, float]:
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    with tempfile.TemporaryDirectory() as scratch:
        server = StdioServerParameters(
            command=os.environ["IPYBOX_BIN"],
            # The kernel on this interpreter, as the SDK's executors have it.
            args=[
                "mcp",
                "--workspace",
                scratch,
                "--log-level",
                "error",
                "--python",
                sys.executable,
            ],
        )
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()

                async def cell() -> None:
                    await session.call_tool("execute_ipython_cell", {"code": "pass"})

                for _ in range(20):
                    await cell()
                return percentiles([await timed(cell) for _ in range(runs)])


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sdk", choices=("ipybox_native", "ipybox"), required=True)
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--mcp", action="store_true")
    args = parser.parse_args()
    sdk = importlib.import_module(args.sdk)
    quiet = {"log_level": "ERROR"}
    result = {"sdk": args.sdk, **await measure(sdk, args.runs, quiet)}
    if args.mcp:
        result["mcp_pass"] = await mcp_pass(args.runs)
    print(json.dumps(result))


if __name__ == "__main__":
    asyncio.run(main())
