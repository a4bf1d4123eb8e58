"""One HTTP/1.1 request to ipybox's tool server over its Unix socket, and its answer.

``http.client`` costs a tool call about half a millisecond of the kernel's time: it sends the
head and the body in two writes (the server wakes for each), and parses the answer's head with
the ``email`` package. The tool server's answers are simple (always a ``Content-Length``, never
chunked), so one write and a small reader suffice. Anything else in an answer is a protocol
error, never guessed at.
"""

from __future__ import annotations

import socket
from typing import Optional, Tuple

_HEAD_LIMIT = 64 * 1024  # the tool server's answer heads are a few hundred bytes
_READ_SIZE = 256 * 1024


class ProtocolError(Exception):
    """The answer is not the HTTP/1.1 the tool server sends."""


def post(
    socket_path: str, path: str, token: str, body: bytes, timeout: Optional[float]
) -> Tuple[int, bytes]:
    """POSTs ``body`` (JSON) to ``path`` with ``token`` as its bearer token and returns the
    answer's (status, body). Raises ``OSError`` (``socket.timeout`` past ``timeout`` seconds
    without progress, ``FileNotFoundError`` / ``ConnectionRefusedError`` when nothing listens)
    and ``ProtocolError``."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {token}\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode("latin-1")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(timeout)
        sock.connect(socket_path)
        sock.sendall(head + body)
        return _read_answer(sock)
    finally:
        sock.close()


def _read_answer(sock: socket.socket) -> Tuple[int, bytes]:
    received = bytearray()
    while True:
        end = received.find(b"\r\n\r\n")
        if end >= 0:
            break
        if len(received) > _HEAD_LIMIT:
            raise ProtocolError(f"the answer's head is longer than {_HEAD_LIMIT} bytes")
        chunk = sock.recv(_READ_SIZE)
        if not chunk:
            raise ProtocolError("the connection closed before the answer's head ended")
        received += chunk
    status, length = _parse_head(bytes(received[:end]))
    early = len(received) - (end + 4)  # body bytes that came with the head
    if early > length:
        raise ProtocolError("the answer is longer than its Content-Length")
    body = bytearray(length)
    body[:early] = received[end + 4 :]
    view = memoryview(body)
    filled = early
    while filled < length:
        count = sock.recv_into(view[filled:], min(length - filled, _READ_SIZE))
        if count == 0:
            raise ProtocolError(
                f"the connection closed after {filled} of the answer's {length} bytes"
            )
        filled += count
    return status, bytes(body)


def _parse_head(head: bytes) -> Tuple[int, int]:
    lines = head.split(b"\r\n")
    parts = lines[0].split(b" ", 2)
    if len(parts) < 2 or not parts[0].startswith(b"HTTP/1.") or not parts[1].isdigit():
        raise ProtocolError(f"not an HTTP/1.1 status line: {lines[0][:80]!r}")
    length: Optional[int] = None
    for line in lines[1:]:
        name, colon, value = line.partition(b":")
        if not colon:
            raise ProtocolError(f"a malformed header line: {line[:80]!r}")
        name = name.strip().lower()
        if name == b"transfer-encoding":
            raise ProtocolError("a chunked answer (the tool server never sends one)")
        if name == b"content-length":
            text = value.strip()
            if not text.isdigit() or (length is not None and length != int(text)):
                raise ProtocolError(f"a bad Content-Length: {value[:40]!r}")
            length = int(text)
    if length is None:
        raise ProtocolError("the answer has no Content-Length")
    return int(parts[1]), length
