"""Issue 36, seeds 1-3 of the name tier: open objects at every level whose extra keys are spelled
like a declared property's Python name (datetime_, class_, init__).

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Dict, List, Optional, Union

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'name_sets'
TOOL_NAME = 'open_shadows'


class Shadowed(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'__init__': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `init__`: '__init__'
    - `class_`: 'class'
    - `datetime_`: 'datetime'
    """

    init__: Optional[str] = Field(None, alias='__init__')
    class_: Optional[str] = Field(None, alias='class', nullable=True)
    datetime_: Optional[int] = Field(None, alias='datetime')


class Either(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'class': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `class_`: 'class'
    """

    class_: Optional[str] = Field(None, alias='class', nullable=True)


class Listed(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'__init__': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `init__`: '__init__'
    - `class_`: 'class'
    - `datetime_`: 'datetime'
    """

    init__: Optional[str] = Field(None, alias='__init__')
    class_: Optional[str] = Field(None, alias='class', nullable=True)
    datetime_: Optional[int] = Field(None, alias='datetime')


class MappedValue(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'__init__': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `init__`: '__init__'
    - `class_`: 'class'
    - `datetime_`: 'datetime'
    """

    init__: Optional[str] = Field(None, alias='__init__')
    class_: Optional[str] = Field(None, alias='class', nullable=True)
    datetime_: Optional[int] = Field(None, alias='datetime')


class Nested(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'__init__': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `init__`: '__init__'
    - `class_`: 'class'
    - `datetime_`: 'datetime'
    """

    init__: Optional[str] = Field(None, alias='__init__')
    class_: Optional[str] = Field(None, alias='class', nullable=True)
    datetime_: Optional[int] = Field(None, alias='datetime')


class Params(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'__init__': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `init__`: '__init__'
    - `class_`: 'class'
    """

    init__: Optional[str] = Field(None, alias='__init__')
    class_: Optional[str] = Field(None, alias='class', nullable=True)
    defined: Optional[Shadowed] = None
    either: Optional[Union[Either, int]] = None
    listed: Optional[List[Listed]] = None
    mapped: Optional[Dict[str, MappedValue]] = None
    nested: Optional[Nested] = None


class Listed2(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'__init__': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `init__`: '__init__'
    - `class_`: 'class'
    - `datetime_`: 'datetime'
    """

    init__: Optional[str] = Field(None, alias='__init__')
    class_: Optional[str] = Field(None, alias='class', nullable=True)
    datetime_: Optional[int] = Field(None, alias='datetime')


class Nested2(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'__init__': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `init__`: '__init__'
    - `class_`: 'class'
    - `datetime_`: 'datetime'
    """

    init__: Optional[str] = Field(None, alias='__init__')
    class_: Optional[str] = Field(None, alias='class', nullable=True)
    datetime_: Optional[int] = Field(None, alias='datetime')


class Result(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'__init__': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `init__`: '__init__'
    - `class_`: 'class'
    """

    init__: Optional[str] = Field(None, alias='__init__')
    class_: Optional[str] = Field(None, alias='class', nullable=True)
    listed: Optional[List[Listed2]] = None
    nested: Optional[Nested2] = None


def run(params: Params) -> Result:
    """Issue 36, seeds 1-3 of the name tier: open objects at every level whose extra keys are
    spelled like a declared property's Python name (datetime_, class_, init__).
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
