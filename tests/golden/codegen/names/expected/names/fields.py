"""Tool named 'fields'.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from enum import Enum
from typing import List, Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'names'
TOOL_NAME = 'fields'


class Item(ToolModel):
    x: Optional[int] = None


class Item2(ToolModel):
    x: Optional[int] = None


class Mode(str, Enum):
    name_ = 'name'
    value_ = 'value'
    mro_ = 'mro'
    missing_ = '_missing_'
    class__ = '__class__'
    a_b_2 = 'a b'
    A_B = 'A-B'
    a_b = 'a_b'
    None_ = 'None'
    True_ = 'True'
    lambda_ = 'lambda'


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `field`: ''
    - `field_2fa`: '2fa'
    - `Field_`: 'Field'
    - `Item_`: 'Item'
    - `List_`: 'List'
    - `None_`: 'None'
    - `Optional_`: 'Optional'
    - `Params_`: 'Params'
    - `dunder__`: '__dunder__'
    - `private`: '_private'
    - `class_`: 'class'
    - `dict_`: 'dict'
    - `from__2`: 'from'
    - `json_`: 'json'
    - `model_config_`: 'model_config'
    - `model_dump_`: 'model_dump'
    - `my_field_2`: 'my-field'
    - `schema_`: 'schema'
    - `str_`: 'str'
    - `to_arguments_`: 'to_arguments'
    """

    field: Optional[str] = Field(None, alias='')
    field_2fa: Optional[str] = Field(None, alias='2fa')
    Field_: Optional[str] = Field(None, alias='Field')
    Item_: Optional[Item] = Field(None, alias='Item')
    List_: Optional[str] = Field(None, alias='List')
    None_: Optional[str] = Field(None, alias='None')
    Optional_: Optional[str] = Field(None, alias='Optional')
    Params_: Optional[str] = Field(None, alias='Params')
    dunder__: Optional[str] = Field(None, alias='__dunder__')
    private: Optional[str] = Field(None, alias='_private')
    class_: str = Field(..., alias='class')
    dict_: Optional[str] = Field(None, alias='dict')
    from__2: str = Field(..., alias='from')
    from_: Optional[str] = None
    id: Optional[str] = None
    items: Optional[List[Item2]] = None
    json_: Optional[str] = Field(None, alias='json')
    match: Optional[str] = None
    mode: Optional[Mode] = None
    model_config_: Optional[str] = Field(None, alias='model_config')
    model_dump_: Optional[str] = Field(None, alias='model_dump')
    model_name: Optional[str] = None
    my_field_2: Optional[str] = Field(None, alias='my-field')
    my_field: Optional[str] = None
    perPage: Optional[int] = None
    schema_: Optional[str] = Field(None, alias='schema')
    str_: Optional[str] = Field(None, alias='str')
    to_arguments_: Optional[str] = Field(None, alias='to_arguments')
    type: Optional[str] = None


def run(params: Params) -> TextResult:
    """Tool named 'fields'."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
