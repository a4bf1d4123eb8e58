"""Object alternatives told apart by a null only (the fuzz tier, seed 1838934166): a keyword's dict
{"label": None} is the one that admits null, never the one that would drop it.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import List, Optional, Union

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'null_alternatives'


class Named(ToolModel):
    label: Optional[str] = None


class Unnamed(ToolModel):
    label: None = None


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `date_`: 'date'
    """

    date_: Optional[Union[Named, Unnamed, int]] = Field(..., alias='date')
    dates: Optional[List[Union[Named, Unnamed]]] = None


def run(params: Params) -> TextResult:
    """Object alternatives told apart by a null only (the fuzz tier, seed 1838934166): a keyword's
    dict {"label": None} is the one that admits null, never the one that would drop it.
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
