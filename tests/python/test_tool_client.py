"""ipybox_runtime.tool_client against a fake tool server on a Unix socket."""

from __future__ import annotations

import json
import os
import pathlib
import tempfile
import unittest
import unittest.mock

import support
from ipybox_runtime.errors import (
    ApprovalRejectedError,
    ApprovalTimeoutError,
    ToolRunnerError,
    ToolServerUnavailableError,
)
from ipybox_runtime.tool_client import TextResult, ToolOutput, call_tool


def echo(request):
    return support.ok_result(text="echoed", structured=request)


class CallToolTest(unittest.TestCase):
    def test_posts_run_with_bearer_token_and_json_body(self):
        with support.fake_tool_server(echo) as server:
            output = call_tool("github", "search-repos", {"query": "x", "perPage": 3})
        request = server.requests[0]
        self.assertEqual(request["path"], "/run")
        self.assertEqual(request["authorization"], f"Bearer {support.TOKEN}")
        self.assertEqual(request["content_type"], "application/json")
        self.assertEqual(request["content_length"], len(request["raw"]))
        body = json.loads(request["raw"])
        self.assertEqual(
            body,
            {
                "server_name": "github",
                "tool_name": "search-repos",
                "tool_args": {"query": "x", "perPage": 3},
            },
        )
        self.assertIsInstance(body["tool_args"]["perPage"], int)
        self.assertIsInstance(output, ToolOutput)
        self.assertEqual(output.text, "echoed")
        self.assertEqual(output.structured, body)

    def test_sends_non_ascii_and_control_characters_intact(self):
        arguments = {"text": "zürich\n\x00\u2028\"'\\"}
        with support.fake_tool_server(echo):
            output = call_tool("s", "t", arguments)
        self.assertEqual(output.structured["tool_args"], arguments)

    def test_returns_images_as_paths(self):
        with support.fake_tool_server(lambda r: support.ok_result("pic", None, ["/tmp/a.png"])):
            output = call_tool("s", "t", {})
        self.assertEqual(output.images, [pathlib.Path("/tmp/a.png")])

    def test_maps_rejected_to_approval_rejected_error(self):
        answer = support.error_result("rejected", "Approval request for s.t rejected")
        with support.fake_tool_server(lambda r: answer):
            with self.assertRaises(ApprovalRejectedError) as raised:
                call_tool("s", "t", {})
        self.assertEqual(str(raised.exception), "Approval request for s.t rejected")

    def test_maps_timeout_to_approval_timeout_error(self):
        answer = support.error_result("timeout", "Approval request for s.t expired")
        with support.fake_tool_server(lambda r: answer):
            with self.assertRaises(ApprovalTimeoutError) as raised:
                call_tool("s", "t", {})
        self.assertIn("expired", str(raised.exception))

    def test_maps_every_other_error_type_to_tool_runner_error_with_its_message(self):
        kinds = ("tool_error", "unknown_server", "bad_request", "server_error", "something_new")
        for kind in kinds:
            with self.subTest(kind=kind):
                message = f"{kind} happened"
                answer = support.error_result(kind, message, 400)
                with support.fake_tool_server(lambda r, a=answer: a):
                    with self.assertRaises(ToolRunnerError) as raised:
                        call_tool("s", "t", {})
                self.assertIs(type(raised.exception), ToolRunnerError)
                self.assertEqual(str(raised.exception), message)

    def test_wrong_token_is_a_tool_runner_error(self):
        with support.fake_tool_server(echo, token="wrong"):
            with self.assertRaises(ToolRunnerError) as raised:
                call_tool("s", "t", {})
        self.assertIs(type(raised.exception), ToolRunnerError)
        self.assertIn("token", str(raised.exception))

    def test_result_flagged_as_error_raises_tool_runner_error(self):
        answer = (
            200,
            {
                "result": {
                    "text": "Error executing tool t: boom",
                    "structured": None,
                    "images": [],
                    "is_error": True,
                }
            },
        )
        with support.fake_tool_server(lambda r: answer):
            with self.assertRaisesRegex(ToolRunnerError, "boom"):
                call_tool("s", "t", {})

    def test_non_json_answer_is_a_tool_runner_error(self):
        with support.fake_tool_server(lambda r: (200, b"<html>")):
            with self.assertRaisesRegex(ToolRunnerError, "malformed"):
                call_tool("s", "t", {})
        with support.fake_tool_server(lambda r: (500, b"internal")):
            with self.assertRaisesRegex(ToolRunnerError, "HTTP 500"):
                call_tool("s", "t", {})

    def test_missing_environment_means_server_not_configured(self):
        names = ("IPYBOX_TOOL_SOCKET", "IPYBOX_TOOL_TOKEN")
        saved = {name: os.environ.pop(name, None) for name in names}
        try:
            with self.assertRaisesRegex(ToolServerUnavailableError, "not configured"):
                call_tool("s", "t", {})
        finally:
            os.environ.update({k: v for k, v in saved.items() if v is not None})

    def test_unreachable_socket_means_server_not_running(self):
        with tempfile.TemporaryDirectory() as directory:
            socket_path = os.path.join(directory, "gone.sock")
            env = {"IPYBOX_TOOL_SOCKET": socket_path, "IPYBOX_TOOL_TOKEN": "x"}
            with unittest.mock.patch.dict(os.environ, env):
                with self.assertRaisesRegex(ToolServerUnavailableError, "not running"):
                    call_tool("s", "t", {})

    def test_timeout_from_environment_bounds_the_wait(self):
        with support.fake_tool_server(lambda r: support.slow(1.5, support.ok_result("late"))):
            with unittest.mock.patch.dict(os.environ, {"IPYBOX_TOOL_TIMEOUT": "0.2"}):
                with self.assertRaisesRegex(ToolRunnerError, "within 0.2 s"):
                    call_tool("s", "t", {})

    def test_invalid_timeout_setting_is_reported(self):
        with support.fake_tool_server(echo):
            with unittest.mock.patch.dict(os.environ, {"IPYBOX_TOOL_TIMEOUT": "soon"}):
                with self.assertRaisesRegex(ToolRunnerError, "IPYBOX_TOOL_TIMEOUT"):
                    call_tool("s", "t", {})

    def test_arguments_that_are_not_json_are_refused_before_sending(self):
        with support.fake_tool_server(echo) as server:
            with self.assertRaisesRegex(ToolRunnerError, "not JSON"):
                call_tool("s", "t", {"x": float("nan")})
        self.assertEqual(server.requests, [])


class TextResultTest(unittest.TestCase):
    def test_is_a_str_carrying_images_and_structured_content(self):
        result = TextResult.from_output(ToolOutput("hello", {"a": 1}, [pathlib.Path("/x.png")]))
        self.assertIsInstance(result, str)
        self.assertEqual(result, "hello")
        self.assertEqual(result.upper(), "HELLO")
        self.assertEqual(result.images, [pathlib.Path("/x.png")])
        self.assertEqual(result.structured, {"a": 1})
        self.assertEqual(repr(result), "'hello'")

    def test_defaults_to_no_images(self):
        self.assertEqual(TextResult("x").images, [])
        self.assertIsNone(TextResult("x").structured)


if __name__ == "__main__":
    unittest.main()
