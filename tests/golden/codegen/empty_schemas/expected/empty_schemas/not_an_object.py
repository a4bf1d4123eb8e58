"""A string input schema, against the spec."""

from ipybox_runtime.models import ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'empty_schemas'
TOOL_NAME = 'not_an_object'


class Params(ToolModel, extra='allow'):
    pass


def run(params: Params) -> TextResult:
    """A string input schema, against the spec."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
