"""Creates an issue; models come from $defs and definitions.

Checked by the server only (Params leaves these keywords of the input schema to the server, at
least where they appear here): `oneOf`.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from enum import Enum
from typing import Any, List, Literal, Optional, Union

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'refs'
TOOL_NAME = 'create_issue'


class User(ToolModel):
    login: str


class RichText(ToolModel):
    markdown: Optional[str] = None


class Composed(ToolModel):
    extra: bool
    name: str
    owner: User


class ABC(ToolModel):
    v: Optional[int] = None


class Priority(str, Enum):
    """How urgent it is."""

    low = 'low'
    high = 'high'


class Label(ToolModel):
    color: Optional[str] = Field(None, pattern='^[0-9a-f]{6}$')
    name: Optional[str] = None


class Milestone(ToolModel):
    number: Optional[int] = None


class WithSpace(str, Enum):
    """An enum behind a %-escaped ref."""

    one = 'one'
    two = 'two'


class Repo(ToolModel):
    """A repository."""

    name: str
    owner: User


class Params(ToolModel):
    assignee: Optional[User] = Field(None, nullable=True)
    body: Optional[Union[str, RichText]] = None
    composed: Optional[Composed] = None
    dangling: Any = None
    escaped: Optional[ABC] = None
    fallback_priority: Priority = Priority.low
    labels: Optional[List[Label]] = None
    literals: Optional[Literal['a', 'b', 1, 2]] = None
    loop: Any = None
    milestone: Optional[Milestone] = Field(
        None,
        description='draft-07 style ref with a description',
    )
    nullable_openapi: Optional[str] = Field(None, nullable=True)
    number_or_int: Optional[float] = None
    percent: Optional[WithSpace] = None
    priority: Priority
    remote: Any = None
    repo: Repo
    scalars: Optional[Union[str, bool]] = None


class Label2(ToolModel, extra='allow'):
    name: Optional[str] = None


class Repo2(ToolModel, extra='allow'):
    full_name: Optional[str] = None


class Result(ToolModel, extra='allow'):
    labels: Optional[List[Label2]] = None
    number: int
    repo: Optional[Repo2] = None


def run(params: Params) -> Result:
    """Creates an issue; models come from $defs and definitions."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
