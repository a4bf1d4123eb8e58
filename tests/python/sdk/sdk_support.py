"""What the SDK tests share: the package and the binary under test, the echo MCP server, and
helpers to see which processes are still alive.

The binary is ``$IPYBOX_BIN`` (ctest sets it to the build's); the package is the installed
``ipybox_native`` when ``IPYBOX_SDK_FROM_SOURCE`` is unset and one is importable, else the
source in packaging/python.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Iterable

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
ECHO_SERVER = HERE / "echo_mcp_server.py"
ECHO_PARAMS = {"command": sys.executable, "args": [str(ECHO_SERVER)]}


def prepare() -> None:
    if not os.environ.get("IPYBOX_BIN"):
        raise SystemExit("FAIL: set IPYBOX_BIN to the ipybox binary under test")
    source = str(REPO / "packaging" / "python")
    if os.environ.get("IPYBOX_SDK_FROM_SOURCE", "1") == "1" and source not in sys.path:
        sys.path.insert(0, source)


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def descendants(pid: int) -> list[int]:
    """Every process below `pid`, found through /proc/<pid>/task/*/children."""
    found: list[int] = []
    pending = [pid]
    while pending:
        parent = pending.pop()
        for task in Path(f"/proc/{parent}/task").glob("*"):
            try:
                children = (task / "children").read_text().split()
            except OSError:
                continue
            for child in map(int, children):
                if child not in found:
                    found.append(child)
                    pending.append(child)
    return found


def wait_until_gone(pids: Iterable[int], seconds: float = 15.0) -> list[int]:
    """Waits for every pid to end; returns those still running after `seconds`."""
    left = list(pids)
    deadline = time.monotonic() + seconds
    while left and time.monotonic() < deadline:
        left = [pid for pid in left if alive(pid)]
        time.sleep(0.05)
    return left


class Gate:
    """A file a cell waits for, so that a test orders the kernel's steps by what it has seen
    rather than by time: ``gate.wait_code(...)`` is kernel code that waits for ``gate.open()``
    (at most `seconds`) and then runs what it was given; if the gate never opens it prints
    ``gate.NEVER_OPENED`` instead."""

    NEVER_OPENED = "[the gate never opened]"

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / "gate"

    def open(self) -> None:
        self.path.touch()

    def wait_code(self, then: str, seconds: float = 30.0) -> str:
        return (
            "import os as _os, time as _time\n"
            f"_deadline = _time.monotonic() + {seconds}\n"
            f"while not _os.path.exists({str(self.path)!r}) and _time.monotonic() < _deadline:\n"
            "    _time.sleep(0.01)\n"
            f"if _os.path.exists({str(self.path)!r}):\n"
            + "".join(f"    {line}\n" for line in then.splitlines())
            + "else:\n"
            f"    print({self.NEVER_OPENED!r}, flush=True)\n"
        )
