"""Errors raised inside the kernel when a tool call fails.

The class names appear in tracebacks that agents read, so they match the reference
implementation: ``ToolRunnerError`` and its ``Approval*`` subclasses.
"""

__all__ = [
    "ToolRunnerError",
    "ApprovalRejectedError",
    "ApprovalTimeoutError",
    "ToolServerUnavailableError",
]


class ToolRunnerError(Exception):
    """A tool call failed: the tool reported an error, or the tool server refused the call."""


class ApprovalRejectedError(ToolRunnerError):
    """The user (or the approval policy) rejected the tool call."""


class ApprovalTimeoutError(ToolRunnerError):
    """Nobody decided on the tool call before the approval timeout expired."""


class ToolServerUnavailableError(ToolRunnerError):
    """The ipybox tool server is not configured for this kernel or cannot be reached."""
