"""Recursively search for files and directories matching a pattern.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import List

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'filesystem'
TOOL_NAME = 'search_files'


class Params(ToolModel):
    excludePatterns: List[str] = []
    path: str
    pattern: str


def run(params: Params) -> TextResult:
    """Recursively search for files and directories matching a pattern."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
