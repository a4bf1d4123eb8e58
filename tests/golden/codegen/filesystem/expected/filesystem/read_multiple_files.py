"""Read the contents of multiple files simultaneously.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import List

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'filesystem'
TOOL_NAME = 'read_multiple_files'


class Params(ToolModel):
    paths: List[str] = Field(
        ...,
        min_items=1,
        description=(
            'Array of file paths to read. Each path must be a string pointing to a '
            'valid file within allowed directories.'
        ),
    )


def run(params: Params) -> TextResult:
    """Read the contents of multiple files simultaneously."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
