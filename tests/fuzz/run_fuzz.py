"""The property-based tier: random hostile tool schemas through the real code generator.

    /usr/bin/python3 tests/fuzz/run_fuzz.py --codegen <codegen_files> [--tools N] [--seeds 1,2,3]
                                            [--names] [--long] [--shrink-budget N]

For each seed, SchemaFuzzer makes N tools; codegen_files generates their package; for every
tool, ValueMaker builds valid arguments (and valid structured output when there is an output
schema), which jsonschema (a real validator, Draft 2020-12 with OpenAPI's ``nullable``;
``invalid_values.Judge``; input objects closed to undeclared keys, as generated input models
are) must accept or they are discarded. fuzz_worker.py then imports every module and checks
exact round trips, once under pydantic 1 and once under pydantic 2 (interpreters found as
tests/python/launch.py finds them). For every valid set, up to six invalid sets (the valid set
mutated one keyword at a time, confirmed invalid by the judge with objects as the schema
leaves them; invalid_values.py) must be refused by ``Params`` with a ValidationError unless the
keywords the module's docstring lists as checked by the server only explain it (those are
counted apart). The refusal rate per keyword is printed; an invalid set Params accepts is a
failure like any other. CI runs fixed seeds (CODEGEN_SEEDS, 3 x 1,000 tools), so that CI
turns red only for a change in this repository; ``--long`` (or IPYBOX_FUZZ_LONG=1) adds 5
seeds derived from the commit (GITHUB_SHA or ``git rev-parse HEAD``), so that each commit
fuzzed locally sees schemas no earlier run saw. Seeds are printed; --seeds or
IPYBOX_FUZZ_SEEDS reruns any. A failure found on a new seed is shrunk, kept as a regression
case (the golden package ``refusal_edges``, tests/python/test_refusal_edges.py) and fixed.
``--names`` is the property-name tier: NameSetFuzzer's tools (hostile
name sets in every object at every level: nested, arrays of objects, maps, unions, $defs; input
and output), on fixed seeds (NAME_SEEDS x 100 tools) so that CI stays quick and repeatable;
with ``--long`` (or IPYBOX_FUZZ_LONG=1) the fixed seeds and 5 seeds from the commit, 1,000
tools each. Every tier also checks ``Params(**arguments)``, the attributes of every model built
and the docstrings' lists of attributes named otherwise (fuzz_worker.py). A failing tool is
shrunk (greedy removal of properties, alternatives and keywords while the same kind of failure
persists, its values drawn as in the failing run) and printed as a minimal schema, with the
argument sets that failed. Exit status 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import jsonschema

HERE = Path(__file__).resolve().parent
SOURCE_DIR = HERE.parents[1]
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(SOURCE_DIR / "tests" / "python"))

import launch  # noqa: E402 - finds the interpreter of each pydantic major
from invalid_values import Judge, closed_for_inputs, mutants  # noqa: E402
from schema_fuzz import NameSetFuzzer, SchemaFuzzer, Unresolvable, ValueMaker  # noqa: E402
from schema_shrink import shrink  # noqa: E402

RUNTIME_DIR = SOURCE_DIR / "native" / "python"
CODEGEN_TIMES: List[Tuple[int, float]] = []  # (tools, seconds) of every generator run
NAME_SEEDS = [1, 2, 3]  # the property-name tier's fixed seeds
# The codegen tier's fixed seeds: those CI rotated to on 2026-11-29, where seed 1838934166 found
# object alternatives told apart by a null (refusal_edges' null_alternatives).
CODEGEN_SEEDS = [1838918328, 1838926247, 1838934166]
VALUE_ATTEMPTS = 12
INVALID_PER_TOOL = 6  # confirmed invalid argument sets per tool, one per keyword


def valid_value(root: Any, schema: Any, seed: int, is_input: bool) -> Tuple[bool, Any]:
    """A value jsonschema accepts for `schema` (resolved against `root`), if one is found."""
    rng = random.Random(seed)
    try:
        validator = Judge(closed_for_inputs(root) if is_input else root)
        for _ in range(VALUE_ATTEMPTS):
            value = ValueMaker(root, rng, open_by_default=not is_input).value(schema)
            if validator.is_valid(value):
                return True, value
    except (
        Unresolvable,
        RecursionError,
        jsonschema.exceptions.SchemaError,
        jsonschema.exceptions.RefResolutionError,  # a shrunk schema lost the $defs it uses
        ValueError,
    ):
        pass
    return False, None


def make_cases(
    tools: List[Dict[str, Any]], modules: List[Dict[str, Any]], seed: int, first: int = 0
) -> List[Dict[str, Any]]:
    """One case per tool; the values of tool i come from seed and `first + i` alone."""
    cases = []
    for index, (tool, module) in enumerate(zip(tools, modules)):
        case: Dict[str, Any] = {
            "id": index,
            "module": module["module"],
            "server_only": module.get("server_only", []),
        }
        found, arguments = valid_value(
            tool["inputSchema"], tool["inputSchema"], seed * 100003 + first + index, True
        )
        if found and isinstance(arguments, dict):
            case["arguments"] = arguments
            rng = random.Random(seed * 100043 + first + index)
            case["schema"] = tool["inputSchema"]
            case["invalid"] = [
                {"keyword": keyword, "arguments": mutated, "violated": violated}
                for keyword, mutated, violated in mutants(
                    tool["inputSchema"], arguments, rng, INVALID_PER_TOOL
                )
            ]
        output_schema = tool.get("outputSchema")
        if output_schema is not None:
            found, output = valid_value(
                output_schema, output_schema, seed * 100019 + first + index, False
            )
            if found and isinstance(output, dict):
                case["output"] = output
        cases.append(case)
    return cases


def generate(
    codegen: str, server: str, tools: List[Dict[str, Any]], root: Path
) -> List[Dict[str, Any]]:
    """Runs the generator; for each tool, in order, {"module", "server_only", ...}."""
    document = json.dumps({"server_name": server, "tools": tools})
    started = time.monotonic()
    done = subprocess.run(
        [codegen, str(root)], input=document.encode("utf-8"), capture_output=True, check=False
    )
    CODEGEN_TIMES.append((len(tools), time.monotonic() - started))
    if done.returncode != 0:
        raise RuntimeError(f"codegen failed: {done.stderr.decode('utf-8', 'replace')}")
    lines = [json.loads(line) for line in done.stdout.decode("utf-8").split("\n") if line]
    return lines


def run_worker(python: str, server: str, root: Path, cases: List[Dict[str, Any]]) -> Dict[str, Any]:
    job = {
        "runtime": str(RUNTIME_DIR),
        "package_root": str(root),
        "server": server,
        "cases": cases,
    }
    job_path = root / "job.json"
    job_path.write_text(json.dumps(job), encoding="utf-8")
    done = subprocess.run(
        [python, "-I", str(HERE / "fuzz_worker.py"), str(job_path)],
        capture_output=True,
        cwd=str(HERE),
        env={"PATH": os.environ.get("PATH", "")},
        check=False,
    )
    if done.returncode != 0:
        detail = done.stderr.decode("utf-8", "replace")[-3000:]
        return {"failures": [{"id": None, "kind": "worker crashed", "detail": detail}]}
    return json.loads(done.stdout.decode("utf-8").splitlines()[-1])


def check_tools(
    codegen: str,
    python: str,
    tools: List[Dict[str, Any]],
    seed: int,
    server: str = "",
    first: int = 0,
) -> Dict[str, Any]:
    """Generates `tools` as package `server`, then checks every module under `python`; `first`
    is the index of the first tool in its seed's run, which fixes the values it gets."""
    with tempfile.TemporaryDirectory(prefix="ipybox-fuzz-") as directory:
        root = Path(directory)
        server = server or f"fuzz_{seed}"
        modules = generate(codegen, server, tools, root)
        cases = make_cases(tools, modules, seed, first)
        report = run_worker(python, server, root, cases)
        report["cases"] = cases
        return report


def shrink_failure(
    codegen: str, python: str, tool: Dict[str, Any], kind: str, where: Dict[str, Any], budget: int
) -> Tuple[Dict[str, Any], str]:
    """The smallest variant of `tool` found that still fails with `kind`, its values drawn as in
    the failing run (same seed, same index), and the failure it gives (the argument set)."""

    def fails(candidate: Dict[str, Any]) -> Optional[str]:
        try:
            report = check_tools(codegen, python, [candidate], where["seed"], first=where["index"])
        except (RuntimeError, ValueError):
            return None
        found = [f for f in report["failures"] if f["kind"] == kind]
        return found[0]["detail"] if found else None

    return shrink(tool, fails, where.get("detail", ""), budget)


def rotating_seeds(count: int) -> List[int]:
    """Seeds derived from the commit under test (GITHUB_SHA, else git), so that each commit
    fuzzes schemas no earlier run saw; 1, 2, 3, ... when neither is known."""
    commit = os.environ.get("GITHUB_SHA", "")
    if not commit:
        try:
            done = subprocess.run(
                ["git", "-C", str(SOURCE_DIR), "rev-parse", "HEAD"],
                capture_output=True,
                text=True,
                check=False,
                timeout=30,
            )
            commit = done.stdout.strip() if done.returncode == 0 else ""
        except (OSError, subprocess.TimeoutExpired):
            commit = ""
    try:
        base = int(commit[:12], 16)
    except ValueError:
        return list(range(1, count + 1))
    return [(base + index * 7919) % 2**31 for index in range(count)]


def interpreters() -> List[Tuple[int, str]]:
    found = []
    for major in (1, 2):
        python = next(
            (
                p
                for p in launch.candidates(major)
                if (launch.pydantic_version(p) or "").startswith(f"{major}.")
            ),
            None,
        )
        if python is None:
            raise SystemExit(
                f"FAIL: no Python interpreter with pydantic {major}.x (see tests/python/launch.py)"
            )
        found.append((major, python))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--codegen", required=True, help="the codegen_files executable")
    parser.add_argument("--tools", type=int, default=None, help="tools per seed (default 1,000)")
    parser.add_argument(
        "--seeds",
        default=None,
        help="comma-separated (default: the fixed seeds, and 5 from the commit with --long)",
    )
    parser.add_argument(
        "--long", action="store_true", help="5 more seeds, from the commit (1,000 tools each)"
    )
    parser.add_argument(
        "--names", action="store_true", help="the property-name tier (fixed seeds, 100 tools)"
    )
    parser.add_argument("--shrink-budget", type=int, default=300, help="checks per shrunk failure")
    parser.add_argument("--max-shrinks", type=int, default=3, help="failures to shrink per run")
    parser.add_argument("--json-report", help="write throughput figures (for bench/) here")
    args = parser.parse_args()
    long_mode = args.long or os.environ.get("IPYBOX_FUZZ_LONG") == "1"
    tool_count = args.tools or (100 if args.names and not long_mode else 1000)
    seed_list = args.seeds or os.environ.get("IPYBOX_FUZZ_SEEDS")
    if seed_list:
        seeds = [int(seed) for seed in seed_list.split(",") if seed]
    elif args.names:
        seeds = NAME_SEEDS + (rotating_seeds(5) if long_mode else [])
    else:
        seeds = CODEGEN_SEEDS + (rotating_seeds(5) if long_mode else [])
    make_fuzzer = NameSetFuzzer if args.names else SchemaFuzzer
    print(f"fuzz seeds: {','.join(map(str, seeds))} ({tool_count} tools each)", flush=True)
    refusals: Dict[int, Dict[str, List[int]]] = {1: {}, 2: {}}
    server_only: Dict[str, int] = {}

    started = time.monotonic()
    totals: Dict[str, int] = {}
    failures: List[Tuple[int, str, Dict[str, Any], Dict[str, Any]]] = []
    for major, python in interpreters():
        for seed in seeds:
            fuzzer = make_fuzzer(seed)
            tools = [fuzzer.tool(index) for index in range(tool_count)]
            report = check_tools(args.codegen, python, tools, seed)
            for keyword, (refused, tried) in report.get("refusals", {}).items():
                tally = refusals[major].setdefault(keyword, [0, 0])
                tally[0] += refused
                tally[1] += tried
            for keyword, count in report.get("server_only", {}).items():
                if major == 1:
                    server_only[keyword] = server_only.get(keyword, 0) + count
            checked = report.get("checked", {})
            for key, value in checked.items():
                totals[f"pydantic {major} {key}"] = totals.get(f"pydantic {major} {key}", 0) + value
            totals[f"pydantic {major} tools"] = totals.get(f"pydantic {major} tools", 0) + len(
                tools
            )
            for failure in report["failures"]:
                tool = tools[failure["id"]] if failure["id"] is not None else {}
                where = {"seed": seed, "index": failure["id"], "tool": tool}
                failures.append((major, python, failure, where))
    elapsed = time.monotonic() - started
    schemas = sum(v for k, v in totals.items() if k.endswith(" tools"))
    for key in sorted(totals):
        print(f"{key}: {totals[key]}")
    print("invalid argument sets refused by Params, per keyword (refused/tried):")
    for keyword in sorted(set(refusals[1]) | set(refusals[2])):
        cells = []
        for major in (1, 2):
            refused, tried = refusals[major].get(keyword, [0, 0])
            rate = f"{100 * refused / tried:.1f}%" if tried else "-"
            cells.append(f"pydantic {major} {refused}/{tried} ({rate})")
        print(f"  {keyword:22} " + "  ".join(cells))
    if server_only:
        listed = ", ".join(f"{k} {v}" for k, v in sorted(server_only.items()))
        print(f"  not required (listed as checked by the server only): {listed}")
    print(f"fuzz: {schemas} tool schemas in {elapsed:.1f} s ({schemas / elapsed:.0f} schemas/s)")
    generated = sum(count for count, _ in CODEGEN_TIMES)
    codegen_seconds = sum(seconds for _, seconds in CODEGEN_TIMES)
    print(f"codegen alone: {generated} tools in {codegen_seconds:.2f} s")
    if args.json_report:
        figures = {
            "tools_per_seed": tool_count,
            "seeds": len(seeds),
            "schemas": schemas,
            "seconds": elapsed,
            "schemas_per_second": schemas / elapsed,
            "codegen_tools": generated,
            "codegen_seconds": codegen_seconds,
            "failures": len(failures),
        }
        Path(args.json_report).write_text(json.dumps(figures, indent=1), encoding="utf-8")
    if not failures:
        print("fuzz: no failures")
        return 0
    print(f"FAIL: {len(failures)} failures", file=sys.stderr)
    for number, (major, python, failure, where) in enumerate(failures):
        print(
            f"\n--- pydantic {major}, seed {where['seed']}, {failure['kind']}:\n"
            + failure["detail"],
            file=sys.stderr,
        )
        if number < args.max_shrinks and where["tool"]:
            minimal, detail = shrink_failure(
                args.codegen,
                python,
                where["tool"],
                failure["kind"],
                {**where, "detail": failure["detail"]},
                args.shrink_budget,
            )
            print(
                "minimal failing tool:\n"
                + json.dumps(minimal, indent=1, ensure_ascii=False)
                + f"\nits failure: {detail}",
                file=sys.stderr,
            )
    return 1


if __name__ == "__main__":
    sys.exit(main())
