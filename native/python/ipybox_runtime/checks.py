"""Checks that saved code actions still work: ``check()`` in the kernel, ``ipybox gentools check``.

Each action is checked in a fresh interpreter (so nothing the current kernel imported or
defined hides a problem):

1. its interface imports on its own: ``gentools.<category>.<name>.api`` (and the package) with
   ``impl`` made unimportable, since agents read and import ``api.py`` without the work;
2. the package imports with ``impl`` (its imports resolve);
3. the examples in ``api.py``'s docstrings run, doctest style. Tool calls in them go through
   ipybox's tool server and its approval like any other; an example whose call was refused
   (``--approve none``) counts as not run, not as failed.

Before that, its files are read (not run) for what is unfinished or stale, each a named
finding that fails the check: ``scaffold`` (the scaffold's TODO text is still there),
``not-implemented`` (``run`` raises ``NotImplementedError``), ``signature`` (``api.run`` and
``impl.run`` take different parameters), ``changed-tool`` (an ``mcptools`` module differs from
the one pinned when the action was saved) and ``missing-dependency`` (a server or package this
project lacks, with the call that adds it).

A broken action is reported with the reason and never changed or deleted. Standard library
only (plus what the action itself imports).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from typing import List, Optional, Sequence, Union

from . import library
from .action_findings import findings
from .short_traceback import ShortTraceback

__all__ = ["ActionCheck", "CheckFailedError", "CheckReport", "check"]


class CheckFailedError(ShortTraceback, Exception):
    """save_gentool() refused to save an action whose check failed; the message lists why.

    Shown in a cell without ipybox's own frames (``short_traceback``)."""


_RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@dataclass(frozen=True)
class ActionCheck:
    module: str
    origin: str
    ok: bool
    reason: str  # why it is broken; for a working action what was checked
    examples_run: int = 0
    examples_refused: int = 0

    def __str__(self) -> str:
        status = "ok" if self.ok else "BROKEN"
        return f"{status:6}  {self.module} ({self.origin}): {self.reason}"


class CheckReport(List[ActionCheck]):
    """The checks of every action; ``ok`` when none is broken."""

    @property
    def ok(self) -> bool:
        return all(item.ok for item in self)

    def __str__(self) -> str:
        if not self:
            return "no saved actions to check"
        broken = sum(1 for item in self if not item.ok)
        lines = [str(item) for item in self]
        lines.append(f"{len(self)} actions checked, {broken} broken")
        return "\n".join(lines)

    __repr__ = __str__


# Runs in the fresh interpreter: argv[1] is the action's module. Prints one JSON line.
_CHILD = r"""
import doctest, importlib, importlib.abc, json, sys
from ipybox_runtime import library
library.install()
module = sys.argv[1]

class BlockImpl(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == module + ".impl":
            raise ImportError("impl.py is not importable during this step")
        return None

def step(what, action):
    try:
        return action()
    except BaseException as error:
        print(json.dumps({"ok": False, "reason": f"{what}: {type(error).__name__}: {error}"}))
        sys.exit(0)

blocker = BlockImpl()
sys.meta_path.insert(0, blocker)
api = step("api.py does not import without impl.py",
           lambda: importlib.import_module(module + ".api"))
step("the package does not import without impl.py", lambda: importlib.import_module(module))
sys.meta_path.remove(blocker)
step("impl.py does not import", lambda: importlib.import_module(module + ".impl"))

refused = 0
class Runner(doctest.DocTestRunner):
    def report_unexpected_exception(self, out, test, example, exc_info):
        global refused
        if exc_info[0].__name__ == "ApprovalRejectedError":
            refused += 1
            return
        super().report_unexpected_exception(out, test, example, exc_info)

finder = doctest.DocTestFinder()
runner = Runner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
output = []
for test in finder.find(api, module + ".api"):
    runner.run(test, out=output.append)
result = runner.summarize(verbose=False)
if result.failed > refused:  # doctest counts a refused call as a failure; it is not one here
    text = "".join(output).strip().splitlines()
    print(json.dumps({"ok": False, "reason": "an example in api.py failed: "
                      + " | ".join(line.strip() for line in text[:12] if line.strip())}))
else:
    print(json.dumps({"ok": True, "run": result.attempted - refused, "refused": refused}))
"""


def _check_one(
    location: library.ActionLocation, workspace: str, python: str, timeout: float
) -> ActionCheck:
    environment = dict(os.environ)
    path = [_RUNTIME_DIR, workspace] + [
        entry for entry in environment.get("PYTHONPATH", "").split(os.pathsep) if entry
    ]
    environment["PYTHONPATH"] = os.pathsep.join(path)
    environment["IPYBOX_WORKSPACE"] = workspace
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    origin = location.root.origin
    found = findings(location, workspace)
    if found:
        return ActionCheck(location.module, origin, False, "; ".join(found))
    try:
        child = subprocess.run(
            [python, "-c", _CHILD, location.module],
            cwd=workspace,
            env=environment,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return ActionCheck(location.module, origin, False, f"did not finish in {timeout:g} s")
    lines = [line for line in child.stdout.splitlines() if line.startswith("{")]
    try:
        outcome = json.loads(lines[-1])
    except (IndexError, ValueError):
        tail = (child.stderr or child.stdout).strip().splitlines()[-3:]
        return ActionCheck(
            location.module, origin, False, "the check itself failed: " + " | ".join(tail)
        )
    if not outcome.get("ok"):
        return ActionCheck(location.module, origin, False, outcome.get("reason", "broken"))
    run, refused = int(outcome.get("run", 0)), int(outcome.get("refused", 0))
    reason = f"imports (api.py without impl.py); {run} examples ran"
    if refused:
        reason += f", {refused} not run (tool calls refused)"
    return ActionCheck(location.module, origin, True, reason, run, refused)


def check(
    names: Optional[Sequence[str]] = None,
    *,
    workspace: Union[str, "os.PathLike[str]", None] = None,
    python: Optional[str] = None,
    timeout: float = 300,
) -> CheckReport:
    """Checks the saved actions (all, or those whose module or ``category.name`` is in
    ``names``) and returns the report; it prints one line per action and is ``ok`` when none
    is broken. Nothing is changed or deleted."""
    base = library.workspace_path(workspace)
    report = CheckReport()
    for location in library.actions(base):
        short = f"{location.category}.{location.name}"
        if names and location.module not in names and short not in names:
            continue
        report.append(_check_one(location, str(base), python or sys.executable, timeout))
    return report


def check_json(workspace: Union[str, "os.PathLike[str]", None] = None) -> str:
    """``check()`` as JSON (for ``ipybox gentools check``)."""
    report = check(workspace=workspace)
    return json.dumps(
        [
            {"module": item.module, "origin": item.origin, "ok": item.ok, "reason": item.reason}
            for item in report
        ]
    )
