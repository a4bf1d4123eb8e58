"""Echoes back the input"""

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'everything'
TOOL_NAME = 'echo'


class Params(ToolModel):
    message: str = Field(..., description='Message to echo')


def run(params: Params) -> TextResult:
    """Echoes back the input"""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
