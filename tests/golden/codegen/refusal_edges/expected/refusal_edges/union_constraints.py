"""Constraints of union members (the fuzz tier: left to the server unlisted).

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Annotated, Literal, Optional, Union

from ipybox_runtime.models import Constraints, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'union_constraints'


class Params(ToolModel):
    n: Optional[Union[bool, Annotated[int, Constraints(multiple_of=5)]]] = None
    s: Optional[Union[Literal['def'], Annotated[str, Constraints(max_length=1)]]] = None
    u: Optional[Union[int, Annotated[str, Constraints(pattern='^[A-Z]{2}$')]]] = None


def run(params: Params) -> TextResult:
    """Constraints of union members (the fuzz tier: left to the server unlisted)."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
