"""Renders the benchmark JSON files as Markdown tables with ratios.

    report.py KERNEL_JSON JUPYTER_CLIENT_JSON [MCP_SERVER_JSON CODEGEN_JSON
              [RSS_JSON [FUZZ_JSON [PARAMS_JSON]]]]

The first two give the kernel-client table (ipybox's C++ client next to jupyter_client); the
optional next two add `ipybox mcp` seen through the Node SDK client, tool calls through the
generated API, and code generation for a synthetic 500-tool server; then output RSS, the schema
fuzz tier, and the validation cost of a 50-field `Params`.
"""

from __future__ import annotations

import json
import sys


def verdict(value: float, limit: float) -> str:
    return f"{'met' if value <= limit else 'MISSED'} ({value:.2f} vs ≤ {limit:.2f})"


def mcp_tables(mcp: dict, codegen: dict, kernel: dict, reference: dict) -> None:
    print()
    print(
        "`ipybox mcp` through the MCP TypeScript SDK client (stdio), next to the same kernel "
        "driven directly:"
    )
    print()
    print(
        "| measure | ipybox mcp (Node SDK) | kernel only: ipybox C++ | kernel only: jupyter_client "
        "| ratio mcp/C++ | ratio mcp/jupyter_client |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    rows = [
        ("spawn to `initialize` reply (ms)", mcp["spawn_to_initialize_ms"], None, None),
        (
            "spawn to first `execute_ipython_cell` result vs kernel start to ready (ms)",
            mcp["spawn_to_first_result_ms"],
            kernel["start_to_ready_ms"],
            reference["start_to_ready_ms"],
        ),
        (
            "`pass` round trip p50 (ms)",
            mcp["pass"]["p50_ms"],
            kernel["pass"]["p50_ms"],
            reference["pass"]["p50_ms"],
        ),
        (
            "`pass` round trip p99 (ms)",
            mcp["pass"]["p99_ms"],
            kernel["pass"]["p99_ms"],
            reference["pass"]["p99_ms"],
        ),
        (
            "reset to usable (ms)",
            mcp["reset_to_usable_ms"],
            kernel["reset_to_usable_ms"],
            reference["reset_to_usable_ms"],
        ),
        (
            "reset back to back p50 (ms)",
            mcp["reset_back_to_back"]["p50_ms"],
            kernel["reset_back_to_back_p50_ms"],
            None,
        ),
        (
            "crash (os._exit) to the next result (ms)",
            mcp["crash_restart_ms"],
            kernel["crash_restart_ms"],
            None,
        ),
        (
            "peak RSS of the client process (MiB)",
            mcp["peak_rss_mib"],
            kernel["peak_rss_mib"],
            reference["peak_rss_mib"],
        ),
    ]
    for name, value, cpp, py in rows:
        cells = [f"{value:.2f}"]
        cells += [f"{x:.2f}" if x is not None else "—" for x in (cpp, py)]
        cells += [f"{value / x:.2f}" if x else "—" for x in (cpp, py)]
        print(f"| {name} | " + " | ".join(cells) + " |")
    print()
    print(
        "Targets (issue 4): initialize "
        + verdict(mcp["spawn_to_initialize_ms"], 50)
        + "; first result ≤ kernel ready + 50 ms "
        + verdict(mcp["spawn_to_first_result_ms"], kernel["start_to_ready_ms"] + 50)
        + "; reset "
        + verdict(mcp["reset_to_usable_ms"], 100)
        + "; (issue 23) resets back to back "
        + verdict(mcp["reset_back_to_back"]["p50_ms"], 50)
        + ", crash restart "
        + verdict(mcp["crash_restart_ms"], 100)
        + "."
    )

    calls = mcp["tool_call"]
    print()
    print(
        f"A tool call through the generated API (kernel → tool server → stdio server-everything "
        f"`echo` → back), {calls['in_kernel']['runs']} calls each:"
    )
    print()
    print("| measure | p50 (ms) | p99 (ms) |")
    print("|---|---:|---:|")
    for name, figures in (
        (
            "`echo.run(echo.Params(message='x'))` timed in the kernel (perf_counter)",
            calls["in_kernel"],
        ),
        ("the same call as a whole `execute_ipython_cell` round trip", calls["per_cell"]),
        ("direct @modelcontextprotocol/sdk client `callTool('echo')`", calls["direct_sdk"]),
        ("bare `pass` as an `execute_ipython_cell` round trip", mcp["pass"]),
    ):
        print(f"| {name} | {figures['p50_ms']:.2f} | {figures['p99_ms']:.2f} |")
    limit = mcp["pass"]["p50_ms"] + calls["direct_sdk"]["p50_ms"] + 1
    print()
    print(
        "Target (issue 3): generated-API p50 ≤ `pass` p50 + direct-SDK p50 + 1 ms: in the kernel "
        + verdict(calls["in_kernel"]["p50_ms"], limit)
        + "; as a whole cell "
        + verdict(calls["per_cell"]["p50_ms"], limit)
        + "."
    )

    print()
    print(
        f"Code generation (`ipybox generate`) for a synthetic {codegen['tools']}-tool stdio server "
        f"(median of {codegen['repeats']}):"
    )
    print()
    print("| measure | ms |")
    print("|---|---:|")
    print(f"| {codegen['tools']} tools, end to end | {codegen['generate_ms']:.0f} |")
    one_tool_ms = codegen["generate_one_tool_ms"]
    print(f"| 1 tool, end to end (node start-up, initialize) | {one_tool_ms:.0f} |")
    print(
        f"| difference: listing and generating {codegen['tools'] - 1} more tools | "
        f"{codegen['codegen_share_ms']:.0f} |"
    )
    print()
    print(
        "Target (issue 3): codegen of a 500-tool server ≤ 1 s: end to end "
        + verdict(codegen["generate_ms"], 1000)
        + "; without the server's start-up "
        + verdict(codegen["codegen_share_ms"], 1000)
        + "."
    )


def main() -> None:
    ours = json.load(open(sys.argv[1]))
    reference = json.load(open(sys.argv[2]))
    rows = [
        ("kernel start to ready (ms)", ours["start_to_ready_ms"], reference["start_to_ready_ms"]),
        ("`pass` round trip p50 (ms)", ours["pass"]["p50_ms"], reference["pass"]["p50_ms"]),
        ("`pass` round trip p99 (ms)", ours["pass"]["p99_ms"], reference["pass"]["p99_ms"]),
        ("`print(1)` round trip p50 (ms)", ours["print"]["p50_ms"], reference["print"]["p50_ms"]),
        ("`print(1)` round trip p99 (ms)", ours["print"]["p99_ms"], reference["print"]["p99_ms"]),
        ("reset to usable (ms)", ours["reset_to_usable_ms"], reference["reset_to_usable_ms"]),
        ("client peak RSS (MiB)", ours["peak_rss_mib"], reference["peak_rss_mib"]),
    ]
    print("| measure | ipybox (C++) | jupyter_client (Python) | ratio ipybox/reference |")
    print("|---|---:|---:|---:|")
    for name, a, b in rows:
        print(f"| {name} | {a:.2f} | {b:.2f} | {a / b:.2f} |")
    print()
    print(
        "Kernel's own share of a round trip (execute_reply `started` to the `idle` status, "
        "kernel clock), and the client overhead above that floor:"
    )
    print()
    print(
        "| measure | kernel floor p50 (ms) | ipybox overhead (ms) | jupyter_client overhead (ms) |"
    )
    print("|---|---:|---:|---:|")
    for key, label in (("pass", "`pass`"), ("print", "`print(1)`")):
        floor = ours[key]["kernel_p50_ms"]
        print(
            f"| {label} | {floor:.2f} | {ours[key]['p50_ms'] - floor:.2f} | "
            f"{reference[key]['p50_ms'] - reference[key]['kernel_p50_ms']:.2f} |"
        )
    if "no_limits" in ours:
        print()
        mechanism = ours.get("containment", "?")
        print(f"Resource limits on (default) vs off, same run; containment: {mechanism}")
        compare_kernels(("limits off", ours["no_limits"]), ("limits on", ours))
    if "cold" in ours:
        kernel_start_table(ours)
    if "sandboxed" in ours:
        print()
        print("The same kernel under `--sandbox` (srt + bubblewrap), same client, same run:")
        compare_kernels(("unsandboxed", ours), ("sandboxed", ours["sandboxed"]))
    if len(sys.argv) >= 5:
        mcp_tables(json.load(open(sys.argv[3])), json.load(open(sys.argv[4])), ours, reference)
    if len(sys.argv) >= 6:
        rss_table(json.load(open(sys.argv[5])))
    if len(sys.argv) >= 7:
        fuzz_table(json.load(open(sys.argv[6])))
    if len(sys.argv) >= 8:
        params_table(json.load(open(sys.argv[7])))


def kernel_start_table(ours: dict) -> None:
    """Kernels forked from the kernel template against kernels started cold (issue 23)."""
    cold = ours["cold"]
    print()
    print("Kernel starts (issue 23): kernels started cold (the spare as before) vs forked from the")
    print("kernel template, same client, same run:")
    print()
    print("| measure | cold | forked | ratio |")
    print("|---|---:|---:|---:|")
    rows = [
        ("reset back to back p50 (ms)", "reset_back_to_back_p50_ms"),
        ("reset back to back p90 (ms)", "reset_back_to_back_p90_ms"),
        ("reset with a ready spare (ms)", "reset_to_usable_ms"),
        ("crash (os._exit) to the next result (ms)", "crash_restart_ms"),
        ("first start to ready (ms)", "start_to_ready_ms"),
        ("process tree PSS, spare up (MiB)", "tree_pss_mib"),
        (
            "the same once a cell imported numpy, pydantic, pyplot (MiB)",
            "tree_pss_after_imports_mib",
        ),
    ]
    for name, key in rows:
        print(f"| {name} | {cold[key]:.1f} | {ours[key]:.1f} | {ours[key] / cold[key]:.2f} |")
    print(
        f"| `pass` round trip p50 (ms) | {cold['pass']['p50_ms']:.2f} | "
        f"{ours['pass']['p50_ms']:.2f} | {ours['pass']['p50_ms'] / cold['pass']['p50_ms']:.2f} |"
    )
    print()
    summary = (
        "Targets: reset back to back ≤ 50 ms p50 "
        + verdict(ours["reset_back_to_back_p50_ms"], 50)
        + "; crash restart ≤ 100 ms "
        + verdict(ours["crash_restart_ms"], 100)
    )
    if "sandboxed" in ours:
        # A session's first kernel starts cold (the template starts beside it); every later
        # one is forked, and a reset back to back waits for exactly that start.
        extra = ours["sandboxed"]["reset_back_to_back_p50_ms"] - ours["reset_back_to_back_p50_ms"]
        first = ours["sandboxed"]["start_to_ready_ms"] - ours["start_to_ready_ms"]
        summary += (
            f"; sandboxed − plain start {extra:.0f} ms, resets back to back p50 (≤ 300 ms "
            + verdict(extra, 300)
            + f"; a session's first, cold, start: {first:.0f} ms)"
        )
    print(summary + ".")
    if "sandboxed_cold" in ours:
        print()
        print("Under `--sandbox`: kernels started cold, each in a sandbox of its own (as before),")
        print("vs forked from a template inside the session's sandbox, same run:")
        compare_kernels(("cold", ours["sandboxed_cold"]), ("forked", ours["sandboxed"]))


def compare_kernels(first: tuple, second: tuple) -> None:
    (first_name, a), (second_name, b) = first, second
    print()
    print(f"| measure | {first_name} | {second_name} | ratio |")
    print("|---|---:|---:|---:|")
    for name, left, right in (
        ("kernel start to ready (ms)", a["start_to_ready_ms"], b["start_to_ready_ms"]),
        ("`pass` round trip p50 (ms)", a["pass"]["p50_ms"], b["pass"]["p50_ms"]),
        ("`pass` round trip p99 (ms)", a["pass"]["p99_ms"], b["pass"]["p99_ms"]),
        ("reset to usable (ms)", a["reset_to_usable_ms"], b["reset_to_usable_ms"]),
        (
            "reset back to back p50 (ms)",
            a["reset_back_to_back_p50_ms"],
            b["reset_back_to_back_p50_ms"],
        ),
        ("crash (os._exit) to the next result (ms)", a["crash_restart_ms"], b["crash_restart_ms"]),
    ):
        print(f"| {name} | {left:.2f} | {right:.2f} | {right / left:.2f} |")


def rss_table(rss: dict) -> None:
    print()
    print("Peak RSS of ipybox itself for one cell's output or images (target: under 64 MiB):")
    print()
    print("| command | " + " | ".join(rss["run"]) + " |")
    print("|---|" + "---:|" * len(rss["run"]))
    for command in ("run", "mcp"):
        cells = " | ".join(f"{rss[command][size]:.1f} MiB" for size in rss[command])
        print(f"| `ipybox {command}` | {cells} |")


def fuzz_table(fuzz: dict) -> None:
    """The schema fuzz tier (tests/fuzz/run_fuzz.py --json-report) as a throughput figure."""
    print()
    print(
        f"Schema fuzz tier, {fuzz['seeds']} seeds x {fuzz['tools_per_seed']} hostile tools, "
        "generated, imported and round-tripped under pydantic 1 and 2:"
    )
    print()
    print("| measure | value |")
    print("|---|---:|")
    print(f"| tool schemas checked | {fuzz['schemas']} |")
    print(f"| throughput, end to end (schemas/s) | {fuzz['schemas_per_second']:.0f} |")
    per_tool_ms = 1000 * fuzz["codegen_seconds"] / max(fuzz["codegen_tools"], 1)
    print(f"| code generation alone (ms per tool, process start included) | {per_tool_ms:.2f} |")
    print(f"| failures | {fuzz['failures']} |")


def params_table(params: dict) -> None:
    """A generated 50-field Params (bench/params_validation_bench.py) under both pydantic majors."""
    majors = [params[key] for key in ("pydantic1", "pydantic2")]
    print()
    print(
        f"Validation cost of a generated {params['fields']}-field `Params` "
        "(µs per call, best of 5):"
    )
    print()
    print("| measure | " + " | ".join(f"pydantic {m['pydantic']}" for m in majors) + " |")
    print("|---|---:|---:|")
    for key, label in (
        ("validate_us", "`Params(**values)`, every field set"),
        ("validate_and_send_us", "the same, then `to_arguments()` (what `run()` sends)"),
        ("refuse_us", "refusing one value of the wrong JSON type"),
    ):
        print(f"| {label} | " + " | ".join(f"{m[key]:.1f}" for m in majors) + " |")


if __name__ == "__main__":
    main()
