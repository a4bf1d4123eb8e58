"""Approvals through ipybox_native: tool calls of a server generated with
generate_mcp_sources, and shell commands, named as the reference names them."""

from __future__ import annotations

import asyncio
import tempfile
import time
import unittest
from pathlib import Path

from ipybox_native import (
    ApprovalRequest,
    CodeExecutionError,
    CodeExecutionResult,
    CodeExecutor,
    generate_mcp_sources,
)
from sdk_support import ECHO_PARAMS

CALL = "from echo.echo_text import run, Params\nprint(run(Params(s='hi')))"


class ToolCallTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.scratch = tempfile.TemporaryDirectory()
        self.root = Path(self.scratch.name) / "tools"
        self.modules = await generate_mcp_sources("echo", ECHO_PARAMS, self.root)
        self.executor = CodeExecutor(kernel_env={"PYTHONPATH": str(self.root)}, log_level="ERROR")
        await self.executor.start()

    async def asyncTearDown(self) -> None:
        await self.executor.stop()
        self.scratch.cleanup()

    async def test_generate_writes_a_package_per_server(self) -> None:
        self.assertEqual(self.modules, ["echo_text"])
        self.assertTrue((self.root / "echo" / "__init__.py").is_file())
        self.assertTrue((self.root / "echo" / "echo_text.py").is_file())
        self.assertFalse((self.root / "__init__.py").exists())

    async def test_an_accepted_call_runs_and_names_the_tool_as_the_server_does(self) -> None:
        requests = []
        result = None
        async for item in self.executor.stream(CALL):
            if isinstance(item, ApprovalRequest):
                requests.append(item)
                await item.accept()
            elif isinstance(item, CodeExecutionResult):
                result = item
        self.assertEqual(len(requests), 1)
        self.assertEqual(
            (requests[0].server_name, requests[0].tool_name, requests[0].tool_args),
            ("echo", "echo-text", {"s": "hi"}),
        )
        self.assertEqual(requests[0].python_name, "echo_text")
        self.assertEqual(result.text, "echo: hi")

    async def test_a_rejected_call_fails_the_cell(self) -> None:
        with self.assertRaises(CodeExecutionError) as raised:
            async for item in self.executor.stream(CALL):
                if isinstance(item, ApprovalRequest):
                    await item.reject()
        self.assertIn("rejected", str(raised.exception).lower())

    async def test_execute_approves_tool_calls(self) -> None:
        self.assertEqual((await self.executor.execute(CALL)).text, "echo: hi")

    async def test_the_timeout_excludes_the_approval_wait(self) -> None:
        await self.executor.execute(CALL)  # the server is up: only the wait is long
        result = None
        # The call itself gets 3 s, under load too; the approval waits a second longer than that.
        async for item in self.executor.stream(CALL, timeout=3.0):
            if isinstance(item, ApprovalRequest):
                await asyncio.sleep(4.0)
                await item.accept()
            elif isinstance(item, CodeExecutionResult):
                result = item
        self.assertEqual(result.text, "echo: hi")

    async def test_the_timeout_counts_the_tool_call_itself(self) -> None:
        slow = "from echo.echo_text import run, Params\nrun(Params(s='x', delay=3))"
        with self.assertRaises(asyncio.TimeoutError):
            await self.executor.execute(slow, timeout=0.5)

    async def test_cancel_while_an_approval_waits_ends_the_stream_cleanly(self) -> None:
        started = time.monotonic()
        items = []
        async for item in self.executor.stream(CALL):
            items.append(item)
            if isinstance(item, ApprovalRequest):
                self.executor.cancel()
        self.assertEqual([type(item) for item in items], [ApprovalRequest])
        self.assertLess(time.monotonic() - started, 8)
        await items[0].accept()  # too late: nothing happens
        self.assertEqual((await self.executor.execute("print('usable')")).text, "usable")

    async def test_an_approval_left_past_approval_timeout_fails_the_call(self) -> None:
        async with CodeExecutor(
            kernel_env={"PYTHONPATH": str(self.root)}, approval_timeout=0.5, log_level="ERROR"
        ) as executor:
            with self.assertRaises(CodeExecutionError) as raised:
                async for item in executor.stream(CALL):
                    if isinstance(item, ApprovalRequest):
                        await asyncio.sleep(1.5)
                        await item.accept()  # too late
        self.assertEqual(raised.exception.ename, "ApprovalTimeoutError")
        self.assertIn("Approval request for echo.echo-text expired", str(raised.exception))

    async def test_without_approval_calls_run_unasked(self) -> None:
        async with CodeExecutor(
            kernel_env={"PYTHONPATH": str(self.root)}, approve_tool_calls=False, log_level="ERROR"
        ) as executor:
            items = [item async for item in executor.stream(CALL)]
        self.assertEqual([type(item) for item in items], [CodeExecutionResult])


class ShellCommandTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.executor = CodeExecutor(
            approve_shell_cmds=True, require_shell_escape=True, log_level="ERROR"
        )
        await self.executor.start()

    async def asyncTearDown(self) -> None:
        await self.executor.stop()

    async def collect(self, code: str, accept: bool = True):
        requests = []
        result = None
        async for item in self.executor.stream(code):
            if isinstance(item, ApprovalRequest):
                requests.append(item)
                await (item.accept() if accept else item.reject())
            else:
                result = item
        return requests, result

    async def test_a_shell_line_asks_as_ipybox_shell_with_the_expanded_command(self) -> None:
        requests, result = await self.collect("who = 'world'\n!echo hello {who}")
        self.assertEqual(len(requests), 1)
        self.assertEqual((requests[0].server_name, requests[0].tool_name), ("ipybox", "shell"))
        self.assertEqual(requests[0].tool_args, {"cmd": "echo hello world"})
        self.assertEqual(result.text, "hello world")

    async def test_a_bash_cell_asks_as_shell_magic(self) -> None:
        requests, result = await self.collect("%%bash\necho one\necho two")
        self.assertEqual(requests[0].tool_name, "shell_magic")
        self.assertEqual(requests[0].tool_args, {"cmd": "echo one\necho two\n"})
        self.assertEqual(result.text, "one\ntwo")

    async def test_a_rejected_command_does_not_run(self) -> None:
        with self.assertRaises(CodeExecutionError) as raised:
            await self.collect("!touch should-not-exist", accept=False)
        self.assertIn("Rejected", str(raised.exception))

    async def test_processes_start_only_through_approved_commands(self) -> None:
        for code, what in [
            ("import subprocess; subprocess.run(['true'])", "Direct subprocess calls"),
            ("import os; os.system('true')", "Direct os.system() calls"),
            ("import os; os.execvp('true', ['true'])", "Direct os.execvp() calls"),
            ("import pty; pty.spawn(['true'])", "Direct pty.spawn() calls"),
        ]:
            with self.assertRaises(CodeExecutionError) as raised:
                await self.executor.execute(code)
            self.assertIn(what + " are not allowed. Use ! syntax.", str(raised.exception))
        requests, result = await self.collect("x = !echo captured\nprint(x)")
        self.assertIn("captured", result.text)
        with self.assertRaises(CodeExecutionError):  # the allowance ended with the command
            await self.executor.execute("import subprocess; subprocess.run(['true'])")


if __name__ == "__main__":
    unittest.main()
