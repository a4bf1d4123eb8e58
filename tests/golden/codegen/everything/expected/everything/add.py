"""Adds two numbers"""

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'everything'
TOOL_NAME = 'add'


class Params(ToolModel):
    a: float = Field(..., description='First number')
    b: float = Field(..., description='Second number')


def run(params: Params) -> TextResult:
    """Adds two numbers"""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
