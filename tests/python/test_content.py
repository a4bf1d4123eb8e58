"""Every MCP content type reaches kernel code (issue 25.4), against a fake tool server that
answers as the host does (native/app/executor/src/tool_result_content.hpp)."""

from __future__ import annotations

import importlib
import pathlib
import unittest

import support
from ipybox_runtime.errors import ToolError, ToolRunnerError
from ipybox_runtime.tool_client import ContentItem, TextResult, call_tool

CONTENT = [
    {"type": "text", "text": "hello"},
    {"type": "image", "path": "/w/images/a.png", "mime_type": "image/png"},
    {"type": "audio", "path": "/w/images/b.wav", "mime_type": "audio/wav"},
    {"type": "resource", "uri": "test://text", "mime_type": "text/plain", "text": "body"},
    {"type": "resource", "uri": "test://blob", "mime_type": "application/pdf", "path": "/w/c.pdf"},
    {
        "type": "resource_link",
        "uri": "test://linked",
        "name": "linked.txt",
        "mime_type": "text/plain",
        "title": None,
        "description": "a link",
    },
]


def answer(is_error: bool = False, structured=None):
    def handler(request):
        result = {
            "text": "hello\nbody\n[resource: test://linked]",
            "structured": structured,
            "images": ["/w/images/a.png"],
            "is_error": is_error,
            "content": CONTENT,
        }
        return 200, {"result": result}

    return handler


class ContentTest(unittest.TestCase):
    def test_every_content_type_reaches_the_output(self):
        with support.fake_tool_server(answer()):
            output = call_tool("s", "t", {})
        self.assertEqual([item.type for item in output.content], [c["type"] for c in CONTENT])
        self.assertEqual(
            output.audio,
            [ContentItem("audio", path=pathlib.Path("/w/images/b.wav"), mime_type="audio/wav")],
        )
        text, blob = output.resources
        self.assertEqual(
            (text.uri, text.mime_type, text.text), ("test://text", "text/plain", "body")
        )
        self.assertEqual((blob.uri, blob.path), ("test://blob", pathlib.Path("/w/c.pdf")))
        (link,) = output.resource_links
        self.assertEqual(
            (link.uri, link.name, link.mime_type, link.description),
            ("test://linked", "linked.txt", "text/plain", "a link"),
        )
        self.assertEqual(output.content[1].mime_type, "image/png")

    def test_text_result_carries_every_item(self):
        with support.fake_tool_server(answer()):
            result = TextResult.from_output(call_tool("s", "t", {}))
        self.assertEqual(result.content[0].text, "hello")
        self.assertEqual(len(result.audio), 1)
        self.assertEqual(len(result.resources), 2)
        self.assertEqual(result.resource_links[0].name, "linked.txt")
        self.assertEqual(result.images, [pathlib.Path("/w/images/a.png")])

    def test_an_error_result_raises_tool_error_with_every_item(self):
        with support.fake_tool_server(answer(is_error=True)):
            with self.assertRaises(ToolError) as caught:
                call_tool("s", "t", {})
        self.assertIsInstance(caught.exception, ToolRunnerError)
        self.assertEqual(len(caught.exception.content), len(CONTENT))
        self.assertIn("hello", str(caught.exception))

    def test_a_structured_result_keeps_its_content_items(self):
        module = importlib.import_module("everything.getstructuredcontent")
        structured = {"temperature": 1, "conditions": "c", "humidity": 2}
        with support.fake_tool_server(answer(structured=structured)):
            result = module.run(module.Params(location="Chicago"))
        self.assertEqual(result.tool_output().resource_links[0].uri, "test://linked")
        self.assertIsNone(module.Result.from_arguments(structured).tool_output())

    def test_a_module_says_what_run_returns(self):
        self.assertIn("`run()` returns", importlib.import_module("everything.echo").__doc__)


if __name__ == "__main__":
    unittest.main()
