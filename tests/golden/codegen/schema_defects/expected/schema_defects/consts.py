"""9: only required constants go out unset.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Literal, Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'consts'


class Params(ToolModel):
    contradicted: Optional[Literal['c']] = None
    kind: Literal['a'] = Field('a', constant=True)
    optional: Literal['b'] = 'b'


def run(params: Params) -> TextResult:
    """9: only required constants go out unset."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
