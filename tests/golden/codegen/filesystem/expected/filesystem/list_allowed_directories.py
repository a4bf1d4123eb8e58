"""Returns the list of directories that this server is allowed to access.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'filesystem'
TOOL_NAME = 'list_allowed_directories'


class Params(ToolModel):
    pass


def run(params: Params) -> TextResult:
    """Returns the list of directories that this server is allowed to access."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
