"""One property per keyword the generated model checks.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from enum import Enum
from typing import Dict, List, Literal, Optional, Union

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal'
TOOL_NAME = 'check_all'


class Inner(ToolModel):
    n: int


class Sort(str, Enum):
    stars = 'stars'
    forks = 'forks'


class Params(ToolModel):
    bounded: Optional[int] = Field(None, ge=1, le=10)
    code: Optional[str] = Field(None, pattern='^[a-z]+$')
    count: int
    either: Optional[Union[str, int]] = None
    even: Optional[int] = Field(None, multiple_of=2)
    exclusive: Optional[float] = Field(None, gt=0, lt=1)
    flag: Optional[bool] = None
    grid: Optional[List[List[float]]] = None
    ids: Optional[List[int]] = None
    inner: Optional[Inner] = None
    level: Optional[Literal[1, 2, 3]] = None
    maybe: Optional[str] = Field(None, nullable=True)
    one: Optional[Literal[1]] = None
    pair: Optional[List[str]] = Field(None, min_items=1, max_items=2)
    ratio: Optional[float] = None
    scores: Optional[Dict[str, int]] = None
    short: Optional[str] = Field(None, min_length=2, max_length=4)
    sort: Optional[Sort] = None
    word: Optional[str] = None
    yes: Optional[Literal[True]] = None


def run(params: Params) -> TextResult:
    """One property per keyword the generated model checks."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
