"""10: item counts of an outer array do not reach the inner arrays.

Checked by the server only (Params leaves these keywords of the input schema to the server, at
least where they appear here): `maxItems`.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import List, Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'nested_counts'


class Params(ToolModel):
    flat: Optional[List[int]] = Field(None, max_items=1)
    grid: Optional[List[List[int]]] = None


class Result(ToolModel, extra='allow'):
    rows: Optional[List[List[int]]] = None


def run(params: Params) -> Result:
    """10: item counts of an outer array do not reach the inner arrays."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
