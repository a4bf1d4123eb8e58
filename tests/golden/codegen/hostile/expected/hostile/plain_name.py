"""x
__import__("pathlib").Path("PWNED").touch()
#
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
