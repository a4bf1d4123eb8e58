"""Recursive schemas: a tree of nodes and a root that refers to itself.

`run()` returns `Result`, parsed from the structured content; `result.tool_output()` has every
content item (text, images and audio saved as files, resources, resource links). A tool error
raises `ToolError`, which carries them too.
"""

from typing import List, Optional

from ipybox_runtime.models import ToolModel, rebuild_models
from ipybox_runtime.tool_client import call_tool

SERVER_NAME = 'refs'
TOOL_NAME = 'tree'


class Node(ToolModel):
    children: Optional[List['Node']] = None
    name: str


class Params(ToolModel):
    parent: Optional['Params'] = None
    root: Optional[Node] = None


class Node2(ToolModel, extra='allow'):
    children: Optional[List['Node2']] = None
    name: Optional[str] = None


class Result(ToolModel, extra='allow'):
    next: Optional['Result'] = None
    node: Optional[Node2] = None


rebuild_models(Node, Params, Node2, Result)


def run(params: Params) -> Result:
    """Recursive schemas: a tree of nodes and a root that refers to itself."""
    output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())
    return Result.from_structured(output)
