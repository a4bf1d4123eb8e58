"""An allOf that requires a property another member forbids: no value fits it.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'contradictory_all_of'


class Params(ToolModel):
    p: Optional[str] = None


def run(params: Params) -> TextResult:
    """An allOf that requires a property another member forbids: no value fits it."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
