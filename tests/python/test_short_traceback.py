"""ipybox's own exceptions render without the runtime's and generated modules' frames."""

from __future__ import annotations

import importlib.util
import json
import sys
import types
import unittest


import support  # noqa: F401 - puts the runtime on the import path
from ipybox_runtime import short_traceback, tool_client
from ipybox_runtime.errors import ToolError
from ipybox_runtime.models import ToolModel

_GENERATED = '''
TOOL_NAME = "fail"
SERVER_NAME = "srv"


def run():
    """A docstring an agent should not have to read on every failure."""
    return call()
'''


def agents_line(call):
    return call()  # the agent's own frame


def rendered(error: BaseException) -> str:
    return "".join(error._render_traceback_())


def caught(call) -> BaseException:
    try:
        agents_line(call)
    except BaseException as error:  # noqa: BLE001 - the test inspects it
        return error
    raise AssertionError("nothing was raised")


def tool_failure():
    payload = {"result": {"text": "the tool failed", "is_error": True, "content": []}}
    return tool_client._output_from_response(200, json.dumps(payload).encode())


class ShortTracebackTest(unittest.TestCase):
    def test_a_tool_error_keeps_the_callers_frames_and_drops_the_runtimes(self):
        error = caught(tool_failure)
        self.assertIsInstance(error, ToolError)
        text = rendered(error)
        self.assertIn("agents_line", text)
        self.assertIn("tool_failure", text)
        self.assertNotIn("tool_client.py", text)
        self.assertEqual(text.count("the tool failed"), 1, text)

    def test_a_generated_modules_frame_is_dropped_too(self):
        module = types.ModuleType("mcptools.srv.fail")
        module.call = tool_failure
        exec(compile(_GENERATED, "/ws/mcptools/srv/fail.py", "exec"), module.__dict__)
        sys.modules[module.__name__] = module
        try:
            text = rendered(caught(module.run))
        finally:
            del sys.modules[module.__name__]
        self.assertNotIn("mcptools/srv/fail.py", text)
        self.assertIn("agents_line", text)

    def test_the_control_a_plain_format_shows_the_runtimes_frames(self):
        import traceback

        error = caught(tool_failure)
        text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
        self.assertIn("tool_client.py", text)


class _Params(ToolModel):
    message: str


def ipython_cell_output(code: str, extension: bool) -> str:
    """What IPython shows for a cell (its traceback included), with or without the extension."""
    import contextlib
    import io

    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell(colors="NoColor")
    if extension:
        short_traceback.load_ipython_extension(shell)
    shell.user_ns["Params"] = _Params
    shown = io.StringIO()
    with contextlib.redirect_stdout(shown), contextlib.redirect_stderr(shown):
        shell.run_cell(code)
    return shown.getvalue()


@unittest.skipUnless(importlib.util.find_spec("IPython"), "IPython renders a kernel's tracebacks")
class ValidationTracebackTest(unittest.TestCase):
    """A value a typed API refuses: the agent's traceback ends at its own line, without the
    frames of ipybox's models or pydantic (an agent read 1.5 KB of them to learn one line)."""

    def test_only_the_callers_line_and_the_message(self):
        text = ipython_cell_output("Params(message=5)", extension=True)
        self.assertIn("ValidationError", text)
        self.assertIn("----> 1 Params(message=5)", text)
        self.assertIn("expected a string, got 5", text)
        self.assertNotIn("models.py", text)
        self.assertLess(len(text), 700, text)

    def test_the_control_without_the_extension_the_models_frames_show(self):
        text = ipython_cell_output("Params(message=5)", extension=False)
        self.assertIn("models.py", text)

    def test_an_agents_own_error_is_shown_whole(self):
        code = "def mine():\n    raise ValueError('my own')\nmine()"
        text = ipython_cell_output(code, extension=True)
        self.assertIn("----> 2     raise ValueError('my own')", text)


if __name__ == "__main__":
    unittest.main()
