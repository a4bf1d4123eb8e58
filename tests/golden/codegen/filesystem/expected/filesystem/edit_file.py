"""Make line-based edits to a text file. Each edit replaces exact line sequences with new content.
Returns a git-style diff showing the changes made.

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from typing import List

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'filesystem'
TOOL_NAME = 'edit_file'


class Edit(ToolModel):
    newText: str = Field(..., description='Text to replace with')
    oldText: str = Field(..., description='Text to search for - must match exactly')


class Params(ToolModel):
    dryRun: bool = Field(False, description='Preview changes using git-style diff format')
    edits: List[Edit]
    path: str


def run(params: Params) -> TextResult:
    """Make line-based edits to a text file. Each edit replaces exact line sequences with new
    content. Returns a git-style diff showing the changes made.
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
