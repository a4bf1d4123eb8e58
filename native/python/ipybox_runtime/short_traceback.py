"""How ipybox's own exceptions show in a cell: the frames of the code that called, the message once.

An error of a tool call is raised several frames below the agent's line, in the runtime and in
the generated ``mcptools`` module (whose frame shows the tool's whole docstring): kilobytes an
agent reads on every failure and can do nothing with. IPython asks an exception for its
traceback through ``_render_traceback_``; ipybox's exceptions answer with the usual one, minus
those frames. Exceptions of other kinds, and those an agent's own code raises, are untouched.

A value a typed API refuses raises pydantic's ``ValidationError``, which cannot carry that method:
loaded as an IPython extension, this module shows such an error without the frames from the
first of ipybox's on (ipybox's models, then pydantic's own), so an agent reads its line and the
message, not a kilobyte of validator internals. A ``ValidationError`` of the agent's own models
never passes through ipybox's frames and is shown whole.
"""

from __future__ import annotations

import os
import types
from typing import Any, Callable, List, Optional, Tuple

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


def callers_part(tb: Optional[types.TracebackType]) -> Optional[types.TracebackType]:
    """A copy of the traceback ``tb`` up to its first frame of the runtime or of a generated
    module, that frame and everything below it left out; ``tb`` itself when it has none, or
    when that is its first frame (nothing of the caller would remain)."""
    kept: List[types.TracebackType] = []
    entry = tb
    while entry is not None and not _internal(entry.tb_frame):
        kept.append(entry)
        entry = entry.tb_next
    if entry is None or not kept:
        return tb
    rebuilt: Optional[types.TracebackType] = None
    for frame in reversed(kept):
        rebuilt = types.TracebackType(rebuilt, frame.tb_frame, frame.tb_lasti, frame.tb_lineno)
    return rebuilt


def _from_pydantic(error: BaseException) -> bool:
    module = type(error).__module__ or ""
    return type(error).__name__ == "ValidationError" and module.split(".")[0] in (
        "pydantic",
        "pydantic_core",
    )


def _show_value_error(shell: Any, etype, value, tb, tb_offset=None) -> None:
    if _from_pydantic(value):
        tb = callers_part(tb)
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)


Handler = Callable[..., None]
_HANDLERS = "_ipybox_error_handlers"


def add_error_handler(shell: Any, kinds: Tuple[type, ...], handler: Handler) -> None:
    """Has IPython show an exception of ``kinds`` that ends a cell through ``handler(shell,
    etype, value, tb, tb_offset)``. IPython keeps one such handler for one tuple of types;
    ipybox's extensions share it through this, the first handler whose kinds match winning."""
    handlers: List[Tuple[Tuple[type, ...], Handler]] = getattr(shell, _HANDLERS, [])
    handlers.append((kinds, handler))
    setattr(shell, _HANDLERS, handlers)

    def dispatch(shell: Any, etype, value, tb, tb_offset=None) -> None:
        for handled, handle in handlers:
            if isinstance(value, handled):
                return handle(shell, etype, value, tb, tb_offset)
        shell.showtraceback((etype, value, tb), tb_offset=tb_offset)  # pragma: no cover

    # run_code ignores what a custom handler returns: each shows the traceback itself.
    shell.set_custom_exc(tuple(kind for handled, _ in handlers for kind in handled), dispatch)


def load_ipython_extension(shell: Any) -> None:
    # pydantic's ValidationError (of either major) is a ValueError: no import of pydantic here.
    add_error_handler(shell, (ValueError,), _show_value_error)
