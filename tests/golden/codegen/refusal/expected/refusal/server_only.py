"""Keywords Python does not check.

Checked by the server only (Params leaves these keywords of the input schema to the server, at
least where they appear here): `dependentSchemas`, `if`, `minProperties`, `then`, `uniqueItems`.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Annotated, List, Optional, Union

from ipybox_runtime.models import Constraints, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal'
TOOL_NAME = 'server_only'


class Shape(ToolModel):
    kind: Optional[str] = None


class Params(ToolModel):
    choice: Optional[Union[Annotated[str, Constraints(max_length=3)], Annotated[int, Constraints(ge=0)]]] = None
    shape: Optional[Shape] = None
    tags: Optional[List[Annotated[str, Constraints(min_length=2)]]] = None


def run(params: Params) -> TextResult:
    """Keywords Python does not check."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
