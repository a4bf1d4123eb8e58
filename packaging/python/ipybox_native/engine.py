"""The connection to one ``ipybox sdk`` process: JSON-RPC 2.0, one message per line, over its
stdin and stdout (the protocol is written down in native/app/sdk_server/include/ipybox/
sdk_server.hpp). Requests go out with ids; answers resolve their futures; notifications go to
the handler the owner gave.

The process is ours alone: it reads only what we write, ends when its stdin closes (``close()``,
or this process ending in any way, which closes the pipe), and is also told to end when this
process ends (``--parent-pid``: PR_SET_PDEATHSIG on Linux, a kqueue watch on macOS, for a pipe
held open by a fork of ours). It runs in a session of its own, so that a Ctrl-C at the terminal
reaches this process only, which then decides (``cancel()``, ``stop()``).

Not thread-safe: every method belongs to the event loop that called ``open()``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

__all__ = ["EngineConnection", "EngineError", "EngineGone"]

# One message may carry a whole cell's output (the engine keeps at most 8 MiB of it, which JSON
# escaping can make several times larger).
_LINE_LIMIT = 256 * 1024 * 1024
_CLOSE_WAIT = 10.0


class EngineError(Exception):
    """The engine answered a request with an error: ``code``, ``message`` and ``data``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data


class EngineGone(EngineError):
    """The engine process ended (or could not be read) before it answered."""

    def __init__(self, message: str) -> None:
        super().__init__(-32001, message)


NotificationHandler = Callable[[str, Dict[str, Any]], None]


class EngineConnection:
    def __init__(self, on_notification: NotificationHandler) -> None:
        self._on_notification = on_notification
        self._process: Optional[asyncio.subprocess.Process] = None
        self._reader: Optional[asyncio.Task[None]] = None
        self._ids = itertools.count(1)
        self._pending: Dict[int, asyncio.Future[Any]] = {}
        self._gone: Optional[str] = None

    @property
    def pid(self) -> Optional[int]:
        return self._process.pid if self._process is not None else None

    async def open(
        self, binary: Path, arguments: Sequence[str], environment: Mapping[str, str]
    ) -> None:
        """Starts ``<binary> sdk <arguments>``; its stderr (the engine's log) is ours."""
        self._process = await asyncio.create_subprocess_exec(
            str(binary),
            "sdk",
            "--parent-pid",
            str(os.getpid()),
            *arguments,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            env=dict(environment),
            start_new_session=True,
            limit=_LINE_LIMIT,
        )
        self._reader = asyncio.get_running_loop().create_task(self._read())

    def send(self, method: str, params: Mapping[str, Any]) -> "asyncio.Future[Any]":
        """Sends a request now (without waiting) and returns the future of its answer."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        if self._gone is not None or self._process is None or self._process.stdin is None:
            future.set_exception(EngineGone(self._gone or "the engine is not running"))
            return future
        request_id = next(self._ids)
        self._pending[request_id] = future
        line = json.dumps(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": dict(params)},
            ensure_ascii=False,
        )
        try:
            self._process.stdin.write(line.encode("utf-8", "surrogatepass") + b"\n")
        except (ConnectionError, RuntimeError) as error:  # the pipe is gone
            self._pending.pop(request_id, None)
            future.set_exception(EngineGone(f"the engine stopped reading: {error}"))
        return future

    async def request(self, method: str, params: Mapping[str, Any]) -> Any:
        future = self.send(method, params)
        if self._process is not None and self._process.stdin is not None and self._gone is None:
            try:
                await self._process.stdin.drain()
            except (ConnectionError, RuntimeError):
                pass  # the reader reports the engine's end to the future
        return await future

    async def close(self, wait: float = _CLOSE_WAIT) -> None:
        """Ends the engine: closes its stdin (it cancels what runs, stops its kernels and
        exits), waits up to `wait` seconds, then SIGTERM, then SIGKILL."""
        process = self._process
        if process is None:
            return
        if process.stdin is not None and not process.stdin.is_closing():
            process.stdin.close()
        for signal_it in (None, process.terminate, process.kill):
            if signal_it is not None:
                try:
                    signal_it()
                except ProcessLookupError:
                    break
            try:
                await asyncio.wait_for(process.wait(), wait if signal_it is None else 5.0)
                break
            except asyncio.TimeoutError:
                continue
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        self._fail_pending("the engine was stopped")

    async def _read(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        stdout = self._process.stdout
        reason = "the engine process ended"
        try:
            while True:
                line = await stdout.readline()
                if not line:
                    break
                self._dispatch(json.loads(line))
        except (ValueError, asyncio.LimitOverrunError) as error:
            reason = f"the engine's output could not be read: {error}"
        finally:
            code = await self._process.wait() if self._process.returncode is None else None
            status = self._process.returncode if code is None else code
            self._fail_pending(f"{reason} (exit status {status})")

    def _dispatch(self, message: Dict[str, Any]) -> None:
        if "method" in message:
            if "id" not in message:
                self._on_notification(message["method"], message.get("params") or {})
            return
        future = self._pending.pop(message.get("id"), None)  # type: ignore[arg-type]
        if future is None or future.done():
            return
        if "error" in message:
            error = message["error"] or {}
            future.set_exception(
                EngineError(
                    int(error.get("code", -32603)),
                    str(error.get("message", "")),
                    error.get("data"),
                )
            )
        else:
            future.set_result(message.get("result"))

    def _fail_pending(self, reason: str) -> None:
        if self._gone is None:
            self._gone = reason
        pending: List[asyncio.Future[Any]] = list(self._pending.values())
        self._pending.clear()
        for future in pending:
            if not future.done():
                future.set_exception(EngineGone(reason))
