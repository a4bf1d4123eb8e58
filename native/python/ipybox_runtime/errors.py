"""Errors raised inside the kernel when a tool call fails.

The class names appear in tracebacks that agents read, so they match the reference
implementation: ``ToolRunnerError`` and its ``Approval*`` subclasses.
"""

from typing import Any, List

from .short_traceback import ShortTraceback

__all__ = [
    "ToolError",
    "ToolRunnerError",
    "ApprovalRejectedError",
    "ApprovalTimeoutError",
    "ToolServerUnavailableError",
]


class ToolRunnerError(ShortTraceback, Exception):
    """A tool call failed: the tool reported an error, or the tool server refused the call.

    Shown in a cell without ipybox's own frames (``short_traceback``)."""


class ApprovalRejectedError(ToolRunnerError):
    """The user (or the approval policy) rejected the tool call."""


class ApprovalTimeoutError(ToolRunnerError):
    """Nobody decided on the tool call before the approval timeout expired."""


class ToolServerUnavailableError(ToolRunnerError):
    """The ipybox tool server is not configured for this kernel or cannot be reached."""


class ToolError(ToolRunnerError):
    """The tool ran and reported an error (``isError``); the message is its text.

    ``content`` holds every content item of the result (``tool_client.ContentItem``: text,
    images and audio saved as files, resources, resource links), ``output`` the whole
    ``ToolOutput`` (``structured`` included).
    """

    def __init__(self, message: str, output: Any = None) -> None:
        super().__init__(message)
        self.output = output
        self.content: List[Any] = list(getattr(output, "content", None) or [])
