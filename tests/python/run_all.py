"""Runs every tests/python/test_*.py with unittest, the runtime and golden packages importable.

    python3 tests/python/run_all.py [--expect-pydantic N] [unittest names...]

Works from any current directory; the tests themselves run inside a scratch directory so that a
payload that escaped (a file named PWNED) would be caught.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--expect-pydantic", type=int)
    parser.add_argument("names", nargs="*")
    args = parser.parse_args()
    sys.dont_write_bytecode = True  # keep __pycache__ out of the golden directories
    sys.path.insert(0, str(HERE))
    import support  # noqa: E402 - needs HERE on sys.path

    support.prepare_import_path()
    import pydantic

    major = int(pydantic.VERSION.split(".")[0])
    if args.expect_pydantic is not None and major != args.expect_pydantic:
        print(
            f"FAIL: expected pydantic {args.expect_pydantic}.x, got {pydantic.VERSION}",
            file=sys.stderr,
        )
        return 1
    return support.run_tests(HERE, args.names)


if __name__ == "__main__":
    sys.exit(main())
