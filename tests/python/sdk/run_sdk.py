"""Runs the SDK tests (tests/python/sdk/test_*.py) with unittest.

    IPYBOX_BIN=<binary> python3 tests/python/sdk/run_sdk.py [unittest names...]

The kernel runs on this interpreter when it has ipykernel, else on the one ipybox finds.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main() -> int:
    sys.dont_write_bytecode = True
    sys.path[:0] = [str(HERE), str(HERE.parent)]
    import sdk_support  # noqa: E402 - needs HERE on sys.path
    import support  # noqa: E402 - tests/python's, for the runner

    sdk_support.prepare()
    return support.run_tests(HERE, sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
