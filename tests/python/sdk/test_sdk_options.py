"""CodeExecutor's options that reach the engine: sandbox (writes outside the working directory
refused), limits (the kernel's resource limits) and connect_timeout (an MCP server that never
answers fails the call in about that time). Each with its control."""

from __future__ import annotations

import os
import sys
import tempfile
import time
import unittest
from pathlib import Path

from ipybox_native import CodeExecutionError, CodeExecutor
from sdk_support import REPO

SRT = REPO / "tests" / "node" / "node_modules" / ".bin" / "srt"
WRITE = "open({path!r}, 'w').write('x')\nprint('written')"


class SandboxTest(unittest.IsolatedAsyncioTestCase):
    def setUp(self) -> None:
        os.environ.setdefault("IPYBOX_SRT", str(SRT))
        # Under /var/tmp: the sandbox gives the kernel a /tmp of its own.
        self.work = Path(tempfile.mkdtemp(prefix="ipybox-sdk-sandbox-", dir="/var/tmp"))
        self.outside = Path(tempfile.mkdtemp(prefix="ipybox-sdk-outside-", dir="/var/tmp"))

    def tearDown(self) -> None:
        for folder in (self.work, self.outside):
            for path in sorted(folder.rglob("*"), reverse=True):
                path.rmdir() if path.is_dir() else path.unlink()
            folder.rmdir()

    @unittest.skipUnless(SRT.exists(), "srt from npm: npm install --prefix tests/node")
    async def test_sandboxed_the_kernel_writes_only_in_its_working_dir(self) -> None:
        async with CodeExecutor(working_dir=self.work, sandbox=True, log_level="ERROR") as box:
            inside = await box.execute(WRITE.format(path=str(self.work / "in.txt")))
            self.assertEqual(inside.text, "written")
            with self.assertRaises(CodeExecutionError) as raised:
                await box.execute(WRITE.format(path=str(self.outside / "out.txt")))
            self.assertIn("Read-only file system", str(raised.exception))
            self.assertIn("[ipybox] refused by the sandbox", str(raised.exception))
        self.assertFalse((self.outside / "out.txt").exists())

    async def test_the_control_unsandboxed_the_same_write_lands(self) -> None:
        async with CodeExecutor(working_dir=self.work, log_level="ERROR") as box:
            result = await box.execute(WRITE.format(path=str(self.outside / "out.txt")))
        self.assertEqual(result.text, "written")
        self.assertTrue((self.outside / "out.txt").exists())


OPEN_MANY = "handles = [open('/dev/null') for _ in range(200)]\nprint(len(handles))"


class LimitsTest(unittest.IsolatedAsyncioTestCase):
    async def test_a_limit_binds_the_kernel_and_its_state_is_kept(self) -> None:
        async with CodeExecutor(limits={"max_open_files": 64}, log_level="ERROR") as box:
            await box.execute("state = 7")
            with self.assertRaises(CodeExecutionError) as raised:
                await box.execute(OPEN_MANY)
            self.assertIn("Too many open files", str(raised.exception))
            self.assertEqual((await box.execute("print(state)")).text, "7")

    async def test_the_control_without_the_limit_the_files_open(self) -> None:
        async with CodeExecutor(log_level="ERROR") as box:
            self.assertEqual((await box.execute(OPEN_MANY)).text, "200")

    def test_an_unknown_limit_is_refused_by_name(self) -> None:
        with self.assertRaisesRegex(ValueError, "unknown limit 'memory'"):
            CodeExecutor(limits={"memory": "1G"})._engine_arguments({})  # noqa: SLF001


# An MCP server that starts and never answers `initialize`.
SILENT = {"command": sys.executable, "args": ["-c", "import time; time.sleep(120)"]}
CALL = "from ipybox_runtime.tool_client import call_tool\ncall_tool('silent', 'anything', {})"


class ConnectTimeoutTest(unittest.IsolatedAsyncioTestCase):
    async def test_a_server_that_never_answers_fails_the_call_after_connect_timeout(self) -> None:
        async with CodeExecutor(
            connect_timeout=1, mcp_servers={"silent": SILENT}, log_level="ERROR"
        ) as box:
            started = time.monotonic()
            with self.assertRaises(CodeExecutionError) as raised:
                await box.execute(CALL, timeout=60)
            waited = time.monotonic() - started
            self.assertIn("MCP server 'silent' got no answer within 1000 ms", str(raised.exception))
            self.assertLess(waited, 20)  # bounded by connect_timeout, not by the cell's 60 s
            self.assertEqual((await box.execute("print(1)")).text, "1")


if __name__ == "__main__":
    unittest.main()
