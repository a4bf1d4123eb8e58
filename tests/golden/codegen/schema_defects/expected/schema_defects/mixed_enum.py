"""6: enums mixing integers and booleans keep each value.

Typed more loosely than the schema (the value is sent as given):

- Params.a: an enum or const that mixes true/false with 1/0 (equal in Python) is typed Any
- Params.b: an enum or const that mixes true/false with 1/0 (equal in Python) is typed Any

Checked by the server only (Params leaves these keywords of the input schema to the server, at
least where they appear here): `const`, `enum`.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Any, Literal, Optional

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'mixed_enum'


class Params(ToolModel):
    a: Any = None
    b: Any = None
    c: Optional[Literal[2, True]] = None


def run(params: Params) -> TextResult:
    """6: enums mixing integers and booleans keep each value."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
