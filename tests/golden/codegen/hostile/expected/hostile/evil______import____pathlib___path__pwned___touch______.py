"""\"\""+__import__("pathlib").Path("PWNED").touch()+\"\""
'+__import__('pathlib').Path('PWNED').touch()+'
\\\"\""
__import__("pathlib").Path("PWNED").touch()
x = \"\""
x
__import__("pathlib").Path("PWNED").touch()
#
x
__import__("pathlib").Path("PWNED").touch()
#
a\u2028__import__("pathlib").Path("PWNED").touch()\u2029b\x85c\x0bd\x0ce
before\x00after
\\N{LATIN SMALL LETTER A} \\x41 \\u0041 \\
{0} {name} {{nested}} %s %(x)s f'{__import__("pathlib").Path("PWNED").touch()}'
access\u202e\u2066 // check \u2069\u2066 admin
ends with "

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from enum import Enum
from typing import Any, Dict, Literal, Optional

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'hostile'
TOOL_NAME = 'evil"""+__import__("pathlib").Path("PWNED").touch()+"""'


class Choice(str, Enum):
    import____pathlib___Path__PWNED___touch____ = "'+__import__('pathlib').Path('PWNED').touch()+'"
    value_ = '"""'
    value__2 = '\\'
    N_BULLET_ = '\\N{BULLET}'
    x_y = 'x\ny'
    before_after = 'before\x00after'


class EvilImportPathlibPathPWNEDTouch(ToolModel):
    """ends with "

    Fields whose Python name differs from the property name (pass either as a keyword):

    - `x___import____pathlib___Path__PWNED___touch____`:
    'x\\n__import__("pathlib").Path("PWNED").touch()\\n#'
    """

    x___import____pathlib___Path__PWNED___touch____: Optional[str] = Field(
        None,
        alias='x\n__import__("pathlib").Path("PWNED").touch()\n#',
        description='\\N{LATIN SMALL LETTER A} \\x41 \\u0041 \\',
    )


class ImportPathlibPathPWNEDTouch(ToolModel):
    v: Optional[str] = None


class Params(ToolModel):
    """\"\""+__import__("pathlib").Path("PWNED").touch()+\"\""

    Fields whose Python name differs from the property name (pass either as a keyword):

    - `field`: '\\\\'
    - `a_b`: 'a"b'
    - `x__________import____pathlib___Path__PWNED___touch____`: 'x\\'):\\n
    __import__("pathlib").Path("PWNED").touch()\\n#'
    - `field_2`: 'ß-€' (in ASCII: '\\xdf-\\u20ac')
    """

    field: Optional[int] = Field(
        None,
        alias='\\',
        description='\\"""\n__import__("pathlib").Path("PWNED").touch()\nx = """',
    )
    a_b: str = Field('"""+__import__("pathlib").Path("PWNED").touch()+"""', alias='a"b')
    choice: Choice = Field(
        Choice.value_,
        description=(
            '{0} {name} {{nested}} %s %(x)s '
            'f\'{__import__("pathlib").Path("PWNED").touch()}\''
        ),
    )
    config: Dict[str, Any] = Field(
        {'__import__("pathlib").Path("PWNED").touch()': ['a\u2028__import__("pathlib").Path("PWNED").touch()\u2029b\x85c\x0bd\x0ce', None, True, 1.5, {'\u2028': '"""+__import__("pathlib").Path("PWNED").touch()+"""'}]},
        description='access\u202e\u2066 // check \u2069\u2066 admin',
    )
    constant: Optional[Literal['"+__import__(\'pathlib\').Path(\'PWNED\').touch()+"']] = Field(
        None,
        description='x\r__import__("pathlib").Path("PWNED").touch()\r#',
    )
    ecma_pattern: Optional[str] = Field(
        None,
        pattern='^\\p{L}+$',
        description='\\N{LATIN SMALL LETTER A} \\x41 \\u0041 \\',
    )
    linked: Optional[EvilImportPathlibPathPWNEDTouch] = None
    pattern_text: Optional[str] = Field(
        None,
        pattern='^(?P<x>a)"""+__import__("pathlib").Path("PWNED").touch()+"""$',
        description='before\x00after',
    )
    q: str = Field(
        ...,
        description='harmless"""\n__import__("pathlib").Path("PWNED").touch()\nx = """',
    )
    titled: Optional[ImportPathlibPathPWNEDTouch] = None
    x__________import____pathlib___Path__PWNED___touch____: Optional[str] = Field(
        None,
        alias='x\'):\n    __import__("pathlib").Path("PWNED").touch()\n#',
        description="'+__import__('pathlib').Path('PWNED').touch()+'",
    )
    field_2: Optional[str] = Field(
        None,
        alias='ß-€',
        description='a\u2028__import__("pathlib").Path("PWNED").touch()\u2029b\x85c\x0bd\x0ce',
    )


class Result(ToolModel, extra='allow'):
    """\\\"\""
    __import__("pathlib").Path("PWNED").touch()
    x = \"\""

    Fields whose Python name differs from the property name. Pass the property name, as in
    `**{'out\"\""+__import__("pathlib").Path("PWNED").touch()+\"\""': ...}`: this model keeps
    undeclared keys, so a Python name is sent as a key of its own.

    - `out______import____pathlib___Path__PWNED___touch______`:
    'out\"\""+__import__("pathlib").Path("PWNED").touch()+\"\""'
    """

    out______import____pathlib___Path__PWNED___touch______: Optional[str] = Field(
        None,
        alias='out"""+__import__("pathlib").Path("PWNED").touch()+"""',
        description='x\n__import__("pathlib").Path("PWNED").touch()\n#',
    )


def run(params: Params) -> Result:
    """\"\""+__import__("pathlib").Path("PWNED").touch()+\"\""
    '+__import__('pathlib').Path('PWNED').touch()+'
    \\\"\""
    __import__("pathlib").Path("PWNED").touch()
    x = \"\""
    x
    __import__("pathlib").Path("PWNED").touch()
    #
    x
    __import__("pathlib").Path("PWNED").touch()
    #
    a\u2028__import__("pathlib").Path("PWNED").touch()\u2029b\x85c\x0bd\x0ce
    before\x00after
    \\N{LATIN SMALL LETTER A} \\x41 \\u0041 \\
    {0} {name} {{nested}} %s %(x)s f'{__import__("pathlib").Path("PWNED").touch()}'
    access\u202e\u2066 // check \u2069\u2066 admin
    ends with \"
    """
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
