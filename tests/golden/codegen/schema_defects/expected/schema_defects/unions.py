"""7: unions keep the alternative the value was written for.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import List, Optional, Union

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'unions'


class Shape(ToolModel):
    x: int


class Shape2(ToolModel):
    x: str


class Params(ToolModel):
    ids: Optional[Union[List[int], List[str]]] = None
    shape: Optional[Union[Shape, Shape2]] = None


class Result(ToolModel, extra='allow'):
    ids: Optional[Union[List[int], List[str]]] = None


def run(params: Params) -> Result:
    """7: unions keep the alternative the value was written for."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
