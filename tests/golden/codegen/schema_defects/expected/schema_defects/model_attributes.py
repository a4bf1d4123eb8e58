"""2: properties named like attributes of the model class or its metaclass.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'model_attributes'


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `copy_`: 'copy'
    - `from_arguments_`: 'from_arguments'
    - `model_validate_strings_`: 'model_validate_strings'
    - `mro_`: 'mro'
    - `register_`: 'register'
    """

    copy_: Optional[int] = Field(None, alias='copy')
    from_arguments_: Optional[str] = Field(None, alias='from_arguments')
    model_validate_strings_: Optional[bool] = Field(None, alias='model_validate_strings')
    mro_: str = Field(..., alias='mro')
    register_: Optional[str] = Field(None, alias='register')


class Result(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'mro': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of its
    own.

    - `mro_`: 'mro'
    - `register_`: 'register'
    """

    mro_: Optional[str] = Field(None, alias='mro')
    register_: Optional[int] = Field(None, alias='register')


def run(params: Params) -> Result:
    """2: properties named like attributes of the model class or its metaclass."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
