"""This is tool 1.

Args:
    s: A string to process
"""

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'everything'
TOOL_NAME = 'tool-1'


class Params(ToolModel):
    s: str


def run(params: Params) -> TextResult:
    """This is tool 1.

    Args:
        s: A string to process
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
