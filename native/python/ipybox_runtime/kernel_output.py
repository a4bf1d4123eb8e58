"""How the kernel's output leaves it: in bounded pieces, never lost to a decoding error, and in
the cell that wrote it.

Bounded pieces: ipykernel collects what a cell prints and sends it every 0.2 s, however much it
is; a tight print loop makes single messages of many megabytes, which every hop (ZeroMQ, the
native side's parsing) then holds at once. Here a write that leaves more than 64 KiB waiting
flushes at once, and waits for the message to be handed to ZeroMQ, so a fast producer is paced
by the kernel's own I/O thread and each message stays small.

Output written straight to the kernel's file descriptors (subprocesses, C extensions,
``os.write(1, ...)``):
ipykernel forwards what arrives on fds 1 and 2 from a watcher thread that decodes each raw read
strictly as UTF-8. One invalid byte, or a multi-byte character cut in two by a read boundary,
raises there and ends the thread: from then on every later cell's fd-level output vanishes until
the kernel is replaced. The watcher installed here decodes incrementally (a character split
across reads is joined) and replaces invalid bytes with U+FFFD, keeping the text around them.

It also reads and forwards under a lock, so that the ``post_execute`` hook of this extension can
wait until everything written to the descriptors before the cell ended has been forwarded: a
subprocess's output belongs to the cell that ran it, not to whichever cell runs next. Streams
whose ipykernel version lacks the attributes used here keep ipykernel's own watcher.
"""

from __future__ import annotations

import codecs
import fcntl
import os
import select
import struct
import sys
import termios
import threading
import time
from typing import Any, Callable

_READ_SIZE = 4096
_PIECE_BYTES = 64 * 1024
_DRAIN_LIMIT_SECONDS = 2.0
_LOCK = "_ipybox_fd_lock"


def _watch_pipe_fd(self: Any) -> None:
    decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
    lock = getattr(self, _LOCK)
    try:
        while self._should_watch:
            readable, _, _ = select.select([self._fid], [], [], 0.1)
            if not readable:
                continue
            with lock:
                data = os.read(self._fid, _READ_SIZE)
                if not data:
                    break
                text = decoder.decode(data)
                if text:
                    self.write(text)
                os.write(self._original_stdstream_copy, data)
        with lock:
            rest = decoder.decode(b"", final=True)
            if rest:
                self.write(rest)
    except Exception:
        self._exc = sys.exc_info()


def _supported(stream: Any) -> bool:
    return all(hasattr(stream, name) for name in ("_fid", "_should_watch"))


def _tolerant(original: Callable[[Any], None]) -> Callable[[Any], None]:
    def watch(self: Any) -> None:
        if _supported(self) and hasattr(self, "_original_stdstream_copy"):
            setattr(self, _LOCK, threading.Lock())
            _watch_pipe_fd(self)
        else:
            original(self)

    watch.__doc__ = original.__doc__
    return watch


def _pending_bytes(fd: int) -> int:
    try:
        return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    except OSError:  # the cell closed or replaced the pipe: nothing is waiting in it
        return 0


def drain() -> None:
    """Waits (boundedly) until fd-level output written so far has reached the cell's output.

    Forwarded text lands in the stream's buffer, which ipykernel flushes itself before it sends
    the execute reply; flushing here as well would cost every cell a round trip to its I/O thread.
    """
    for stream in (sys.stdout, sys.stderr):
        lock = getattr(stream, _LOCK, None)
        if lock is None or not _supported(stream):
            continue
        deadline = time.monotonic() + _DRAIN_LIMIT_SECONDS
        while time.monotonic() < deadline:
            with lock:  # held by the watcher from each read until its text is forwarded
                if _pending_bytes(stream._fid) == 0:
                    break
            time.sleep(0.002)


def _waiting_chars(stream: Any) -> int:
    # The I/O thread swaps (and closes) the buffer when it flushes; look under its lock.
    lock = getattr(stream, "_buffer_lock", None)
    try:
        if lock is None:
            return stream._buffer.tell()
        with lock:
            return stream._buffer.tell()
    except (AttributeError, ValueError):
        return 0


def _paced(original: Callable[[Any, str], Any]) -> Callable[[Any, str], Any]:
    def write(self: Any, string: str) -> Any:
        if not isinstance(string, str) or len(string) <= _PIECE_BYTES:
            written = original(self, string)
            if _waiting_chars(self) > _PIECE_BYTES:
                self.flush()
            return written
        # One huge write (a single long line) still leaves in pieces.
        for start in range(0, len(string), _PIECE_BYTES):
            original(self, string[start : start + _PIECE_BYTES])
            self.flush()
        return len(string)

    write.__doc__ = original.__doc__
    return write


def _without_drops(original: Callable[..., Any]) -> Callable[..., Any]:
    """``IPKernelApp.init_iopub`` whose PUB socket queues instead of dropping.

    A PUB socket never makes its sender wait: once 1,000 messages (ZeroMQ's default high-water
    mark) wait for a reader that is slower than the cell, as on a machine whose cores are all
    busy, it drops the rest, and a cell printing 50 MB lost a third of it. With no high-water
    mark the messages wait in the kernel until ipybox reads them; the kernel's memory limit
    still bounds them.
    """

    def init_iopub(self: Any, context: Any) -> None:
        import zmq

        context.setsockopt(zmq.SNDHWM, 0)  # for the sockets made now: the PUB socket
        try:
            original(self, context)
        finally:
            context.sockopts.pop(zmq.SNDHWM, None)

    return init_iopub


def install() -> None:
    """Replaces ipykernel's fd watcher, paces its writes and keeps its IOPub socket from
    dropping messages; call before the kernel app starts."""
    try:
        from ipykernel import iostream
        from ipykernel.kernelapp import IPKernelApp
    except ImportError:
        return
    for owner, name, wrap in (
        (iostream.OutStream, "_watch_pipe_fd", _tolerant),
        (iostream.OutStream, "write", _paced),
        (IPKernelApp, "init_iopub", _without_drops),
    ):
        original = getattr(owner, name, None)
        if original is not None and not getattr(original, "_ipybox", False):
            replacement = wrap(original)
            replacement._ipybox = True  # type: ignore[attr-defined]
            setattr(owner, name, replacement)


def load_ipython_extension(shell: Any) -> None:
    shell.events.register("post_execute", drain)
