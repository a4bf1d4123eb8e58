"""Returns structured content along with an output schema for client data validation

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from enum import Enum

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'everything'
TOOL_NAME = 'getStructuredContent'


class Location(str, Enum):
    New_York = 'New York'
    Chicago = 'Chicago'
    Los_Angeles = 'Los Angeles'


class Params(ToolModel):
    location: Location = Field(..., description='Choose city')


class Result(ToolModel, extra='allow'):
    conditions: str = Field(..., description='Weather conditions description')
    humidity: float = Field(..., description='Humidity percentage')
    temperature: float = Field(..., description='Temperature in celsius')


def run(params: Params) -> Result:
    """Returns structured content along with an output schema for client data validation"""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
