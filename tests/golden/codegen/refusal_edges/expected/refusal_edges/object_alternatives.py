"""A model or a map of constrained values: the map as pydantic sees it takes more.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Annotated, Dict, Optional, Union

from ipybox_runtime.models import Constraints, Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'object_alternatives'


class M(ToolModel):
    k: Optional[str] = None


class Nl(ToolModel):
    p1: Optional[float] = None
    p34: Optional[str] = Field(None, pattern='^$|^x')


class Params(ToolModel):
    m: Optional[Union[M, Dict[str, Annotated[int, Constraints(le=10)]]]] = None
    nl: Optional[Union[Nl, Dict[str, None]]] = None


def run(params: Params) -> TextResult:
    """A model or a map of constrained values: the map as pydantic sees it takes more."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
