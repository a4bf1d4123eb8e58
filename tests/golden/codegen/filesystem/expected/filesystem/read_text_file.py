"""Read the complete contents of a file from the file system as text. Handles various text encodings
and provides detailed error messages if the file cannot be read. Use this tool when you need to
examine the contents of a single file. Use the 'head' parameter to read only the first N lines of
a file, or the 'tail' parameter to read only the last N lines of a file. Only works within
allowed directories.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'filesystem'
TOOL_NAME = 'read_text_file'


class Params(ToolModel):
    head: Optional[float] = Field(
        None,
        description='If provided, returns only the first N lines of the file',
    )
    path: str
    tail: Optional[float] = Field(
        None,
        description='If provided, returns only the last N lines of the file',
    )


class Result(ToolModel, extra='allow'):
    content: str


def run(params: Params) -> Result:
    """Read the complete contents of a file from the file system as text. Handles various text
    encodings and provides detailed error messages if the file cannot be read. Use this tool when
    you need to examine the contents of a single file. Use the 'head' parameter to read only the
    first N lines of a file, or the 'tail' parameter to read only the last N lines of a file.
    Only works within allowed directories.
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
