"""A string input schema, against the spec.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'empty_schemas'
TOOL_NAME = 'not_an_object'


class Params(ToolModel, extra='allow'):
    pass


def run(params: Params) -> TextResult:
    """A string input schema, against the spec."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
