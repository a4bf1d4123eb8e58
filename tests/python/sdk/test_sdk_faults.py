"""ipybox_native under faults: the kernel dies mid-stream, stop() while a cell runs, and the
Python process killed with a kernel up. Nothing may be left running."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest
from pathlib import Path

from ipybox_native import CodeExecutionChunk, CodeExecutionError, CodeExecutor
from sdk_support import HERE, Gate, descendants, wait_until_gone


class FaultTest(unittest.IsolatedAsyncioTestCase):
    async def test_kernel_death_during_a_stream_fails_it_and_the_next_cell_runs(self) -> None:
        # The kernel dies once the test has seen its output, which ipykernel may otherwise lose
        # with the process (jupyter_client loses it too when a kernel exits right after a flush).
        scratch = tempfile.TemporaryDirectory()
        self.addCleanup(scratch.cleanup)
        gate = Gate(Path(scratch.name))
        async with CodeExecutor(log_level="ERROR") as executor:
            await executor.execute("state = 1")
            chunks = []
            with self.assertRaises(CodeExecutionError) as raised:
                code = "print('before', flush=True)\n" + gate.wait_code("_os._exit(3)")
                async for item in executor.stream(code, chunks=True):
                    if isinstance(item, CodeExecutionChunk):
                        chunks.append(item.text)
                        gate.open()
            self.assertEqual(raised.exception.kind, "kernel_died")
            self.assertFalse(raised.exception.state_kept)
            self.assertIn("before", "".join(chunks))
            result = await executor.execute("print('state' in dir())")
            self.assertEqual(result.text, "False")

    async def test_stop_with_a_cell_running_ends_it_and_every_process(self) -> None:
        executor = CodeExecutor(log_level="ERROR")
        await executor.start()
        engine = executor._engine.pid  # noqa: SLF001
        tree = [engine, *descendants(engine)]
        self.assertIn(executor.kernel_pid, tree)

        async def run() -> list:
            return [item async for item in executor.stream("import time; time.sleep(60)")]

        running = asyncio.get_running_loop().create_task(run())
        await asyncio.sleep(0.5)
        started = time.monotonic()
        await executor.stop()
        self.assertLess(time.monotonic() - started, 10)
        with self.assertRaises(CodeExecutionError):
            await asyncio.wait_for(running, 5)
        self.assertEqual(wait_until_gone(tree), [])


# A child Python that starts an executor, reports its processes, then waits to be killed.
CHILD = textwrap.dedent(
    """
    import asyncio, json, sys
    sys.path[:0] = {paths!r}
    from ipybox_native import CodeExecutor
    from sdk_support import descendants

    async def main():
        executor = CodeExecutor(log_level="ERROR")
        await executor.start()
        await executor.execute("import time")
        engine = executor._engine.pid
        print(json.dumps([engine, *descendants(engine)]), flush=True)
        await asyncio.sleep(120)

    asyncio.run(main())
    """
)


class KilledHostTest(unittest.TestCase):
    def test_a_killed_python_process_leaves_nothing_running(self) -> None:
        script = CHILD.format(paths=[str(HERE), *sys.path])
        child = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        try:
            tree = json.loads(child.stdout.readline())
            self.assertGreaterEqual(len(tree), 2, "the engine and at least its kernel")
            os.kill(child.pid, signal.SIGKILL)
            child.wait(10)
            self.assertEqual(wait_until_gone(tree), [])
        finally:
            if child.poll() is None:
                child.kill()
            child.stdout.close()


if __name__ == "__main__":
    unittest.main()
