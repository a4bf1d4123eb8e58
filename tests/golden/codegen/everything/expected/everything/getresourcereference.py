"""Returns a resource reference that can be used by MCP clients

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'everything'
TOOL_NAME = 'getResourceReference'


class Params(ToolModel):
    resourceId: float = Field(
        ...,
        ge=1,
        le=100,
        description='ID of the resource to reference (1-100)',
    )


def run(params: Params) -> TextResult:
    """Returns a resource reference that can be used by MCP clients"""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
