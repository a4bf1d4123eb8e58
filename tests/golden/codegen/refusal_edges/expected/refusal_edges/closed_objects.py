"""Objects closed to every property (the fuzz tier: typed Dict[str, Any]).

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Optional, Union

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'closed_objects'


class E(ToolModel):
    pass


class U(ToolModel):
    n: Optional[str] = Field(None, max_length=4)


class U2(ToolModel):
    pass


class Params(ToolModel):
    e: Optional[E] = None
    u: Optional[Union[U, U2]] = None


def run(params: Params) -> TextResult:
    """Objects closed to every property (the fuzz tier: typed Dict[str, Any])."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
