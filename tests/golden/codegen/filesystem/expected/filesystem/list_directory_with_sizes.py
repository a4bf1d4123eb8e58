"""Get a detailed listing of all files and directories in a specified path, including sizes.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from enum import Enum

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'filesystem'
TOOL_NAME = 'list_directory_with_sizes'


class SortBy(str, Enum):
    name_ = 'name'
    size = 'size'


class Params(ToolModel):
    path: str
    sortBy: SortBy = Field(SortBy.name_, description='Sort entries by name or size')


def run(params: Params) -> TextResult:
    """Get a detailed listing of all files and directories in a specified path, including sizes."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
