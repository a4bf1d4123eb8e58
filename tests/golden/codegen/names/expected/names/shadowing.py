"""Input and output schemas both define Item, Params and Result.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from enum import Enum
from typing import Optional

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'names'
TOOL_NAME = 'shadowing'


class Enum2(str, Enum):
    x = 'x'
    y = 'y'


class Item(ToolModel):
    a: Optional[int] = None


class Params2(ToolModel):
    b: Optional[int] = None


class Result2(ToolModel):
    c: Optional[int] = None


class Params(ToolModel):
    enum: Optional[Enum2] = None
    item: Optional[Item] = None
    params: Optional[Params2] = None
    result: Optional[Result2] = None


class Item2(ToolModel, extra='allow'):
    d: Optional[str] = None


class Result(ToolModel, extra='allow'):
    item: Optional[Item2] = None


def run(params: Params) -> Result:
    """Input and output schemas both define Item, Params and Result."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
