"""Lets kernel code start processes only through shell commands (an IPython extension).

ipybox loads this extension after ``shell_approval`` when the host asks for both shell-command
approval and the shell escape (``require_shell_escape`` in the Python SDK). From then on
``subprocess.Popen`` (and so ``subprocess.run``, ``check_output``, asyncio's subprocesses),
``os.system``, the ``os.exec*``, ``os.spawn*`` and ``os.posix_spawn*`` functions and
``pty.spawn`` raise ``RuntimeError`` ("Direct ... calls are not allowed. Use ! syntax."), except
while a shell command (``!cmd``, ``x = !cmd``, ``%%bash`` ...) runs, which the host has approved.

The allowance is process-wide while an approved command runs (IPython runs script cell magics
on a thread of its own), so another thread of the kernel could start a process in that window;
``ctypes``, ``os.fork`` and ``_posixsubprocess`` are not guarded at all. Like shell approval,
this is a review aid, not a security boundary: the sandbox is what confines kernel code.
"""

from __future__ import annotations

import functools
import os
import pty
import subprocess
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator

from .shell_approval import script_magics_of

__all__ = ["load_ipython_extension"]

_INSTALLED_MARK = "_ipybox_shell_escape_installed"
_OS_FUNCTIONS = (
    "execv",
    "execve",
    "execl",
    "execle",
    "execvp",
    "execvpe",
    "execlp",
    "execlpe",
    "spawnv",
    "spawnve",
    "spawnvp",
    "spawnvpe",
    "spawnl",
    "spawnle",
    "spawnlp",
    "spawnlpe",
    "posix_spawn",
    "posix_spawnp",
)


class _Allowance:
    """How many approved shell commands are running now (any thread)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running = 0

    @contextmanager
    def held(self) -> Iterator[None]:
        with self._lock:
            self._running += 1
        try:
            yield
        finally:
            with self._lock:
                self._running -= 1

    def granted(self) -> bool:
        # Without the lock: a child forked while another thread held it (pexpect forks before
        # it execs) must not wait for it forever. Reading an int is atomic under the GIL.
        return self._running > 0


_allowance = _Allowance()


def _refusal(what: str) -> RuntimeError:
    return RuntimeError(f"Direct {what} calls are not allowed. Use ! syntax.")


def _guarded(function: Callable[..., Any], what: str) -> Callable[..., Any]:
    @functools.wraps(function)
    def guard(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        if not _allowance.granted():
            raise _refusal(what)
        return function(*args, **kwargs)

    return guard


def _guard_process_creation() -> None:
    original_init = subprocess.Popen.__init__

    @functools.wraps(original_init)
    def popen_init(self: Any, *args: Any, **kwargs: Any) -> None:
        __tracebackhide__ = True
        if not _allowance.granted():
            raise _refusal("subprocess")
        original_init(self, *args, **kwargs)

    subprocess.Popen.__init__ = popen_init  # type: ignore[method-assign]
    os.system = _guarded(os.system, "os.system()")
    for name in _OS_FUNCTIONS:
        if hasattr(os, name):
            setattr(os, name, _guarded(getattr(os, name), f"os.{name}()"))
    pty.spawn = _guarded(pty.spawn, "pty.spawn()")


def _allow_while(function: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(function)
    def allowed(*args: Any, **kwargs: Any) -> Any:
        __tracebackhide__ = True
        with _allowance.held():
            return function(*args, **kwargs)

    return allowed


def load_ipython_extension(shell: Any) -> None:
    if getattr(shell, _INSTALLED_MARK, False):
        return
    # Around the approving wrappers of shell_approval: the command asks first, then runs with
    # process creation allowed (a rejection raises before anything runs).
    shell.system = _allow_while(shell.system)
    shell.getoutput = _allow_while(shell.getoutput)
    script_magics = script_magics_of(shell)
    if script_magics is not None:
        approving = script_magics.shebang
        allowed = _allow_while(approving)
        allowed.__dict__.update(vars(getattr(approving, "__func__", approving)))
        script_magics.shebang = allowed
        cell_magics = shell.magics_manager.magics["cell"]
        if cell_magics.get("script") is approving:
            cell_magics["script"] = allowed
    _guard_process_creation()
    setattr(shell, _INSTALLED_MARK, True)
