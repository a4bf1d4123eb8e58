"""Demonstrates a long running operation with progress updates

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'everything'
TOOL_NAME = 'longRunningOperation'


class Params(ToolModel):
    duration: float = Field(10, description='Duration of the operation in seconds')
    steps: float = Field(5, description='Number of steps in the operation')


def run(params: Params) -> TextResult:
    """Demonstrates a long running operation with progress updates"""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
