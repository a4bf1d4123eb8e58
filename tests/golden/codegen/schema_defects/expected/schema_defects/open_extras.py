"""8 and 11: extra keys named like a field's Python name or a model method.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'open_extras'


class Params(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'my-field': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `my_field`: 'my-field'
    """

    my_field: Optional[int] = Field(None, alias='my-field')


class Result(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'my-field': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `my_field`: 'my-field'
    """

    my_field: Optional[int] = Field(None, alias='my-field')


def run(params: Params) -> Result:
    """8 and 11: extra keys named like a field's Python name or a model method."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
