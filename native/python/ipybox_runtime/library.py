"""The roots of the gentools library and the import machinery that joins them.

Saved code actions live in several roots, searched in order: the project's ``gentools/``
(origin ``"project"``), then the user's library (``"user"``, default
``$XDG_DATA_HOME/ipybox/gentools``, else ``~/.local/share/ipybox/gentools``), then any further
roots (``"library"``). The host passes the user-level roots in ``$IPYBOX_LIBRARY_ROOTS``
(separated by ``os.pathsep``, the user's library first); without it the default user library is
used. Every root imports as ``gentools.<category>.<name>``; where two roots hold the same
action, the first root wins and ``clashes()`` reports the others.

``install()`` puts a finder on ``sys.meta_path`` that builds the ``gentools`` package and its
categories from every root (the kernel does this at start). Standard library only.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import pathlib
import sys
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Union

__all__ = [
    "ActionLocation",
    "LibraryRoot",
    "actions",
    "changed_tools",
    "clashes",
    "install",
    "library_roots",
    "note_changed_tools",
    "root_for_scope",
]

ROOTS_VARIABLE = "IPYBOX_LIBRARY_ROOTS"
CHANGED_TOOLS_VARIABLE = "IPYBOX_CHANGED_TOOLS"
WORKSPACE_VARIABLE = "IPYBOX_WORKSPACE"
PACKAGE = "gentools"


@dataclass(frozen=True)
class LibraryRoot:
    """One directory of saved actions and where it comes from ("project", "user", "library")."""

    path: pathlib.Path
    origin: str


@dataclass(frozen=True)
class ActionLocation:
    """A saved action: ``gentools.<category>.<name>``, the root it was found in, its folder."""

    module: str
    category: str
    name: str
    root: LibraryRoot
    directory: pathlib.Path


def workspace_path(workspace: Union[str, "os.PathLike[str]", None] = None) -> pathlib.Path:
    """``workspace``, else ``$IPYBOX_WORKSPACE``, else the current directory (absolute)."""
    if workspace is not None:
        return pathlib.Path(workspace).absolute()
    return pathlib.Path(os.environ.get(WORKSPACE_VARIABLE) or os.getcwd()).absolute()


def default_user_root(environment: Optional[Dict[str, str]] = None) -> pathlib.Path:
    """``$XDG_DATA_HOME/ipybox/gentools``, else ``~/.local/share/ipybox/gentools``."""
    environment = os.environ if environment is None else environment
    data_home = environment.get("XDG_DATA_HOME")
    if data_home and os.path.isabs(data_home):
        return pathlib.Path(data_home) / "ipybox" / "gentools"
    home = environment.get("HOME") or str(pathlib.Path.home())
    return pathlib.Path(home) / ".local" / "share" / "ipybox" / "gentools"


def library_roots(workspace: Union[str, "os.PathLike[str]", None] = None) -> List[LibraryRoot]:
    """The roots in precedence order: the project's ``gentools/`` first."""
    roots = [LibraryRoot(workspace_path(workspace) / PACKAGE, "project")]
    configured = os.environ.get(ROOTS_VARIABLE)
    if configured is None:
        user_paths = [default_user_root()]
    else:
        user_paths = [pathlib.Path(entry) for entry in configured.split(os.pathsep) if entry]
    seen = {roots[0].path}
    for index, path in enumerate(user_paths):
        path = path.absolute()
        if path in seen:
            continue
        seen.add(path)
        roots.append(LibraryRoot(path, "user" if index == 0 else "library"))
    return roots


def root_for_scope(scope: str, workspace: Union[str, "os.PathLike[str]", None] = None):
    """The root ``new_gentool(scope=...)`` writes to: ``"project"`` or ``"user"``."""
    roots = library_roots(workspace)
    for root in roots:
        if root.origin == scope:
            return root
    if scope == "user":
        raise ValueError("no user library is configured (ipybox was started without one)")
    raise ValueError(f"scope must be 'project' or 'user', not {scope!r}")


def _identifier_dirs(directory: pathlib.Path) -> List[pathlib.Path]:
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return []
    found = []
    for entry in entries:
        if entry.name.isidentifier() and not entry.name.startswith(("_", ".")):
            try:
                if entry.is_dir():
                    found.append(pathlib.Path(entry.path))
            except OSError:
                continue
    return sorted(found)


def _all_actions(workspace=None) -> List[ActionLocation]:
    found = []
    for root in library_roots(workspace):
        for category in _identifier_dirs(root.path):
            for action in _identifier_dirs(category):
                if (action / "api.py").is_file():
                    module = f"{PACKAGE}.{category.name}.{action.name}"
                    found.append(ActionLocation(module, category.name, action.name, root, action))
    return found


def actions(workspace: Union[str, "os.PathLike[str]", None] = None) -> List[ActionLocation]:
    """Every importable saved action, sorted by module name; a shadowed copy is left out."""
    winners: Dict[str, ActionLocation] = {}
    for location in _all_actions(workspace):
        winners.setdefault(location.module, location)
    return [winners[name] for name in sorted(winners)]


def clashes(workspace: Union[str, "os.PathLike[str]", None] = None) -> Dict[str, List[str]]:
    """``{module: [origin of the winner, origins shadowed ...]}`` for actions in several roots."""
    seen: Dict[str, List[ActionLocation]] = {}
    for location in _all_actions(workspace):
        seen.setdefault(location.module, []).append(location)
    return {
        module: [f"{item.root.origin} ({item.directory})" for item in places]
        for module, places in sorted(seen.items())
        if len(places) > 1
    }


# Saved actions that call MCP tools whose schema changed since the action was pinned:
# {"gentools.<category>.<name>": {"tools": ["server.tool", ...], "stamp": "..."}}. The host
# keeps the pins and sends the flags (at kernel start in $IPYBOX_CHANGED_TOOLS, after a
# re-registration through note_changed_tools). A flag holds while the action's files are as
# they were when it was raised: editing the action clears it here, as it re-pins host-side.
_flags: Dict[str, Dict[str, object]] = {}


def action_stamp(directory: Union[str, "os.PathLike[str]"]) -> str:
    """The state of an action's files as the host records it: mtime (ns) and size of api.py
    and impl.py (``-1:-1`` for a missing file)."""
    parts = []
    for name in ("api.py", "impl.py"):
        try:
            info = os.stat(os.path.join(directory, name))
            parts.append(f"{info.st_mtime_ns}:{info.st_size}")
        except OSError:
            parts.append("-1:-1")
    return "/".join(parts)


def note_changed_tools(flags: Dict[str, Dict[str, object]]) -> None:
    """Records flagged actions (the host calls this after a re-registration)."""
    _flags.update(flags)


def _all_flags() -> Dict[str, Dict[str, object]]:
    merged: Dict[str, Dict[str, object]] = {}
    try:
        loaded = json.loads(os.environ.get(CHANGED_TOOLS_VARIABLE) or "{}")
        if isinstance(loaded, dict):
            merged.update({str(key): value for key, value in loaded.items()})
    except ValueError:
        pass
    merged.update(_flags)
    return merged


def changed_tools(module: str, directory: Union[str, "os.PathLike[str]"]) -> List[str]:
    """The tools (``"server.tool"``) whose schema changed since the action ``module`` in
    ``directory`` was saved, checked or last edited; empty when it is not flagged."""
    flag = _all_flags().get(module)
    if not isinstance(flag, dict) or flag.get("stamp") != action_stamp(directory):
        return []
    tools = flag.get("tools")
    return [str(tool) for tool in tools] if isinstance(tools, list) else []


class _LibraryFinder(importlib.abc.MetaPathFinder):
    """Builds ``gentools`` and ``gentools.<category>`` as packages spanning every root.

    Their ``__path__`` lists the matching folder of each root in precedence order, so that
    ``gentools.<category>.<name>`` is found in the first root that has it. A category's
    ``__init__.py`` comes from the first root that has one.
    """

    def find_spec(self, fullname: str, path: Optional[Sequence[str]] = None, target=None):
        parts = fullname.split(".")
        if parts[0] != PACKAGE or len(parts) > 2:
            return None
        folders = [str(root.path.joinpath(*parts[1:])) for root in library_roots()]
        folders = [folder for folder in folders if os.path.isdir(folder)]
        if not folders:
            return None
        for folder in folders:
            init = os.path.join(folder, "__init__.py")
            if os.path.isfile(init):
                return importlib.util.spec_from_file_location(
                    fullname, init, submodule_search_locations=folders
                )
        # A plain package, not a namespace one: a namespace package's path is recomputed from
        # sys.path, which does not hold the user-level roots.
        spec = importlib.machinery.ModuleSpec(fullname, _EmptyPackageLoader(), is_package=True)
        spec.submodule_search_locations = folders
        return spec


class _EmptyPackageLoader(importlib.abc.Loader):
    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        pass


def refresh_paths() -> None:
    """Adds folders created since ``gentools`` (or one of its categories) was imported."""
    for name, module in list(sys.modules.items()):
        parts = name.split(".")
        if parts[0] != PACKAGE or len(parts) > 2 or not hasattr(module, "__path__"):
            continue
        for root in library_roots():
            folder = str(root.path.joinpath(*parts[1:]))
            if os.path.isdir(folder) and folder not in list(module.__path__):
                module.__path__.append(folder)
    importlib.invalidate_caches()


def install() -> None:
    """Puts the library finder first on ``sys.meta_path`` (once)."""
    if not any(isinstance(finder, _LibraryFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _LibraryFinder())
