"""ipybox's own exceptions render without the runtime's and generated modules' frames."""

from __future__ import annotations

import json
import sys
import types
import unittest

import support  # noqa: F401 - puts the runtime on the import path
from ipybox_runtime import tool_client
from ipybox_runtime.errors import ToolError

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


if __name__ == "__main__":
    unittest.main()
