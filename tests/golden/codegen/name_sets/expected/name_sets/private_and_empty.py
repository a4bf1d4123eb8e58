"""Dunders, sunders, the empty name and names that are no identifiers, beside the names they mangle
to.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'name_sets'
TOOL_NAME = 'private_and_empty'


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `field_3`: ''
    - `field_4`: '_'
    - `field_5`: '__'
    - `dict___2`: '__dict__'
    - `private_2`: '_private'
    - `a_b_2`: 'a b'
    """

    field_3: Optional[int] = Field(None, alias='')
    field_4: Optional[int] = Field(None, alias='_')
    field_5: Optional[str] = Field(None, alias='__')
    dict___2: Optional[int] = Field(None, alias='__dict__')
    private_2: Optional[int] = Field(None, alias='_private')
    a_b_2: Optional[int] = Field(None, alias='a b')
    a_b: Optional[str] = None
    dict__: Optional[str] = None
    field: Optional[str] = None
    field_2: Optional[bool] = None
    match: Optional[int] = None
    private: Optional[str] = None
    type: Optional[str] = None


class Result(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of its
    own.

    - `field_2`: ''
    - `dict__`: '__dict__'
    """

    field_2: Optional[int] = Field(None, alias='')
    dict__: Optional[int] = Field(None, alias='__dict__')
    field: Optional[str] = None


def run(params: Params) -> Result:
    """Dunders, sunders, the empty name and names that are no identifiers, beside the names they
    mangle to.
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
