"""Searches the catalogue.

Returns matching items with their scores.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from enum import Enum
from typing import Any, Dict, List, Literal, Optional, Union

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'kitchen_sink'
TOOL_NAME = 'search'


class Item(ToolModel):
    id: int
    label: Optional[str] = None


class Nested(ToolModel):
    a: int
    b: Optional[str] = Field(None, nullable=True)


class Options(ToolModel):
    verbose: bool = False


class Sort(str, Enum):
    stars = 'stars'
    help_wanted_issues = 'help-wanted-issues'
    class_ = 'class'
    value_123abc = '123abc'
    value_ = ''


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `field_2fa`: '2fa'
    - `class_`: 'class'
    - `from_`: 'from'
    - `my_field`: 'my-field'
    """

    field_2fa: Optional[bool] = Field(None, alias='2fa')
    anyobj: Optional[Dict[str, Any]] = None
    choice: Optional[Union[str, int]] = Field(None, nullable=True)
    class_: int = Field(3, alias='class')
    count: int = Field(10, ge=1, le=100)
    day: Optional[str] = None
    from_: str = Field(..., alias='from', description='A keyword as a property name')
    items: Optional[List[Item]] = None
    level: Optional[Literal[1, 2, 3]] = None
    maybe_count: Optional[int] = Field(
        None,
        ge=0,
        nullable=True,
        description='FastMCP-style optional',
    )
    meta: Optional[Dict[str, str]] = None
    mode: Literal['fast'] = Field('fast', constant=True)
    my_field: str = Field(
        ...,
        alias='my-field',
        description='A property whose name is not an identifier',
    )
    name: Optional[str] = Field(None, min_length=1, max_length=5, pattern='^[a-z]+$')
    nested: Optional[Nested] = Field(None, description='An inline object')
    odd: Optional[int] = Field(None, lt=1000, multiple_of=2)
    options: Options = {'verbose': True}
    per_page: Optional[float] = Field(None, ge=1, le=100)
    query: str = Field(..., description='Search query')
    ratio: Optional[float] = Field(None, gt=0)
    required_nullable: Optional[str] = Field(...)
    sort: Optional[Sort] = Field(None, description='Sort order')
    tags: Optional[List[str]] = Field(None, min_items=1, max_items=10)
    untyped: Any = None
    url: Optional[str] = Field(None, min_length=1)
    when: Optional[str] = None


class Item2(ToolModel, extra='allow'):
    id: int
    score: float
    url: Optional[str] = None


class Sort2(str, Enum):
    stars = 'stars'
    forks = 'forks'


class Result(ToolModel, extra='allow'):
    generated_at: Optional[str] = None
    items: List[Item2]
    sort: Optional[Sort2] = None
    total: int


def run(params: Params) -> Result:
    """Searches the catalogue.

    Returns matching items with their scores.
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
