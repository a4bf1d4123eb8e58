"""6: enums mixing integers and booleans keep each value.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Literal, Optional

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'mixed_enum'


class Params(ToolModel):
    a: Optional[Literal[1, True]] = None
    b: Optional[Literal[0, False, 'x']] = None
    c: Optional[Literal[2, True]] = None


def run(params: Params) -> TextResult:
    """6: enums mixing integers and booleans keep each value."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
