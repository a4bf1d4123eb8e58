"""Calls MCP tools from kernel code through the ipybox tool server.

The host runs the tool server on a Unix socket in a private directory and gives the kernel two
environment variables: ``IPYBOX_TOOL_SOCKET`` (the socket path) and ``IPYBOX_TOOL_TOKEN`` (the
session token). A call is one HTTP/1.1 request, ``POST /run`` with a JSON body
``{"server_name", "tool_name", "tool_args"}``; the host asks for approval, calls the MCP server
and answers ``{"result": {...}}`` or ``{"error": {"type", "message"}}``. When shell-command
approval is on, ``POST /shell`` with ``{"tool_name": "shell" | "shell_magic", "tool_args":
{"cmd", ...}}`` asks before a shell command runs and answers ``{"approved": true}`` or an error.
Under ``--sandbox``, ``POST /gentools`` asks the host to save a code action into the user's
library, which the kernel may read but not write (``save_gentool``).

Standard library only. Thread-safe: every call uses its own connection.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import socket
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from . import tool_http
from .errors import (
    ApprovalRejectedError,
    ApprovalTimeoutError,
    ToolError,
    ToolRunnerError,
    ToolServerUnavailableError,
)

__all__ = [
    "ContentItem",
    "TextResult",
    "ToolOutput",
    "add_dependencies",
    "call_tool",
    "request_shell_approval",
    "save_gentool",
]

SOCKET_VARIABLE = "IPYBOX_TOOL_SOCKET"
TOKEN_VARIABLE = "IPYBOX_TOOL_TOKEN"
TIMEOUT_VARIABLE = "IPYBOX_TOOL_TIMEOUT"

_ERROR_CLASSES = {
    "rejected": ApprovalRejectedError,
    "timeout": ApprovalTimeoutError,
    # Answers of POST /gentools.
    "exists": FileExistsError,
    "unsafe_path": PermissionError,
}


@dataclasses.dataclass(frozen=True)
class ContentItem:
    """One content block of a tool result, as kernel code can use it.

    ``type`` is ``"text"`` (``text``), ``"image"`` or ``"audio"`` (``path``: the file the host
    saved, ``mime_type``), ``"resource"`` (an embedded resource: ``uri``, ``mime_type``, and
    ``text`` for text or ``path`` for a blob saved as a file) or ``"resource_link"`` (``uri``,
    ``name``, ``mime_type``, ``title``, ``description``). Members a block does not have are
    ``None``; ``path`` is ``None`` too when the server's data was not valid base64.
    """

    type: str
    text: Optional[str] = None
    path: Optional[pathlib.Path] = None
    mime_type: Optional[str] = None
    uri: Optional[str] = None
    name: Optional[str] = None
    title: Optional[str] = None
    description: Optional[str] = None

    @classmethod
    def from_json(cls, item: Mapping[str, Any]) -> "ContentItem":
        def text(key: str) -> Optional[str]:
            value = item.get(key)
            return value if isinstance(value, str) else None

        path = text("path")
        return cls(
            type=text("type") or "unknown",
            text=text("text"),
            path=pathlib.Path(path) if path else None,
            mime_type=text("mime_type"),
            uri=text("uri"),
            name=text("name"),
            title=text("title"),
            description=text("description"),
        )


class _ContentViews:
    """The content items of one type, for classes with a ``content`` list."""

    content: List[ContentItem]

    @property
    def audio(self) -> List[ContentItem]:
        """Audio content, saved as files (``path``, ``mime_type``)."""
        return [item for item in self.content if item.type == "audio"]

    @property
    def resources(self) -> List[ContentItem]:
        """Embedded resources (``uri``, ``mime_type``, ``text`` or a saved blob's ``path``)."""
        return [item for item in self.content if item.type == "resource"]

    @property
    def resource_links(self) -> List[ContentItem]:
        """Links to resources (``uri``, ``name``, ``mime_type``)."""
        return [item for item in self.content if item.type == "resource_link"]


@dataclasses.dataclass(frozen=True)
class ToolOutput(_ContentViews):
    """What one tool call returned."""

    text: str
    """The text content blocks of the result, joined by newlines."""
    structured: Any = None
    """The ``structuredContent`` of the result, if the server sent one."""
    images: List[pathlib.Path] = dataclasses.field(default_factory=list)
    """Absolute paths of image content the host saved to files."""
    is_error: bool = False
    content: List[ContentItem] = dataclasses.field(default_factory=list)
    """Every content block, in the server's order."""


class TextResult(_ContentViews, str):
    """The text a tool returned, with every other content item attached.

    A ``str`` subclass, so it prints, compares and slices like the text itself. ``images``
    holds the paths of saved images; ``content`` every content block (``ContentItem``), and
    ``audio``, ``resources`` and ``resource_links`` those of one type; ``structured`` the
    ``structuredContent``, if any.
    """

    images: List[pathlib.Path]
    structured: Any
    content: List[ContentItem]

    def __new__(
        cls,
        text: str = "",
        images: Iterable[Union[str, os.PathLike]] = (),
        structured: Any = None,
        content: Iterable[ContentItem] = (),
    ) -> "TextResult":
        result = super().__new__(cls, text)
        result.images = [pathlib.Path(image) for image in images]
        result.structured = structured
        result.content = list(content)
        return result

    @classmethod
    def from_output(cls, output: ToolOutput) -> "TextResult":
        return cls(output.text, output.images, output.structured, output.content)


def call_tool(server_name: str, tool_name: str, arguments: Mapping[str, Any]) -> ToolOutput:
    """Calls ``tool_name`` of MCP server ``server_name`` and returns its output.

    Blocks until the host answers; the host enforces approval and tool timeouts, and
    ``IPYBOX_TOOL_TIMEOUT`` (seconds) can bound the wait here too (default: none).

    Raises ``ApprovalRejectedError`` / ``ApprovalTimeoutError`` when the call was not approved,
    ``ToolServerUnavailableError`` when the tool server is not configured or not reachable,
    ``ToolError`` (a ``ToolRunnerError`` carrying every content item) when the tool reported an
    error, and ``ToolRunnerError`` for every other failure.
    """
    label = f"{server_name}.{tool_name}"
    status, payload = _post(
        "/run",
        {"server_name": server_name, "tool_name": tool_name, "tool_args": dict(arguments)},
        label,
    )
    return _output_from_response(status, payload)


def request_shell_approval(kind: str, arguments: Mapping[str, Any]) -> None:
    """Asks the host to approve a shell command before it runs.

    ``kind`` is ``"shell"`` (``!cmd``, ``!!cmd``, ``x = !cmd``) or ``"shell_magic"``
    (``%%bash``, ``%%sh``, ``%%script`` ...). Returns when approved; raises like
    ``call_tool`` otherwise.
    """
    __tracebackhide__ = True  # IPython leaves these frames out of the tracebacks agents read
    status, payload = _post(
        "/shell", {"tool_name": kind, "tool_args": dict(arguments)}, f"ipybox.{kind}"
    )
    document = _error_or_document(status, payload)
    if not (isinstance(document, dict) and document.get("approved") is True):
        raise ToolRunnerError("the ipybox tool server sent a malformed answer (no approval)")


def save_gentool(
    category: str,
    name: str,
    files: Mapping[str, str],
    *,
    category_init: Optional[str] = None,
    overwrite: bool = False,
) -> pathlib.Path:
    """Asks the host to write a code action into the user's gentools library; returns its folder.

    ``files`` holds the action's ``__init__.py``, ``api.py`` and ``impl.py``; ``category_init``
    is written as the category's ``__init__.py`` where it has none. The host asks a person (an
    approval policy names it ``ipybox.save_gentool``) and writes without following links.

    Raises ``FileExistsError`` when a file of the action exists and ``overwrite`` is false,
    ``PermissionError`` when a link or a foreign file is in the way, ``ApprovalRejectedError`` /
    ``ApprovalTimeoutError`` when not approved, ``ToolServerUnavailableError`` outside a kernel
    started by ipybox, and ``ToolRunnerError`` for a refused request (bad name, file or size).
    """
    request = {
        "category": category,
        "name": name,
        "files": dict(files),
        "category_init": category_init,
        "overwrite": overwrite,
    }
    status, payload = _post("/gentools", request, f"saving gentools.{category}.{name}")
    document = _error_or_document(status, payload)
    package = document.get("package") if isinstance(document, dict) else None
    if not isinstance(package, str):
        raise ToolRunnerError("the ipybox tool server sent a malformed answer (no package)")
    return pathlib.Path(package)


def add_dependencies(
    action: str, servers: Mapping[str, Any], packages: Sequence[Mapping[str, Any]]
) -> str:
    """Asks the host to register ``servers`` (name -> recorded registration) and install
    ``packages`` (``{"spec": str, "for_user": bool}``) for the saved action ``action``; returns
    the host's report. The host asks a person (an approval policy names it
    ``ipybox.add_dependencies``; no wildcard or default allows it) and shows every server's
    registration and every package in full.

    Raises ``ApprovalRejectedError`` / ``ApprovalTimeoutError`` when not approved,
    ``ToolServerUnavailableError`` outside a kernel started by ipybox, and ``ToolRunnerError``
    when the host refuses the request or cannot add everything (the report says what).
    """
    __tracebackhide__ = True
    request = {"action": action, "servers": dict(servers), "packages": list(packages)}
    status, payload = _post("/dependencies", request, f"the dependencies of {action}")
    document = _error_or_document(status, payload)
    report = document.get("report") if isinstance(document, dict) else None
    if not isinstance(report, str):
        raise ToolRunnerError("the ipybox tool server sent a malformed answer (no report)")
    return report


def _post(path: str, request: Mapping[str, Any], label: str) -> Tuple[int, bytes]:
    """One request to the tool server: returns (HTTP status, body) or raises."""
    socket_path = os.environ.get(SOCKET_VARIABLE)
    token = os.environ.get(TOKEN_VARIABLE)
    if not socket_path or not token:
        raise ToolServerUnavailableError(
            "the ipybox tool server is not configured for this Python process "
            f"({SOCKET_VARIABLE} and {TOKEN_VARIABLE} are not set); generated tool modules "
            "work inside a kernel started by ipybox"
        )
    timeout = _timeout()
    try:
        body = json.dumps(request, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as error:
        raise ToolRunnerError(f"the arguments of {label} are not JSON: {error}") from None

    try:
        return tool_http.post(socket_path, path, token, body, timeout)
    except (FileNotFoundError, ConnectionRefusedError) as error:
        raise ToolServerUnavailableError(
            f"the ipybox tool server is not running (cannot connect to {socket_path}: "
            f"{error.strerror or error})"
        ) from None
    except socket.timeout:
        raise ToolRunnerError(
            f"no answer from the ipybox tool server within {timeout:g} s "
            f"({TIMEOUT_VARIABLE}) for {label}"
        ) from None
    except (OSError, tool_http.ProtocolError) as error:
        raise ToolServerUnavailableError(
            f"lost the connection to the ipybox tool server: {error}"
        ) from None


def _timeout() -> Optional[float]:
    text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not text or text.lower() == "none":
        return None
    try:
        seconds = float(text)
    except ValueError:
        raise ToolRunnerError(
            f"{TIMEOUT_VARIABLE} must be a number of seconds, not {text!r}"
        ) from None
    return seconds if seconds > 0 else None


def _error_or_document(status: int, payload: bytes) -> Any:
    """The parsed answer; raises the typed error it carries, or for a non-200 status."""
    __tracebackhide__ = True
    try:
        document: Any = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        document = None
    if isinstance(document, dict) and isinstance(document.get("error"), dict):
        error: Dict[str, Any] = document["error"]
        kind = error.get("type")
        message = error.get("message")
        if not isinstance(message, str) or not message:
            message = f"the tool call failed ({kind or 'unknown error'})"
        raise _ERROR_CLASSES.get(kind, ToolRunnerError)(message)
    if status != 200:
        excerpt = payload[:200].decode("utf-8", "replace")
        raise ToolRunnerError(f"the ipybox tool server answered HTTP {status}: {excerpt}")
    return document


def _output_from_response(status: int, payload: bytes) -> ToolOutput:
    document = _error_or_document(status, payload)
    result = document.get("result") if isinstance(document, dict) else None
    if not isinstance(result, dict):
        raise ToolRunnerError("the ipybox tool server sent a malformed answer (no result object)")
    text = result.get("text")
    content = result.get("content")
    output = ToolOutput(
        text=text if isinstance(text, str) else "",
        structured=result.get("structured"),
        images=[pathlib.Path(path) for path in result.get("images") or () if isinstance(path, str)],
        is_error=result.get("is_error") is True,
        content=[
            ContentItem.from_json(item)
            for item in (content if isinstance(content, list) else ())
            if isinstance(item, dict)
        ],
    )
    if output.is_error:
        raise ToolError(output.text or "the tool reported an error", output)
    return output
