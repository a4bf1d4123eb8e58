"""JSON null where the schema admits none, in arguments and in results.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Optional, Union

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'json_nulls'


class Maybe(ToolModel):
    a: Optional[str] = None


class Params(ToolModel):
    x: Optional[int] = None
    y: Optional[int] = Field(None, nullable=True)
    z: Optional[Maybe] = Field(None, nullable=True)


class Counted(ToolModel, extra='allow'):
    label: Optional[int] = None


class Blank(ToolModel, extra='allow'):
    label: None = None


class Result(ToolModel, extra='allow'):
    r: Optional[Union[Counted, Blank]] = None


def run(params: Params) -> Result:
    """JSON null where the schema admits none, in arguments and in results."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
