"""The gentools search index at 200 and 2,000 tools: build time, query latency, and how many
characters the model reads to find a tool with search_tools versus catalog().

    /usr/bin/python3 bench/gentools_search_bench.py [--sizes 200,2000] [--queries 50]

Uses the synthetic tool modules of the unit tests (tests/python/test_search.py). Prints one JSON
object and, on stderr, a table. Nothing is asserted; figures are for this machine and run.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import random
import shutil
import statistics
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "native" / "python"), str(ROOT / "tests" / "python")]

from ipybox_runtime import gentools, search  # noqa: E402
from test_search import synthetic_tools  # noqa: E402


def milliseconds(action) -> float:
    start = time.perf_counter()
    action()
    return (time.perf_counter() - start) * 1000


def measure(size: int, queries: int) -> dict:
    workspace = pathlib.Path(tempfile.mkdtemp(prefix="ipybox-search-bench-"))
    try:
        tools = synthetic_tools(workspace, size)
        cold = search.ToolIndex(workspace, use_cache=False)
        cold_ms = milliseconds(cold.refresh)
        search.ToolIndex(workspace).refresh()  # writes the cache a new kernel starts from
        cached = search.ToolIndex(workspace)
        cached_ms = milliseconds(cached.refresh)
        chosen = random.Random(1).sample(tools, min(queries, len(tools)))
        latencies, found = [], 0
        for module, words in chosen:
            verb, noun, service = words.split()
            query = f"{verb} {noun.replace('_', ' ')} on {service}"
            latencies.append(milliseconds(lambda: cold.search(query, limit=5)))
            found += module in [hit.name for hit in cold.search(query, limit=3)]
        verb, noun, service = chosen[0][1].split()
        query = f"{verb} {noun.replace('_', ' ')} on {service}"
        result_chars = len(search.format_search(query, 10, workspace=workspace))
        catalog_chars = len(gentools.catalog(workspace))
        latencies.sort()
        return {
            "tools": size,
            "build_cold_ms": round(cold_ms, 1),
            "build_from_cache_ms": round(cached_ms, 1),
            "query_median_ms": round(statistics.median(latencies), 2),
            "query_p95_ms": round(latencies[int(0.95 * (len(latencies) - 1))], 2),
            "top3_found": f"{found}/{len(chosen)}",
            "search_result_chars": result_chars,
            "catalog_chars": catalog_chars,
        }
    finally:
        shutil.rmtree(workspace, ignore_errors=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", default="200,2000")
    parser.add_argument("--queries", type=int, default=50)
    args = parser.parse_args()
    rows = [measure(int(size), args.queries) for size in args.sizes.split(",")]
    print(json.dumps({"gentools_search": rows}, indent=2))
    columns = list(rows[0])
    print("  ".join(f"{column:>20}" for column in columns), file=sys.stderr)
    for row in rows:
        print("  ".join(f"{str(row[column]):>20}" for column in columns), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
