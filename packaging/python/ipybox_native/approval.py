"""``ApprovalRequest``: what kernel code asks the application to approve, as the reference names
it (``server_name``, ``tool_name``, ``tool_args``, ``accept()``, ``reject()``).

A tool call of an MCP server carries the server's package name, the tool's MCP name (``tool-1``,
not the module name ``tool_1``) and its arguments. A shell command (with
``approve_shell_cmds=True``) is ``server_name="ipybox"``, ``tool_name="shell"`` for ``!cmd``,
``x = !cmd`` and aliases, ``"shell_magic"`` for ``%%bash``, ``%%sh`` and the other script cells,
and ``tool_args={"cmd": <the command exactly as it runs>}``. Saves into the user library and
dependencies to add (``needs_a_person``) come as ``tool_name="save_gentool"`` and
``"add_dependencies"``; ``execute()`` rejects those.
"""

from __future__ import annotations

import asyncio
from typing import Any, Awaitable, Callable, Dict, List, Optional

__all__ = ["ApprovalRequest"]

Decide = Callable[[bool, str], Awaitable[Any]]


class ApprovalRequest:
    """A request from kernel code that waits for ``accept()`` or ``reject()``.

    The kernel code stays blocked until then (the execution's timeout does not run meanwhile),
    until ``approval_timeout`` passes, or until the execution ends (``cancel()``, which
    rejects it). The first decision wins; later ones, and decisions after the execution
    ended, do nothing.
    """

    def __init__(
        self,
        server_name: str,
        tool_name: str,
        tool_args: Dict[str, Any],
        decide: Decide,
        *,
        kind: str = "tool_call",
        python_name: str = "",
        interpreter: str = "",
        needs_a_person: bool = False,
        question: str = "",
    ) -> None:
        self.server_name = server_name
        self.tool_name = tool_name
        self.tool_args = tool_args
        #: ``tool_call``, ``shell_command``, ``save_action`` or ``add_dependencies``
        self.kind = kind
        #: the tool's generated module name (``tool_1`` for ``tool-1``); empty for the others
        self.python_name = python_name
        #: a script cell's program and options (``bash``, ``script python3 --out x``)
        self.interpreter = interpreter
        #: a save into the user library or dependencies to add: ask a person, or reject
        self.needs_a_person = needs_a_person
        #: the question to put to a person (a fixed layout, every untrusted part escaped)
        self.question = question
        self._decide = decide
        self._decision: Optional[bool] = None
        self._decided: Optional[asyncio.Future[bool]] = None
        self._callbacks: List[Callable[[bool], Any]] = []

    async def accept(self) -> None:
        """Lets the call (or command) run."""
        await self._respond(True, "")

    async def reject(self, reason: str = "") -> None:
        """Fails the call in the kernel (``ApprovalRejectedError``); `reason` is shown there."""
        await self._respond(False, reason)

    async def response(self) -> bool:
        """Waits for the decision: True when accepted."""
        if self._decision is not None:
            return self._decision
        if self._decided is None:
            self._decided = asyncio.get_running_loop().create_future()
        return await self._decided

    def on_decision(self, callback: Callable[[bool], Any]) -> None:
        """Calls `callback(accepted)` once the decision is made (at once if it is)."""
        if self._decision is not None:
            callback(self._decision)
        else:
            self._callbacks.append(callback)

    async def _respond(self, accepted: bool, reason: str) -> None:
        if self._decision is not None:
            return
        self._decision = accepted
        if self._decided is not None and not self._decided.done():
            self._decided.set_result(accepted)
        for callback in self._callbacks:
            callback(accepted)
        self._callbacks.clear()
        await self._decide(accepted, reason)

    def __str__(self) -> str:
        arguments = ", ".join(f"{key}={value!r}" for key, value in self.tool_args.items())
        return f"{self.server_name}.{self.tool_name}({arguments})"

    def __repr__(self) -> str:
        return f"ApprovalRequest({self})"
