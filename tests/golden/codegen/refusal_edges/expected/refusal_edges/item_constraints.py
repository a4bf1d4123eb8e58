"""Constraints of list items, inner lists and map values.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Annotated, Dict, List, Optional

from ipybox_runtime.models import Constraints, Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'item_constraints'


class Params(ToolModel):
    g: Optional[List[Annotated[List[Annotated[str, Constraints(min_length=2)]], Constraints(max_items=1)]]] = None
    l: Optional[List[Annotated[str, Constraints(pattern='Z$')]]] = None
    m: Optional[Dict[str, Annotated[int, Constraints(le=10)]]] = None
    z: Optional[str] = Field(None, pattern='Z$')


def run(params: Params) -> TextResult:
    """Constraints of list items, inner lists and map values."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
