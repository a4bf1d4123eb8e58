"""    This is tool 3 with nested structured output.

    Args:
        name: A name to process
        level: Processing level


`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'everything'
TOOL_NAME = 'tool_3'


class Params(ToolModel):
    level: int
    name: str


class InnerResult(ToolModel, extra='allow'):
    code: int = Field(..., description='Status code')
    details: str = Field(..., description='Detailed information')


class Result(ToolModel, extra='allow'):
    count: int = Field(..., description='Number of items processed')
    inner: InnerResult = Field(..., description='Nested result data')
    status: str = Field(..., description='Overall status of the operation')


def run(params: Params) -> Result:
    """This is tool 3 with nested structured output.

    Args:
        name: A name to process
        level: Processing level
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
