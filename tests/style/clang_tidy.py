"""The lint tier: clang-tidy, with the checks in .clang-tidy, over every translation unit of
native/ in the build's compile_commands.json. Any diagnostic fails the test.

    python3 tests/style/clang_tidy.py --build-dir build [--jobs N] [--under DIR] [--shard K/N]
                                      [--except DIR ...] [FILE ...]

--under limits the run to the sources below DIR (e.g. native/app), --except leaves out those
below another, FILE limits it to those sources (paths relative to the repository), and --shard
to every N-th of them, starting with the K-th (1-based), so that a module can be split over
several ctest tests. The checks are a small set that finds real bugs (bugprone-*, performance-*,
four modernize-* ones); what each leaves out, and why, is written in .clang-tidy.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def sources(build_dir: Path, under: str, only: list[str]) -> list[str]:
    database = json.loads((build_dir / "compile_commands.json").read_text())
    native = (ROOT / under).resolve()
    found = sorted(
        {
            str(Path(entry["directory"], entry["file"]).resolve())
            for entry in database
            if Path(entry["directory"], entry["file"]).resolve().is_relative_to(native)
        }
    )
    if only:
        wanted = {str((ROOT / name).resolve()) for name in only}
        found = [name for name in found if name in wanted]
    return found


# Boost 1.74's Asio enables co_await for GCC only; clang-tidy (clang 14, libstdc++ 12) parses the
# same code, coroutines included, once told that they are there.
CLANG_ARGUMENTS = ["-DBOOST_ASIO_HAS_CO_AWAIT=1", "-DBOOST_ASIO_HAS_STD_COROUTINE=1"]


def tidy(tool: str, build_dir: Path, source: str) -> tuple[str, int, str]:
    extra = [f"--extra-arg={argument}" for argument in CLANG_ARGUMENTS]
    result = subprocess.run(
        [tool, "-p", str(build_dir), "--quiet", "--warnings-as-errors=*", *extra, source],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    # clang-tidy prints "N warnings generated." for the headers it filtered out: not findings.
    lines = [
        line
        for line in (result.stdout + result.stderr).splitlines()
        if line.strip() and not line.rstrip().endswith("generated.")
    ]
    return source, result.returncode, "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", type=Path, required=True)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--under", default="native")
    parser.add_argument("--shard", default="1/1", help="K/N: every N-th source from the K-th")
    parser.add_argument(
        "--except",
        dest="excepted",
        action="append",
        default=[],
        help="leave out the sources below this folder (repeatable); with it, finding none is fine",
    )
    parser.add_argument("files", nargs="*")
    arguments = parser.parse_args()
    tool = shutil.which("clang-tidy")
    if tool is None:
        print("clang-tidy is not installed (Debian: apt install clang-tidy)", file=sys.stderr)
        return 1
    todo = sources(arguments.build_dir.resolve(), arguments.under, arguments.files)
    for folder in arguments.excepted:
        below = (ROOT / folder).resolve()
        todo = [name for name in todo if not Path(name).is_relative_to(below)]
    if not todo and arguments.excepted:
        print(f"clang-tidy: no sources below {arguments.under} outside the folders excepted")
        return 0
    shard, shards = (int(part) for part in arguments.shard.split("/"))
    if not 1 <= shard <= shards:
        print(f"--shard {arguments.shard}: K must be between 1 and N", file=sys.stderr)
        return 2
    todo = todo[shard - 1 :: shards]
    if not todo:
        print(f"no sources below {arguments.under} in compile_commands.json", file=sys.stderr)
        return 1
    failed = 0
    with ThreadPoolExecutor(max_workers=arguments.jobs) as pool:
        for source, status, output in pool.map(
            lambda name: tidy(tool, arguments.build_dir.resolve(), name), todo
        ):
            if status != 0:
                failed += 1
                print(f"--- {os.path.relpath(source, ROOT)}\n{output}\n")
    print(f"clang-tidy: {len(todo)} translation units, {failed} with findings")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
