"""Enums and consts of non-integer numbers (the fuzz tier: typed Any or float).

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Literal, Optional, Union

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'float_enums'


class Params(ToolModel):
    p: Optional[Literal[-0.5, 'a']] = None
    q: Optional[Literal[2.5]] = None
    r: Optional[Union[Literal['a', -0.5], str]] = None


def run(params: Params) -> TextResult:
    """Enums and consts of non-integer numbers (the fuzz tier: typed Any or float)."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
