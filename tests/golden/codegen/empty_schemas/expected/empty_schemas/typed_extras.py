"""Additional properties with a schema.

Checked by the server only (Params leaves these keywords of the input schema to the server, at
least where they appear here): `additionalProperties`.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'empty_schemas'
TOOL_NAME = 'typed_extras'


class Params(ToolModel, extra='allow'):
    a: Optional[str] = None


def run(params: Params) -> TextResult:
    """Additional properties with a schema."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
