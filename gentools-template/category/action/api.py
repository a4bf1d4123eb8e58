"""TODO: one line saying what {{category}}.{{name}} does.

TODO: when to use it, what it returns, which MCP servers and tools it calls, and what it
raises. Agents read this file (and only this file) to decide whether and how to use the action.

Usage::

    from gentools.{{category}}.{{name}} import run
    result = run(...)  # TODO: a realistic call
"""

from typing import List

from ipybox_runtime.models import Field, ToolModel

__all__ = ["Result", "run"]


class Result(ToolModel):
    """TODO: what run() returns. Add or rename models as needed and list them in __all__."""

    items: List[str] = Field(default_factory=list, description="TODO: describe each field")


def run(query: str, limit: int = 10) -> Result:
    """TODO: what it does.

    Args:
        query: TODO (replace these example parameters with the action's own).
        limit: TODO.

    Returns:
        TODO.
    """
    from . import impl  # imported here, not at the top: importing the interface stays cheap

    return impl.run(query=query, limit=limit)
