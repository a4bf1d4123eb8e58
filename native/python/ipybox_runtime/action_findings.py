"""What ``check()`` finds in a saved action's files without running them.

Each finding is one line that starts with its name: ``scaffold``, ``not-implemented``,
``signature``, ``changed-tool``, ``missing-dependency``. Standard library only.
"""

from __future__ import annotations

import ast
import pathlib
from typing import List, Optional

from . import library, requirements
from .files import read_text
from .scaffold import render, template_dir
from .search_index import mcptools_imports


def _tree(path: pathlib.Path) -> Optional[ast.Module]:
    try:
        return ast.parse(read_text(path), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None


def _run(tree: Optional[ast.Module]) -> Optional[ast.FunctionDef]:
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.FunctionDef) and node.name == "run":
            return node
    return None


def _parameters(function: ast.FunctionDef) -> str:
    """The parameters as a caller sees them: names, kinds and defaults (annotations left out)."""
    arguments = function.args
    shown = []
    positional = arguments.posonlyargs + arguments.args
    defaults = [None] * (len(positional) - len(arguments.defaults)) + list(arguments.defaults)
    for argument, default in zip(positional, defaults):
        shown.append(argument.arg + ("" if default is None else f"={ast.unparse(default)}"))
    if arguments.vararg:
        shown.append("*" + arguments.vararg.arg)
    elif arguments.kwonlyargs:
        shown.append("*")
    for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults):
        shown.append(argument.arg + ("" if default is None else f"={ast.unparse(default)}"))
    if arguments.kwarg:
        shown.append("**" + arguments.kwarg.arg)
    return f"run({', '.join(shown)})"


def _raises_not_implemented(function: Optional[ast.FunctionDef]) -> bool:
    for node in ast.walk(function) if function is not None else ():
        if isinstance(node, ast.Raise) and node.exc is not None:
            raised = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(raised, ast.Name) and raised.id == "NotImplementedError":
                return True
    return False


def _scaffold_lines(location: library.ActionLocation, file_name: str, text: str) -> List[str]:
    try:
        template = (template_dir() / "category" / "action" / file_name).read_text()
    except OSError:
        return []
    rendered = render(template, location.category, location.name)
    present = {line.strip() for line in text.splitlines()}
    return [
        line.strip() for line in rendered.splitlines() if "TODO" in line and line.strip() in present
    ]


def findings(location: library.ActionLocation, workspace: str) -> List[str]:
    """Every finding for the action at ``location``, in the project ``workspace``."""
    found = []
    folder = location.directory
    trees = {}
    for file_name in ("api.py", "impl.py"):
        try:
            text = read_text(folder / file_name)
        except (OSError, ValueError):
            continue
        left = _scaffold_lines(location, file_name, text)
        if left:
            found.append(f"scaffold: {file_name} still holds the scaffold's {left[0]!r}")
        trees[file_name] = _tree(folder / file_name)
    api_run, impl_run = _run(trees.get("api.py")), _run(trees.get("impl.py"))
    for file_name, function in (("impl.py", impl_run), ("api.py", api_run)):
        if _raises_not_implemented(function):
            found.append(f"not-implemented: run() in {file_name} raises NotImplementedError")
            break
    if api_run is not None and impl_run is not None:
        api_signature, impl_signature = _parameters(api_run), _parameters(impl_run)
        if api_signature != impl_signature:
            found.append(f"signature: api.py has {api_signature} but impl.py has {impl_signature}")
    requires = requirements.recorded(folder) or {}
    calls = set()
    for tree in trees.values():
        calls |= mcptools_imports(tree)
    changed = set(requirements.changed_tools(requires, workspace))
    changed |= set(library.changed_tools(location.module, folder))
    for tool in sorted(changed):
        found.append(
            f"changed-tool: mcptools.{tool} changed since the action was saved; read its "
            "interface, update the action, then save_gentool() it again"
        )
    for line in requirements.missing(requires, workspace, sorted(calls), location.root.origin):
        found.append(f"missing-dependency: {line}")
    return found
