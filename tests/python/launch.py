"""Runs the Python tests under an interpreter whose pydantic has the requested major version.

    /usr/bin/python3 tests/python/launch.py --pydantic 1|2 [--suite runtime|sdk]

The runtime suite is run_all.py (the kernel-side package and the golden generated code); the
sdk suite is sdk/run_sdk.py (ipybox_native driving the binary in $IPYBOX_BIN).

Candidates, first match wins: $IPYBOX_TEST_PYTHON_PYDANTIC<major>, /usr/bin/python3, python3 on
PATH, then every pyenv version (~/.pyenv and /root/.pyenv). A missing interpreter is a failure,
never a skip: CI must run both versions.
"""

from __future__ import annotations

import argparse
import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROBE = "import pydantic; print(pydantic.VERSION)"


def candidates(major: int) -> list[str]:
    found: list[str] = []
    override = os.environ.get(f"IPYBOX_TEST_PYTHON_PYDANTIC{major}")
    if override:
        found.append(override)
    found.append("/usr/bin/python3")
    on_path = shutil.which("python3")
    if on_path:
        found.append(on_path)
    for root in (Path.home() / ".pyenv", Path("/root/.pyenv")):
        found.extend(sorted(glob.glob(str(root / "versions" / "*" / "bin" / "python3"))))
    unique: list[str] = []
    for path in found:
        if path not in unique and os.access(path, os.X_OK):
            unique.append(path)
    return unique


def pydantic_version(python: str) -> str | None:
    try:
        probe = subprocess.run([python, "-c", PROBE], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return probe.stdout.strip() if probe.returncode == 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pydantic", type=int, choices=(1, 2), required=True)
    parser.add_argument("--suite", choices=("runtime", "sdk"), default="runtime")
    parser.add_argument("unittest_args", nargs="*")
    args = parser.parse_args()
    tried = []
    for python in candidates(args.pydantic):
        version = pydantic_version(python)
        tried.append(f"{python} (pydantic {version or 'missing'})")
        if version and version.split(".")[0] == str(args.pydantic):
            print(f"running the Python tests with {python}, pydantic {version}", flush=True)
            if args.suite == "sdk":
                command = [python, str(HERE / "sdk" / "run_sdk.py")]
            else:
                command = [
                    python,
                    str(HERE / "run_all.py"),
                    "--expect-pydantic",
                    str(args.pydantic),
                ]
            return subprocess.call(command + args.unittest_args)
    print(
        f"FAIL: no Python interpreter with pydantic {args.pydantic}.x found; tried:\n  "
        + "\n  ".join(tried)
        + f"\nSet IPYBOX_TEST_PYTHON_PYDANTIC{args.pydantic} to one.",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
