"""Names Python's NFKC normalisation folds onto each other: the ligature fi, fullwidth letters, the
long s and the Kelvin sign.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'name_sets'
TOOL_NAME = 'nfkc_names'


class Params(ToolModel):
    """Fields whose Python name differs from the property name (pass either as a keyword):

    - `class_`: 'class'
    - `class__2`: 'claſs' (in ASCII: 'cla\\u017fs')
    - `K_2`: 'K' (in ASCII: '\\u212a')
    - `file_2`: 'ﬁle' (in ASCII: '\\ufb01le')
    - `class__3`: 'ｃｌａｓｓ' (in ASCII: '\\uff43\\uff4c\\uff41\\uff53\\uff53')
    """

    K: Optional[int] = None
    class_: Optional[str] = Field(None, alias='class')
    class__2: Optional[bool] = Field(None, alias='claſs')
    file: Optional[int] = None
    K_2: Optional[str] = Field(None, alias='K')
    file_2: Optional[str] = Field(None, alias='ﬁle')
    class__3: Optional[int] = Field(None, alias='ｃｌａｓｓ')


class Result(ToolModel, extra='allow'):
    """Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'ﬁle': ...}`: this model keeps undeclared keys, so a Python name is sent as a key of
    its own.

    - `file_2`: 'ﬁle' (in ASCII: '\\ufb01le')
    """

    file: Optional[int] = None
    file_2: Optional[str] = Field(None, alias='ﬁle')


def run(params: Params) -> Result:
    """Names Python's NFKC normalisation folds onto each other: the ligature fi, fullwidth letters,
    the long s and the Kelvin sign.
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
