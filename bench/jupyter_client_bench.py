"""The reference measurement: jupyter_client's BlockingKernelClient against the same ipykernel.

Prints one JSON object with the same fields as ipybox_kernel_bench. Run it with the interpreter
the kernel uses (Debian's /usr/bin/python3, which has jupyter_client).
"""

from __future__ import annotations

import json
import resource
import statistics
import sys
import tempfile
import time

from jupyter_client.manager import KernelManager


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[int(p / 100 * (len(ordered) - 1))] if ordered else 0.0


def kernel_share_ms(reply: dict, idle: dict) -> float | None:
    started = reply["metadata"].get("started")
    if started is None:
        return None
    if isinstance(started, str):
        from jupyter_client.jsonutil import parse_date

        started = parse_date(started)
    return (idle["header"]["date"] - started).total_seconds() * 1000


def execute(client, code: str) -> tuple[float, float | None]:
    start = time.perf_counter()
    msg_id = client.execute(code, store_history=True)
    reply = None
    idle = None
    while reply is None:
        message = client.get_shell_msg(timeout=30)
        if message["parent_header"].get("msg_id") == msg_id:
            reply = message
    while idle is None:
        message = client.get_iopub_msg(timeout=30)
        if (
            message["parent_header"].get("msg_id") == msg_id
            and message["msg_type"] == "status"
            and message["content"]["execution_state"] == "idle"
        ):
            idle = message
    return (time.perf_counter() - start) * 1000, kernel_share_ms(reply, idle)


def round_trips(client, code: str, runs: int) -> dict:
    for _ in range(20):
        execute(client, code)
    totals, shares = [], []
    for _ in range(runs):
        total, share = execute(client, code)
        totals.append(total)
        if share is not None:
            shares.append(share)
    return {
        "p50_ms": percentile(totals, 50),
        "p99_ms": percentile(totals, 99),
        "kernel_p50_ms": statistics.median(shares) if shares else 0.0,
        "runs": runs,
    }


def main() -> None:
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 500
    report: dict = {}
    with tempfile.TemporaryDirectory() as workspace:
        manager = KernelManager(kernel_name="python3")
        manager.kernel_spec.argv[0] = sys.executable
        start = time.perf_counter()
        manager.start_kernel(cwd=workspace)
        client = manager.blocking_client()
        client.start_channels()
        client.wait_for_ready(timeout=60)
        report["start_to_ready_ms"] = (time.perf_counter() - start) * 1000
        report["pass"] = round_trips(client, "pass", runs)
        report["print"] = round_trips(client, "print(1)", runs)
        resets = []
        for _ in range(5):
            start = time.perf_counter()
            manager.restart_kernel(now=True)
            client.wait_for_ready(timeout=60)
            execute(client, "pass")
            resets.append((time.perf_counter() - start) * 1000)
        report["reset_to_usable_ms"] = percentile(resets, 50)
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    report["peak_rss_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(report))


if __name__ == "__main__":
    main()
