"""How ipybox's own exceptions show in a cell: the frames of the code that called, the message once.

An error of a tool call is raised several frames below the agent's line, in the runtime and in
the generated ``mcptools`` module (whose frame shows the tool's whole docstring): kilobytes an
agent reads on every failure and can do nothing with. IPython asks an exception for its
traceback through ``_render_traceback_``; ipybox's exceptions answer with the usual one, minus
those frames. Exceptions of other kinds, and those an agent's own code raises, are untouched.
"""

from __future__ import annotations

import os
import types
from typing import List, Optional

_RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))


def _internal(frame: types.FrameType) -> bool:
    """A frame of the runtime package, or of a module ipybox generated from a tool's schema."""
    if os.path.dirname(os.path.abspath(frame.f_code.co_filename)) == _RUNTIME_DIR:
        return True
    name = frame.f_globals.get("__name__")
    return isinstance(name, str) and name.startswith("mcptools.") and "TOOL_NAME" in frame.f_globals


def without_internal_frames(tb: Optional[types.TracebackType]) -> Optional[types.TracebackType]:
    """A copy of the traceback ``tb`` without the runtime's and generated modules' frames."""
    kept: List[types.TracebackType] = []
    while tb is not None:
        if not _internal(tb.tb_frame):
            kept.append(tb)
        tb = tb.tb_next
    rebuilt: Optional[types.TracebackType] = None
    for entry in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, entry.tb_frame, entry.tb_lasti, entry.tb_lineno)
    return rebuilt


class ShortTraceback:
    """Mixed into ipybox's exceptions: IPython shows them without ipybox's frames."""

    def _render_traceback_(self) -> List[str]:
        error = self if isinstance(self, BaseException) else None
        if error is None:  # pragma: no cover - only mixed into exceptions
            return []
        trimmed = without_internal_frames(error.__traceback__)
        try:
            from IPython import get_ipython

            shell = get_ipython()
        except ImportError:  # pragma: no cover - the runtime always runs in IPython
            shell = None
        if shell is None:
            import traceback

            return traceback.format_exception(type(error), error, trimmed)
        return shell.InteractiveTB.structured_traceback(type(error), error, trimmed)
