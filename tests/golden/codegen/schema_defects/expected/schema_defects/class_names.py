"""1: nested classes whose PascalCase name is a keyword.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from enum import Enum
from typing import Optional

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'class_names'


class TrueChoice(str, Enum):
    a = 'a'
    b = 'b'


class NoneModel(ToolModel):
    a: Optional[str] = None


class FalseModel(ToolModel):
    b: Optional[int] = None


class Params(ToolModel):
    flag: Optional[TrueChoice] = None
    none: Optional[NoneModel] = None
    other: Optional[FalseModel] = None


def run(params: Params) -> TextResult:
    """1: nested classes whose PascalCase name is a keyword."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
