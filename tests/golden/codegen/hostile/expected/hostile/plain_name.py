"""x
__import__("pathlib").Path("PWNED").touch()
#

`run()` returns a `TextResult`: the text, with `images`, `audio`, `resources`, `resource_links`,
`content` (every content item; images, audio and blobs saved as files) and `structured`. A tool
error raises `ToolError`, which carries them too.
"""

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = 'hostile'
TOOL_NAME = '\u202eplain\x00name'


class Params(ToolModel):
    n: float = Field(1e+300, ge=-1e-07)


def run(params: Params) -> TextResult:
    """x
    __import__("pathlib").Path("PWNED").touch()
    #
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return TextResult.from_output(output)
