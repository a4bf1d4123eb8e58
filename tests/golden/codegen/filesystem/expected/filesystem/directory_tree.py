"""Get a recursive tree view of files and directories as a JSON structure.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import List

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'filesystem'
TOOL_NAME = 'directory_tree'


class Params(ToolModel):
    excludePatterns: List[str] = []
    path: str


class Result(ToolModel, extra='allow'):
    content: str


def run(params: Params) -> Result:
    """Get a recursive tree view of files and directories as a JSON structure."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
