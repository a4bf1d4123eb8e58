"""Properties whose Python names collide once mangled.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from enum import Enum
from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'collisions'
TOOL_NAME = 'names'


class Int(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `Int_`: 'Int'
    - `int__2`: 'int'
    """

    Int_: Optional[bool] = Field(None, alias='Int')
    int__2: Optional[int] = Field(None, alias='int')
    int_: Optional[str] = None


class Int2(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `datetime__2`: 'datetime'
    """

    datetime__2: Optional[str] = Field(None, alias='datetime')
    datetime_: Optional[int] = None


class Mode(str, Enum):
    x = 'x'


class Params2(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `Params_`: 'Params'
    """

    Params_: Optional[int] = Field(None, alias='Params')


class Int22(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `class__2`: 'class'
    """

    class__2: Optional[int] = Field(None, alias='class')
    class_: Optional[str] = None


class Mode2(str, Enum):
    class__2 = 'class'
    class_ = 'class_'
    mro__2 = 'mro'
    mro_ = 'mro_'
    name__2 = 'name'
    name_ = 'name_'
    value_ = 'value'
    a_b_3 = 'a b'
    a_b = 'a_b'
    a_b_2 = 'a_b_2'
    datetime = 'datetime'
    datetime_ = 'datetime_'


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `Field_`: 'Field'
    - `Int_`: 'Int'
    - `Int2_`: 'Int2'
    - `Mode_`: 'Mode'
    - `Params_`: 'Params'
    - `class__3`: 'class'
    - `datetime__2`: 'datetime'
    - `int__2`: 'int'
    - `model_config__2`: 'model_config'
    """

    Field_: Optional[str] = Field(None, alias='Field')
    Int_: Optional[Int] = Field(None, alias='Int')
    Int2_: Optional[Int2] = Field(None, alias='Int2')
    Mode_: Optional[Mode] = Field(None, alias='Mode')
    Params_: Optional[Params2] = Field(None, alias='Params')
    class__3: Optional[bool] = Field(None, alias='class')
    class_: Optional[str] = None
    class__2: Optional[float] = None
    datetime__2: Optional[str] = Field(None, alias='datetime')
    datetime_: Optional[int] = None
    int__2: int = Field(..., alias='int')
    int2: Optional[Int22] = None
    int_: str
    mode: Optional[Mode2] = None
    model_config__2: Optional[str] = Field(None, alias='model_config')
    model_config_: Optional[int] = None


class Result2(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'datetime': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `datetime__2`: 'datetime'
    """

    datetime__2: Optional[str] = Field(None, alias='datetime')
    datetime_: Optional[int] = None


class Result(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'Result': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `Result_`: 'Result'
    - `int__2`: 'int'
    """

    Result_: Optional[Result2] = Field(None, alias='Result')
    int__2: Optional[int] = Field(None, alias='int')
    int_: Optional[str] = None


def run(params: Params) -> Result:
    """Properties whose Python names collide once mangled."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
