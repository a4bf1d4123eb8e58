"""4: an explicit null goes out where the schema admits it.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Any, List, Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'nullable'


class Params(ToolModel):
    anything: Any = None
    d: Optional[int] = Field(3, nullable=True)
    m: Optional[int] = Field(None, nullable=True)
    n: Optional[str] = Field(None, nullable=True)
    nulls: Optional[List[None]] = None
    plain: Optional[str] = None


def run(params: Params) -> TextResult:
    """4: an explicit null goes out where the schema admits it."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
