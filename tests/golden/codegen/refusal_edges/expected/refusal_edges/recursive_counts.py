"""Item counts on a list of the model being defined (a forward reference).

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Annotated, List, Optional

from ipybox_runtime.models import Constraints, ToolModel, rebuild_models
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'recursive_counts'


class Node(ToolModel):
    children: Optional[Annotated[List['Node'], Constraints(max_items=2)]] = None
    label: Optional[str] = None


class Params(ToolModel):
    node: Optional[Node] = None


rebuild_models(Node)


def run(params: Params) -> TextResult:
    """Item counts on a list of the model being defined (a forward reference)."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
