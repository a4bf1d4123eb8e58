"""3: a property named __pydantic_self__, in and out.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'pydantic_self'


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `pydantic_self__`: '__pydantic_self__'
    """

    pydantic_self__: str = Field(..., alias='__pydantic_self__')
    b: Optional[int] = None


class Result(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'__pydantic_self__': ...}`: this model keeps undeclared keys, so a Python name is sent as
    a key of its own.

    - `pydantic_self__`: '__pydantic_self__'
    """

    pydantic_self__: Optional[str] = Field(None, alias='__pydantic_self__')


def run(params: Params) -> Result:
    """3: a property named __pydantic_self__, in and out."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
