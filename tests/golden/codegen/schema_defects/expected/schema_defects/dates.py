"""5: date-time, date and time values go out as written.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'schema_defects'
TOOL_NAME = 'dates'


class Params(ToolModel):
    at: Optional[str] = None
    day: Optional[str] = None
    utc: Optional[str] = Field(None, pattern='Z$')
    when: Optional[str] = None


class Result(ToolModel, extra='allow'):
    when: Optional[str] = None


def run(params: Params) -> Result:
    """5: date-time, date and time values go out as written."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
