"""allOf: a closing member, objects without properties, scalars to merge.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Any, Dict, Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'all_of'


class A(ToolModel):
    x: Optional[bool] = None


class T(ToolModel):
    v: Optional[int] = Field(None, le=10)


class Params(ToolModel):
    a: Optional[A] = None
    i: Optional[int] = Field(None, le=10)
    o: Optional[Dict[str, Any]] = None
    t: Optional[T] = None


def run(params: Params) -> TextResult:
    """allOf: a closing member, objects without properties, scalars to merge."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
