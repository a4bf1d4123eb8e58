"""An enum mixing true and 1 beside an object (the fuzz tier: typed Any).

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import List, Literal, Optional, Union

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'mixed_literals'


class F(ToolModel, extra='allow'):
    k: None


class Params(ToolModel):
    f: Optional[Union[Literal[True, 1, 's'], F]] = None
    n: Optional[List[None]] = None


def run(params: Params) -> TextResult:
    """An enum mixing true and 1 beside an object (the fuzz tier: typed Any)."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
