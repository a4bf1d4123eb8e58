"""``CodeExecutor``: Python code in a stateful IPython kernel, with MCP tool calls that wait for
approval; the reference's API (ipybox 0.9.2) over ipybox's native engine.

Each executor drives one ``ipybox sdk`` process (engine.py), which owns the kernel, its spare,
the tool server and the MCP servers; nothing of it outlives ``stop()`` or this process.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
from dataclasses import dataclass, field
from importlib.util import find_spec
from pathlib import Path
from typing import Any, AsyncIterator, Dict, List, Mapping, Optional, Sequence, Union

from .approval import ApprovalRequest
from .engine import EngineConnection, EngineError
from .launcher import engine_binary
from .mcp_sources import generated_servers

__all__ = ["CodeExecutor", "CodeExecutionChunk", "CodeExecutionError", "CodeExecutionResult"]

_EXECUTION_FAILED = -32000
_LIMIT_FLAGS = (
    "memory_limit",
    "max_processes",
    "max_file_size",
    "max_open_files",
    "cpu_time_limit",
)


class CodeExecutionError(Exception):
    """Raised when code execution fails: the code raised (the message is ``"<type>: <value>"``
    and the traceback), a tool call was rejected or failed, the kernel died, or no kernel
    could start. ``kind`` says which (``exception``, ``kernel_died``, ``start_failed``, or
    ``engine`` when the ipybox process itself ended or was stopped meanwhile);
    ``ename``, ``evalue``, the ``output`` printed before the failure and whether the kernel's
    state was kept (``state_kept``) come with it."""

    def __init__(
        self,
        message: str,
        *,
        kind: str = "exception",
        ename: str = "",
        evalue: str = "",
        output: str = "",
        state_kept: bool = True,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.ename = ename
        self.evalue = evalue
        self.output = output
        self.state_kept = state_kept


@dataclass
class CodeExecutionResult:
    """The result of a successful execution: its output text (stripped; ``None`` when there is
    none) and the paths of the PNG images it produced, saved in ``images_dir``. ``notices``
    says what ipybox did besides (a kernel restarted after a crash, output clipped)."""

    text: Optional[str]
    images: List[Path]
    notices: List[str] = field(default_factory=list)


@dataclass
class CodeExecutionChunk:
    """Output as it comes (``stream(chunks=True)``): ``text``, from ``stream`` ``"stdout"``,
    ``"stderr"`` or ``"display"`` (a displayed value; ``image`` is its saved PNG, if any). The
    result holds all of it again."""

    text: str
    stream: str = "stdout"
    image: Optional[Path] = None


class _Ended:
    def __init__(self, outcome: "asyncio.Future[Any]") -> None:
        self.outcome = outcome


class CodeExecutor:
    """Executes Python code in an IPython kernel with programmatic MCP tool call support.

    The arguments are the reference's; ``tool_server_host``, ``tool_server_port``,
    ``kernel_gateway_host`` and ``kernel_gateway_port`` are accepted and have no effect (there
    is no gateway, and the tool server listens on a private Unix socket). Keyword-only
    additions: ``python`` (the kernel's interpreter; default: this one when it has ipykernel),
    ``mcp_servers`` (``{name: params}`` the kernel may call besides those generated in this
    process), ``limits`` (``{"memory_limit": "2G", "max_processes": 256, ...}``, ``None`` for
    no limit), ``spare_kernel`` (a pre-started kernel that makes ``reset()`` fast) and
    ``engine_args`` (more ``ipybox sdk`` flags, e.g. ``["--library", "/x"]``).
    """

    def __init__(
        self,
        tool_server_host: str = "localhost",
        tool_server_port: Optional[int] = None,
        kernel_gateway_host: str = "localhost",
        kernel_gateway_port: Optional[int] = None,
        kernel_env: Optional[Dict[str, str]] = None,
        working_dir: Optional[Path] = None,
        images_dir: Optional[Path] = None,
        approval_timeout: Optional[float] = None,
        connect_timeout: float = 30,
        kernel_init_timeout: float = 10,
        sandbox: bool = False,
        sandbox_config: Optional[Path] = None,
        log_level: str = "WARNING",
        approve_tool_calls: bool = True,
        approve_shell_cmds: bool = False,
        require_shell_escape: bool = False,
        *,
        python: Optional[Union[str, Path]] = None,
        mcp_servers: Optional[Mapping[str, Mapping[str, Any]]] = None,
        limits: Optional[Mapping[str, Any]] = None,
        spare_kernel: bool = True,
        engine_args: Sequence[str] = (),
    ) -> None:
        if require_shell_escape and not approve_shell_cmds:
            raise ValueError("require_shell_escape=True requires approve_shell_cmds=True")
        self.tool_server_host = tool_server_host
        self.tool_server_port = tool_server_port
        self.kernel_gateway_host = kernel_gateway_host
        self.kernel_gateway_port = kernel_gateway_port
        self.working_dir = Path(working_dir).resolve() if working_dir is not None else None
        self.kernel_env = dict(kernel_env or {})
        self.images_dir = images_dir
        self.approve_tool_calls = approve_tool_calls
        self.approve_shell_cmds = approve_shell_cmds
        self.require_shell_escape = require_shell_escape
        self.approval_timeout = approval_timeout
        self.connect_timeout = connect_timeout
        self.kernel_init_timeout = kernel_init_timeout
        self.sandbox = sandbox
        self.sandbox_config = sandbox_config
        self.log_level = log_level
        self.python = python
        self.mcp_servers = {name: dict(params) for name, params in (mcp_servers or {}).items()}
        self.limits = dict(limits or {})
        self.spare_kernel = spare_kernel
        self.engine_args = list(engine_args)
        self._engine: Optional[EngineConnection] = None
        self._executions: Dict[int, "asyncio.Queue[Any]"] = {}
        self._execution_ids = itertools.count(1)
        self._running: Optional[int] = None
        self._servers_seen = -1
        self.kernel_pid: Optional[int] = None  #: the kernel's process (after start)

    async def __aenter__(self) -> "CodeExecutor":
        await self.start()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        await self.stop()

    async def start(self) -> None:
        """Starts the engine and its kernel. Raises ``CodeExecutionError`` (``kind
        "start_failed"``) naming the interpreter or the sandbox runtime that is missing."""
        if self._engine is not None:
            raise RuntimeError("the executor is already started")
        generation, servers = generated_servers()
        self._servers_seen = generation
        engine = EngineConnection(self._on_notification)
        await engine.open(engine_binary(), self._engine_arguments(servers), self._environment())
        self._engine = engine
        try:
            started = await engine.request("start", {})
        except BaseException as error:
            await self.stop()
            if isinstance(error, EngineError):
                raise _execution_error(error) from None
            raise
        self.kernel_pid = started.get("kernel_pid")

    async def stop(self) -> None:
        """Stops the kernel (and everything it started), the MCP servers and the engine."""
        engine, self._engine = self._engine, None
        if engine is not None:
            await engine.close()

    async def reset(self) -> None:
        """A fresh kernel (from the spare, in tens of milliseconds) and closed MCP sessions,
        which restart on their next call; files, packages and servers stay."""
        await self._connected().request("reset", {})

    def cancel(self) -> None:
        """Cancels the running execution: the kernel is interrupted and ``stream`` ends without
        a result (``execute`` returns an empty one), also while an approval is pending."""
        if self._running is not None and self._engine is not None:
            self._engine.send("cancel", {}).add_done_callback(_ignore_outcome)

    async def register_mcp_server(self, server_name: str, server_params: Mapping[str, Any]) -> None:
        """Lets kernel code of this executor call `server_name` (generated elsewhere)."""
        self.mcp_servers[server_name] = dict(server_params)
        await self._register(server_name, server_params)

    async def execute(self, code: str, timeout: Optional[float] = None) -> CodeExecutionResult:
        """Runs `code`, approving every tool call and shell command, and returns the result
        (``text=None, images=[]`` when cancelled). Saves into the user library and dependencies
        to add are rejected: they need a person (``stream`` yields them)."""
        async for item in self.stream(code, timeout=timeout):
            if isinstance(item, ApprovalRequest):
                if item.needs_a_person:
                    await item.reject("execute() does not approve what needs a person")
                else:
                    await item.accept()
            elif isinstance(item, CodeExecutionResult):
                return item
        return CodeExecutionResult(text=None, images=[])

    async def stream(
        self, code: str, timeout: Optional[float] = None, chunks: bool = False
    ) -> AsyncIterator[Union[ApprovalRequest, CodeExecutionChunk, CodeExecutionResult]]:
        """Runs `code` and yields each ``ApprovalRequest`` (accept or reject it), each
        ``CodeExecutionChunk`` (with ``chunks=True``) and finally the ``CodeExecutionResult``.

        `timeout` (seconds) excludes the time approvals wait. Raises ``CodeExecutionError``
        when the code fails and ``asyncio.TimeoutError`` when it runs out of time (the kernel is
        interrupted and keeps its state). After ``cancel()`` the stream ends without a result.
        Leaving the loop early cancels the execution."""
        engine = self._connected()
        await self._sync_generated_servers()
        execution = next(self._execution_ids)
        queue: "asyncio.Queue[Any]" = asyncio.Queue()
        self._executions[execution] = queue
        outcome = engine.send("execute", {"execution": execution, "code": code, "timeout": timeout})
        outcome.add_done_callback(lambda done: queue.put_nowait(_Ended(done)))
        self._running = execution
        ended = False
        try:
            while True:
                item = await queue.get()
                if isinstance(item, _Ended):
                    ended = True
                    result = _result_of(item.outcome, timeout)
                    if result is not None:
                        yield result
                    return
                method, params = item
                if method == "execution/approval":
                    yield self._approval(params)
                elif chunks:
                    image = params.get("image")
                    yield CodeExecutionChunk(
                        params["text"], params["stream"], Path(image) if image else None
                    )
        finally:
            self._executions.pop(execution, None)
            if self._running == execution:
                self._running = None
            if not ended and self._engine is not None:  # left early: do not let it run on
                self._engine.send("cancel", {}).add_done_callback(_ignore_outcome)

    def _approval(self, params: Dict[str, Any]) -> ApprovalRequest:
        number = params["approval"]

        async def decide(accepted: bool, reason: str) -> None:
            if self._engine is not None:
                await self._engine.request(
                    "decide", {"approval": number, "accept": accepted, "reason": reason}
                )

        return ApprovalRequest(
            params["server_name"],
            params["tool_name"],
            params["tool_args"],
            decide,
            kind=params["kind"],
            python_name=params.get("python_name", ""),
            interpreter=params.get("interpreter", ""),
            needs_a_person=bool(params.get("needs_a_person")),
            question=params.get("question", ""),
        )

    def _on_notification(self, method: str, params: Dict[str, Any]) -> None:
        queue = self._executions.get(params.get("execution", -1))
        if queue is not None:
            queue.put_nowait((method, params))

    def _connected(self) -> EngineConnection:
        if self._engine is None:
            raise RuntimeError("the executor is not started: use start() or 'async with'")
        return self._engine

    async def _register(self, server_name: str, server_params: Mapping[str, Any]) -> None:
        await self._connected().request(
            "register_mcp_server", {"server_name": server_name, "server_params": server_params}
        )

    async def _sync_generated_servers(self) -> None:
        generation, servers = generated_servers()
        if generation == self._servers_seen:
            return
        self._servers_seen = generation
        for name, params in servers.items():
            if name not in self.mcp_servers:
                await self._register(name, params)

    def _engine_arguments(self, generated: Mapping[str, Any]) -> List[str]:
        workspace = self.working_dir or Path.cwd()
        images = Path(self.images_dir) if self.images_dir is not None else Path("images")
        arguments = ["--workspace", str(workspace), "--images-dir", str(images.absolute())]
        arguments += ["--log-level", self.log_level.lower()]
        arguments += ["--start-timeout", str(self.kernel_init_timeout)]
        arguments += ["--mcp-connect-timeout", str(self.connect_timeout)]
        if self.working_dir is not None:
            arguments.append("--restore-working-dir")
        if not self.approve_tool_calls:
            arguments.append("--no-tool-call-approval")
        if self.approve_shell_cmds:
            arguments.append("--approve-shell-commands")
        if self.require_shell_escape:
            arguments.append("--require-shell-escape")
        if self.approval_timeout is not None:
            arguments += ["--approval-timeout", str(self.approval_timeout)]
        if self.sandbox or self.sandbox_config is not None:
            arguments.append("--sandbox")
        if self.sandbox_config is not None:
            arguments += ["--sandbox-config", str(Path(self.sandbox_config).absolute())]
        python = self.python
        if python is None and find_spec("ipykernel") is not None:
            python = sys.executable
        if python is not None:
            arguments += ["--python", str(python)]
        for name, value in self.kernel_env.items():
            arguments += ["--env", f"{name}={value}"]
        for name, params in {**generated, **self.mcp_servers}.items():
            arguments += ["--server", f"{name}={json.dumps(params)}"]
        for name, value in self.limits.items():
            if name not in _LIMIT_FLAGS:
                raise ValueError(f"unknown limit {name!r}: one of {', '.join(_LIMIT_FLAGS)}")
            arguments += [f"--{name.replace('_', '-')}", "none" if value is None else str(value)]
        if not self.spare_kernel:
            arguments.append("--no-spare-kernel")
        return arguments + self.engine_args

    @staticmethod
    def _environment() -> Dict[str, str]:
        # kernel_env is the kernel's whole environment beyond the allowlist (PATH, HOME, LANG,
        # ...): the engine would add KERNEL_ENV_* variables of ours to it.
        return {k: v for k, v in os.environ.items() if not k.startswith("KERNEL_ENV_")}


def _ignore_outcome(future: "asyncio.Future[Any]") -> None:
    if not future.cancelled():
        future.exception()  # retrieved, so that asyncio does not log it


def _execution_error(error: EngineError) -> CodeExecutionError:
    data = error.data if isinstance(error.data, dict) else {}
    return CodeExecutionError(
        error.message,
        kind=data.get("kind", "exception"),
        ename=data.get("ename", ""),
        evalue=data.get("evalue", ""),
        output=data.get("output", ""),
        state_kept=bool(data.get("state_kept", True)),
    )


def _result_of(
    outcome: "asyncio.Future[Any]", timeout: Optional[float]
) -> Optional[CodeExecutionResult]:
    """The result of an ended execution, None when it was cancelled; raises its failure."""
    try:
        answer = outcome.result()
    except EngineError as error:
        if error.code != _EXECUTION_FAILED:
            raise CodeExecutionError(error.message, kind="engine") from None
        failure = _execution_error(error)
        if failure.kind == "timeout":
            seconds = f"{timeout:.2f}s" if timeout is not None else "its time"
            raise asyncio.TimeoutError(
                f"Code execution exceeded timeout of {seconds} (approval wait excluded). "
                f"{error.message}"
            ) from None
        raise failure from None
    if answer.get("cancelled"):
        return None
    text = (answer.get("text") or "").strip()
    return CodeExecutionResult(
        text=text or None,
        images=[Path(path) for path in answer.get("images", [])],
        notices=list(answer.get("notices", [])),
    )
