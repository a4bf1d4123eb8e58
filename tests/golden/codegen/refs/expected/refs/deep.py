"""Nesting deeper than the generator follows becomes Any.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Any, List, Optional

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refs'
TOOL_NAME = 'deep'


class C(ToolModel):
    d: Optional[int] = None


class B(ToolModel):
    c: Optional[List[List[C]]] = None


class A(ToolModel):
    b: Optional[B] = None


class Params(ToolModel):
    a: Optional[A] = None
    too_deep: Optional[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[List[Any]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]] = None


def run(params: Params) -> TextResult:
    """Nesting deeper than the generator follows becomes Any."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
