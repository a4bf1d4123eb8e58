"""Bounds and steps of numbers near 2**60, which pydantic tests in floats.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'exact_bounds'


class Params(ToolModel):
    f: Optional[float] = Field(None, le=1152921504606846975)
    m: Optional[float] = Field(None, multiple_of=5)
    n: Optional[int] = Field(None, gt=-10, le=1152921504606846976, multiple_of=5)


def run(params: Params) -> TextResult:
    """Bounds and steps of numbers near 2**60, which pydantic tests in floats."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
