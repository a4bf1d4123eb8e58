"""Asks the host before a shell command from kernel code runs (an IPython extension).

ipybox loads this extension into the kernel when shell-command approval is on. From then on:

* ``!cmd``, ``!!cmd``, ``x = !cmd``, ``%sx``, ``%%!``, aliases such as ``%ls`` and ``%pip`` ask
  for ``ipybox.shell`` with ``{"cmd": <the command>}``;
* ``%%bash``, ``%%sh``, ``%%script <program>`` and the other script cell magics ask for
  ``ipybox.shell_magic`` with ``{"cmd": <the cell>, "interpreter": <program and options>}``.

The command in the request is the one that runs: ``{var}`` and ``$var`` are expanded once, here,
in the caller's scope as IPython would, and the expanded text is what the shell receives (no
second expansion). A rejection raises ``ApprovalRejectedError`` and nothing runs.

This is a review aid, not a security boundary: code in the kernel can still start processes
through ``subprocess`` or ``os``; the sandbox is what confines it.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from .tool_client import request_shell_approval

__all__ = ["load_ipython_extension"]

_INSTALLED_MARK = "_ipybox_shell_approval_installed"


def load_ipython_extension(shell: Any) -> None:
    if getattr(shell, _INSTALLED_MARK, False):
        return
    literal = _LiteralExpansion(shell)
    _wrap_system(shell, literal)
    _wrap_getoutput(shell, literal)
    _wrap_script_magics(shell)
    setattr(shell, _INSTALLED_MARK, True)


class _LiteralExpansion:
    """Replaces ``shell.var_expand`` by one that can be switched off on the current thread.

    The wrappers expand the command themselves and then call IPython's own ``system`` and
    ``getoutput``, which expand again; while switched off, that second expansion returns the
    text unchanged, so ``$$``, ``{{`` and the like are interpreted exactly once.
    """

    def __init__(self, shell: Any) -> None:
        self._expand = shell.var_expand
        self._state = threading.local()
        shell.var_expand = self

    def __call__(self, cmd: str, depth: int = 0, *args: Any, **kwargs: Any) -> str:
        __tracebackhide__ = True
        if getattr(self._state, "off", False):
            return cmd
        # One more frame (this one) lies between the caller and the real var_expand.
        return self._expand(cmd, depth + 1, *args, **kwargs)

    def expand(self, cmd: str, depth: int) -> str:
        """``cmd`` expanded in the scope ``depth`` frames above the caller of this method."""
        return self._expand(cmd, depth + 1)

    def run(self, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        """Calls ``function`` with variable expansion off on this thread."""
        self._state.off = True
        try:
            return function(*args, **kwargs)
        finally:
            self._state.off = False


def _wrap_system(shell: Any, literal: _LiteralExpansion) -> None:
    original = shell.system

    def system(cmd: str) -> Any:
        __tracebackhide__ = True
        command = literal.expand(cmd, depth=1)
        request_shell_approval("shell", {"cmd": command})
        return literal.run(original, command)

    shell.system = system


def _wrap_getoutput(shell: Any, literal: _LiteralExpansion) -> None:
    original = shell.getoutput

    def getoutput(cmd: str, split: bool = True, depth: int = 0) -> Any:
        __tracebackhide__ = True
        command = literal.expand(cmd, depth=depth + 1)
        request_shell_approval("shell", {"cmd": command})
        return literal.run(original, command, split=split)

    shell.getoutput = getoutput


def script_magics_of(shell: Any) -> Any:
    """The shell's ScriptMagics, or None. Indexed, not .get(): IPython 9.18 registers some
    magics lazily, and its registry loads one on a missed index (a .get() finds nothing)."""
    try:
        return shell.magics_manager.registry["ScriptMagics"]
    except KeyError:
        return None


def _wrap_script_magics(shell: Any) -> None:
    # Every script cell magic (%%bash, %%sh, %%perl, ..., %%script) ends in
    # ScriptMagics.shebang(line, cell), where line names the program and its options.
    script_magics = script_magics_of(shell)
    if script_magics is None:
        return
    original = script_magics.shebang

    def shebang(line: str, cell: str) -> Any:
        __tracebackhide__ = True
        request_shell_approval("shell_magic", {"cmd": cell, "interpreter": line})
        return original(line, cell)

    # shebang reads its own argument parser through self.shebang.parser: keep such attributes.
    function = getattr(original, "__func__", original)
    shebang.__dict__.update(vars(function))
    shebang.__doc__ = function.__doc__
    script_magics.shebang = shebang  # the named magics (%%bash ...) call self.shebang
    cell_magics = shell.magics_manager.magics["cell"]
    if "script" in cell_magics:
        cell_magics["script"] = shebang
