"""CodeExecutor of ipybox_native: executions, streaming, timeouts, cancel, reset and the
executor's settings, as the reference's API documents them."""

from __future__ import annotations

import asyncio
import importlib.util
import os
import tempfile
import time
import unittest
from pathlib import Path

from ipybox_native import (
    CodeExecutionChunk,
    CodeExecutionError,
    CodeExecutionResult,
    CodeExecutor,
)
from sdk_support import Gate


class ExecutionTest(unittest.IsolatedAsyncioTestCase):
    async def asyncSetUp(self) -> None:
        self.scratch = tempfile.TemporaryDirectory()
        self.executor = CodeExecutor(working_dir=Path(self.scratch.name), log_level="ERROR")
        await self.executor.start()

    async def asyncTearDown(self) -> None:
        await self.executor.stop()
        self.scratch.cleanup()

    async def test_output_is_the_stripped_text_and_state_persists(self) -> None:
        await self.executor.execute("x = 41")
        result = await self.executor.execute("print(x + 1)\n2 * 3")
        self.assertEqual(result.text, "42\n6")
        self.assertEqual(result.images, [])

    async def test_no_output_is_none(self) -> None:
        self.assertIsNone((await self.executor.execute("y = 1")).text)
        self.assertIsNone((await self.executor.execute("")).text)

    async def test_an_exception_raises_code_execution_error_with_its_type(self) -> None:
        with self.assertRaises(CodeExecutionError) as raised:
            await self.executor.execute("def boom():\n    raise ValueError('bad value')\nboom()")
        self.assertIn("ValueError: bad value", str(raised.exception))
        self.assertIn("boom", str(raised.exception))  # the traceback
        self.assertEqual(raised.exception.kind, "exception")
        self.assertEqual(raised.exception.ename, "ValueError")
        self.assertNotIn("\x1b[", str(raised.exception))

    async def test_chunks_come_while_the_code_runs_and_the_result_holds_all(self) -> None:
        # The cell prints its second part only once the test has seen the first as a chunk: a
        # stream that held chunks back until the end would leave it waiting at the gate.
        gate = Gate(Path(self.scratch.name))
        code = "print('part 0', flush=True)\n" + gate.wait_code("print('part 1')\nprint('part 2')")
        chunks = []
        result = None
        async for item in self.executor.stream(code, chunks=True):
            if isinstance(item, CodeExecutionChunk):
                chunks.append(item.text)
                gate.open()
            elif isinstance(item, CodeExecutionResult):
                result = item
        self.assertIn("part 0", chunks[0])
        self.assertNotIn("part 1", chunks[0])
        self.assertEqual("".join(chunks).strip(), result.text)
        self.assertEqual(result.text, "part 0\npart 1\npart 2")

    async def test_without_chunks_only_the_result_is_yielded(self) -> None:
        items = [item async for item in self.executor.stream("print('a'); print('b')")]
        self.assertEqual(len(items), 1)
        self.assertEqual(items[0].text, "a\nb")

    async def test_a_timeout_interrupts_keeps_state_and_names_the_value(self) -> None:
        await self.executor.execute("kept = 'yes'")
        started = time.monotonic()
        with self.assertRaises(asyncio.TimeoutError) as raised:
            await self.executor.execute("import time; time.sleep(20)", timeout=0.3)
        self.assertLess(time.monotonic() - started, 5)
        self.assertIn("0.30s", str(raised.exception))
        self.assertEqual((await self.executor.execute("print(kept)")).text, "yes")

    async def test_cancel_ends_the_stream_without_a_result(self) -> None:
        loop = asyncio.get_running_loop()
        loop.call_later(0.5, self.executor.cancel)
        started = time.monotonic()
        items = [item async for item in self.executor.stream("import time; time.sleep(20)")]
        self.assertEqual(items, [])
        self.assertLess(time.monotonic() - started, 5)
        loop.call_later(0.5, self.executor.cancel)
        result = await self.executor.execute("import time; time.sleep(20)", timeout=10)
        self.assertEqual((result.text, result.images), (None, []))
        self.assertEqual((await self.executor.execute("print('after')")).text, "after")

    async def test_cancel_when_idle_does_nothing(self) -> None:
        self.executor.cancel()
        self.assertEqual((await self.executor.execute("print(1)")).text, "1")

    async def test_leaving_a_stream_early_cancels_its_execution(self) -> None:
        code = "import time\nprint('first', flush=True)\ntime.sleep(20)"
        started = time.monotonic()
        async for _ in self.executor.stream(code, chunks=True):
            break
        self.assertEqual((await self.executor.execute("print('next')")).text, "next")
        self.assertLess(time.monotonic() - started, 8)

    async def test_reset_clears_the_kernel_and_keeps_files(self) -> None:
        await self.executor.execute("z = 1\nopen('kept.txt', 'w').write('file')")
        await self.executor.reset()
        with self.assertRaises(CodeExecutionError) as raised:
            await self.executor.execute("z")
        self.assertIn("NameError", str(raised.exception))
        self.assertEqual(
            (await self.executor.execute("print(open('kept.txt').read())")).text, "file"
        )

    async def test_working_dir_is_restored_after_each_cell_saying_so(self) -> None:
        home = str(Path(self.scratch.name).resolve())
        self.assertEqual((await self.executor.execute("import os; print(os.getcwd())")).text, home)
        result = await self.executor.execute("os.chdir('/')")
        self.assertEqual(result.text, f"[ipybox] cwd reset to {home}")
        self.assertEqual((await self.executor.execute("print(os.getcwd())")).text, home)


class SettingsTest(unittest.IsolatedAsyncioTestCase):
    async def test_kernel_env_is_the_environment_beyond_the_allowlist(self) -> None:
        os.environ["KERNEL_ENV_LEAKED"] = "from the host"
        os.environ["SDK_TEST_HOST_ONLY"] = "host"
        try:
            async with CodeExecutor(kernel_env={"GIVEN": "value"}, log_level="ERROR") as executor:
                names = "'GIVEN', 'LEAKED', 'SDK_TEST_HOST_ONLY'"
                code = f"import os; print(*(os.getenv(n) for n in ({names})))"
                self.assertEqual((await executor.execute(code)).text, "value None None")
        finally:
            del os.environ["KERNEL_ENV_LEAKED"], os.environ["SDK_TEST_HOST_ONLY"]

    async def test_without_working_dir_a_change_of_directory_persists(self) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            async with CodeExecutor(log_level="ERROR", spare_kernel=False) as executor:
                self.assertIsNone(
                    (await executor.execute(f"import os; os.chdir({scratch!r})")).text
                )
                self.assertEqual((await executor.execute("print(os.getcwd())")).text, scratch)

    @unittest.skipUnless(
        importlib.util.find_spec("matplotlib"), "the kernel (this interpreter) has no matplotlib"
    )
    async def test_images_are_png_files_in_images_dir(self) -> None:
        with tempfile.TemporaryDirectory() as scratch:
            images = Path(scratch) / "plots"
            async with CodeExecutor(images_dir=images, log_level="ERROR") as executor:
                code = "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()"
                result = await executor.execute(code)
            self.assertEqual(len(result.images), 1)
            self.assertEqual(result.images[0].parent.resolve(), images.resolve())
            self.assertEqual(result.images[0].read_bytes()[:8], b"\x89PNG\r\n\x1a\n")

    async def test_shell_escape_without_shell_approval_is_refused(self) -> None:
        with self.assertRaises(ValueError):
            CodeExecutor(require_shell_escape=True)

    async def test_a_missing_interpreter_fails_the_start_with_its_name(self) -> None:
        executor = CodeExecutor(python="/nonexistent/python3", log_level="ERROR")
        with self.assertRaises(CodeExecutionError) as raised:
            await executor.start()
        self.assertEqual(raised.exception.kind, "start_failed")
        self.assertIn("/nonexistent/python3", str(raised.exception))
        self.assertIsNone(executor._engine)  # noqa: SLF001 - nothing left running


if __name__ == "__main__":
    unittest.main()
