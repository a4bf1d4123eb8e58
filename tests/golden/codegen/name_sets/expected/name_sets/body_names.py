"""Seed 1 of the name tier, shrunk: properties named like what a class body evaluates (Constraints,
Annotated) no longer shadow it.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from enum import Enum
from typing import Annotated, List, Optional

from ipybox_runtime.models import Constraints, Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'name_sets'
TOOL_NAME = 'body_names'


class Annotated2(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `Annotated_`: 'Annotated'
    """

    Annotated_: Optional[List[Annotated[str, Constraints(min_length=2)]]] = Field(
        None,
        alias='Annotated',
    )


class Constraints2(str, Enum):
    a = 'a'
    b = 'b'


class Constraints3(ToolModel):
    n: Optional[List[Annotated[int, Constraints(le=3)]]] = None


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `Annotated_`: 'Annotated'
    - `Constraints_`: 'Constraints'
    - `Constraints__2`: '_Constraints'
    """

    Annotated_: Optional[Annotated2] = Field(None, alias='Annotated')
    Constraints_: Optional[Constraints2] = Field(None, alias='Constraints')
    Constraints__2: Optional[Constraints3] = Field(None, alias='_Constraints')
    tags: Optional[List[Annotated[str, Constraints(max_length=3)]]] = None


def run(params: Params) -> TextResult:
    """Seed 1 of the name tier, shrunk: properties named like what a class body evaluates
    (Constraints, Annotated) no longer shadow it.
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
