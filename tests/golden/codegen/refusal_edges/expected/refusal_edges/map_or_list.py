"""A map or an empty list: pydantic 1 must not turn [] into {}.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import Annotated, Dict, List, Optional, Union

from ipybox_runtime.models import Constraints, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'refusal_edges'
TOOL_NAME = 'map_or_list'


class Params(ToolModel):
    p: Optional[Union[Dict[str, int], Annotated[List[str], Constraints(max_items=0)]]] = None


def run(params: Params) -> TextResult:
    """A map or an empty list: pydantic 1 must not turn [] into {}."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
