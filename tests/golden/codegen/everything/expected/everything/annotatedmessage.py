"""Demonstrates how annotations can be used to provide metadata about content

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from enum import Enum

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'everything'
TOOL_NAME = 'annotatedMessage'


class MessageType(str, Enum):
    error = 'error'
    success = 'success'
    debug = 'debug'


class Params(ToolModel):
    includeImage: bool = Field(False, description='Whether to include an example image')
    messageType: MessageType = Field(
        ...,
        description='Type of message to demonstrate different annotation patterns',
    )


def run(params: Params) -> TextResult:
    """Demonstrates how annotations can be used to provide metadata about content"""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
