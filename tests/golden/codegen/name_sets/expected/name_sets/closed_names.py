"""Closed objects holding names that mangle into each other: Python names work as keywords, never as
JSON keys.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'name_sets'
TOOL_NAME = 'closed_names'


class Class(ToolModel):
    x: Optional[int] = None


class Inner(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `datetime__2`: 'datetime'
    - `my_field`: 'my-field'
    """

    datetime__2: Optional[str] = Field(None, alias='datetime')
    datetime_: Optional[int] = None
    my_field: Optional[int] = Field(None, alias='my-field')


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `init___2`: '__init__'
    - `class__2`: 'class'
    - `datetime__2`: 'datetime'
    """

    init___2: Optional[bool] = Field(None, alias='__init__')
    class__2: Optional[Class] = Field(None, alias='class')
    class_: Optional[str] = Field(None, nullable=True)
    datetime__2: Optional[str] = Field(None, alias='datetime')
    datetime_: Optional[int] = None
    init__: Optional[str] = None
    inner: Optional[Inner] = None


def run(params: Params) -> TextResult:
    """Closed objects holding names that mangle into each other: Python names work as keywords,
    never as JSON keys.
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
