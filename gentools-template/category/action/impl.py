"""The work behind ``gentools.{{category}}.{{name}}``; the interface and its docs are in api.py.

Import the MCP tools (``from mcptools.<server> import <tool>``), other saved actions and the
models of ``.api`` here, and keep ``run()``'s signature equal to ``api.run``'s.
"""

from .api import Result


def run(query: str, limit: int = 10) -> Result:
    # TODO: the code of the code action that worked, made into a function.
    raise NotImplementedError("gentools.{{category}}.{{name}} has no implementation yet")
