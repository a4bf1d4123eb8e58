"""Renders the benchmark JSON files as one Markdown table with ratios."""

from __future__ import annotations

import json
import sys


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
    print("Kernel's own share of a round trip (execute_reply `started` to the `idle` status, "
          "kernel clock), and the client overhead above that floor:")
    print()
    print("| measure | kernel floor p50 (ms) | ipybox overhead (ms) | jupyter_client overhead (ms) |")
    print("|---|---:|---:|---:|")
    for key, label in (("pass", "`pass`"), ("print", "`print(1)`")):
        floor = ours[key]["kernel_p50_ms"]
        print(f"| {label} | {floor:.2f} | {ours[key]['p50_ms'] - floor:.2f} | "
              f"{reference[key]['p50_ms'] - reference[key]['kernel_p50_ms']:.2f} |")


if __name__ == "__main__":
    main()
