"""10: item counts of an outer array do not reach the inner arrays.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Annotated, List, Optional

from ipybox_runtime.models import Constraints, Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'nested_counts'


class Params(ToolModel):
    flat: Optional[List[int]] = Field(None, max_items=1)
    grid: Optional[Annotated[List[List[int]], Constraints(max_items=1)]] = None


class Result(ToolModel, extra='allow'):
    rows: Optional[Annotated[List[List[int]], Constraints(min_items=2)]] = None


def run(params: Params) -> Result:
    """10: item counts of an outer array do not reach the inner arrays."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
