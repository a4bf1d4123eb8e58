"""Creates saved code actions (``gentools/<category>/<name>/``) from ipybox's scaffold.

A saved code action is a package with a typed interface (``api.py``), the work (``impl.py``,
imported only when ``run()`` is called) and an ``__init__.py`` re-exporting the interface::

    from ipybox_runtime.gentools import new_gentool
    package = new_gentool("weather", "city_report")   # gentools/weather/city_report/
    (package / "api.py").write_text(...)               # then fill in api.py and impl.py

Actions are saved in the project (``scope="project"``, the default: ``<workspace>/gentools``)
or in the user's library (``scope="user"``), which every project can import from; see
``ipybox_runtime.library`` for the roots and their precedence. A sandboxed kernel reads the user
library but cannot write it: there ``new_gentool(..., scope="user", files={...})`` hands the
finished files to ipybox, which writes them after approval (``IPYBOX_LIBRARY_SAVE=host``).

``catalog()`` lists what an agent can build on: the generated tool modules under ``mcptools/``,
the output parsers under ``mcpparse/`` and the saved actions of every gentools root, each with the
first line of its docstring, read without importing (so listing runs no code). For more than a
few dozen tools, ``ipybox_runtime.search_tools`` finds the right ones with fewer words.

This module is the interface agents import; the work is in ``scaffold`` (the
``gentools-template`` directory and the name rule), ``creating`` (``new_gentool``) and ``saving``
(``save_gentool``), none of which imports this one.

Standard library only.
"""

from __future__ import annotations

import ast
import os
import pathlib
from typing import List, Tuple, Union

from . import library
from .creating import new_gentool
from .files import read_text
from .saving import save_gentool
from .scaffold import NAME_RULE, template_dir
from .search_index import describe_action

# Names this module has always offered, kept importable from it.
from .creating import LIBRARY_SAVE_VARIABLE, WORKSPACE_VARIABLE  # noqa: F401
from .scaffold import ACTION_FILE_NAMES, MAX_NAME_LENGTH, TEMPLATE_DIR_NAME  # noqa: F401

__all__ = ["NAME_RULE", "catalog", "new_gentool", "save_gentool", "template_dir"]


def _summary(path: pathlib.Path) -> Tuple[str, List[str]]:
    """First docstring line of a module and the names of its top-level functions, unimported."""
    try:
        tree = ast.parse(read_text(path), filename=str(path))
    except (OSError, SyntaxError, ValueError) as error:
        return f"(cannot be read: {error})", []
    docstring = (ast.get_docstring(tree) or "").strip()
    functions = [node.name for node in tree.body if isinstance(node, ast.FunctionDef)]
    return (docstring.splitlines()[0] if docstring else "(no docstring)"), functions


def _packages(directory: pathlib.Path) -> List[pathlib.Path]:
    if not directory.is_dir():
        return []
    return sorted(
        path
        for path in directory.iterdir()
        if path.is_dir() and path.name.isidentifier() and not path.name.startswith(("_", "."))
    )


def catalog(workspace: Union[str, "os.PathLike[str]", None] = None) -> str:
    """What the workspace offers, one line each: tool modules, parsers and saved code actions.

    ``workspace`` defaults to ``$IPYBOX_WORKSPACE``, else the current directory. Files are read,
    never imported. Saved actions show the root they come from (``project``, ``user`` or
    ``library``); an action that calls an MCP tool whose schema changed since it was saved is
    marked, and actions shadowed by one of the same name in an earlier root are listed at the
    end. The first line names the user library's folder. Lines look like::

        user library: /home/me/.local/share/ipybox/gentools
        mcptools.github.search_repositories  Search for GitHub repositories [run_parsed]
        mcpparse.github.search_repositories  Parses search_repositories text into models
        gentools.github.top_repositories     (user) The most starred repositories of a user
    """
    base = library.workspace_path(workspace)
    entries: List[Tuple[str, str]] = []
    for root_name in ("mcptools", "mcpparse"):
        for server in _packages(base / root_name):
            for module in sorted(server.glob("*.py")):
                if module.name == "__init__.py":
                    continue
                summary, functions = _summary(module)
                companion = base / "mcpparse" / server.name / module.name
                if root_name == "mcptools" and companion.is_file():
                    functions = functions + _summary(companion)[1]
                if "run_parsed" in functions:
                    summary += " [run_parsed]"
                entries.append((f"{root_name}.{server.name}.{module.stem}", summary))
    for action in library.actions(base):
        document = describe_action(action.directory, action.module, action.root.origin)
        summary = f"({action.root.origin}) {document.summary}"
        stale = library.changed_tools(action.module, action.directory)
        if stale:
            summary += f" [calls changed tools: {', '.join(stale)}]"
        entries.append((action.module, summary))
    roots = library.library_roots(base)
    user = next((root for root in roots if root.origin == "user"), None)
    heading = f"user library: {user.path if user else '(none configured)'}"
    if not entries:
        listed = ", ".join(str(root.path) for root in roots)
        return (
            f"{heading}\nnothing under {base}/mcptools, mcpparse or the gentools roots "
            f"({listed}) yet"
        )
    width = max(len(name) for name, _ in entries)
    lines = [heading] + [f"{name.ljust(width)}  {summary}" for name, summary in entries]
    for module, places in library.clashes(base).items():
        lines.append(
            f"clash: {module} is in several roots; {places[0]} wins over " + ", ".join(places[1:])
        )
    return "\n".join(lines)
