"""What a saved code action needs to run, and whether this project has it.

``save_gentool()`` records in the action's ``__init__.py`` (``REQUIRES = {...}``) the MCP servers
it calls, with their registration as ipybox wrote it to ``mcptools/<server>/registration.json``
(``${VAR}`` placeholders stay placeholders, never values), the version (hash) of each
``mcptools`` tool module it imports, the ``mcpparse`` parsers it imports (hand-written files of
the project that saved it, which no ipybox call can make elsewhere), and the third-party packages
it imports. Importing the
action calls ``require()``, which raises one ``MissingDependencyError`` naming every missing
dependency and the exact ipybox tool call that adds it, or ``add_dependencies(<action>)``, which
asks the user (through the host's approval) to add them all at once. Search hits and
``check()`` use ``missing()`` and ``changed_tools()``. Standard library only.
"""

from __future__ import annotations

import ast
import json
import os
import pathlib
import sys
from typing import Dict, Iterable, List, Mapping, Optional, Set, Union

from . import library
from .files import read_text
from .short_traceback import ShortTraceback

__all__ = [
    "MissingDependencyError",
    "add_dependencies",
    "changed_tools",
    "collect",
    "missing",
    "require",
]

# Imports that never need installing: the kernel's own and the workspace's packages.
_PROVIDED = frozenset({"ipybox_runtime", "mcptools", "mcpparse", "gentools", "__future__"})


class MissingDependencyError(ShortTraceback, ImportError):
    """A saved action needs an MCP server or a package that this project does not have.

    Shown in a cell without ipybox's own frames (``short_traceback``)."""


def module_hash(text: str) -> str:
    """The version of a generated tool module: FNV-1a (64 bit) of its text, in hex, as the host
    pins it (gentools_library.cpp)."""
    value = 0xCBF29CE484222325
    for byte in text.encode("utf-8"):
        value ^= byte
        value = (value * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return format(value, "x")


def _tree(path: pathlib.Path) -> Optional[ast.Module]:
    try:
        return ast.parse(read_text(path), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None


def _imports(tree: Optional[ast.Module]) -> Set[str]:
    """Absolute imports of the code, as dotted names (``from a.b import c`` gives ``a.b.c``)."""
    found: Set[str] = set()
    for node in ast.walk(tree) if tree is not None else ():
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _distributions() -> Dict[str, List[str]]:
    try:
        from importlib.metadata import packages_distributions

        return dict(packages_distributions())
    except (ImportError, OSError, ValueError):
        return {}


def collect(
    directory: Union[str, "os.PathLike[str]"],
    workspace: Union[str, "os.PathLike[str]", None] = None,
) -> Dict[str, object]:
    """What the action in ``directory`` needs, read from its ``api.py`` and ``impl.py`` (never
    run) and this workspace's ``mcptools/``: ``{"servers": {name: registration},
    "tools": {"server.tool": hash}, "packages": {import name: distribution}}``, and
    ``"parsers": ["server.tool"]`` when it imports any."""
    base = library.workspace_path(workspace)
    folder = pathlib.Path(directory)
    names: Set[str] = set()
    for file_name in ("api.py", "impl.py"):
        names |= _imports(_tree(folder / file_name))
    servers: Dict[str, object] = {}
    tools: Dict[str, str] = {}
    packages: Dict[str, str] = {}
    parsers: Set[str] = set()
    standard = getattr(sys, "stdlib_module_names", frozenset(sys.builtin_module_names))
    distributions = None
    for name in sorted(names):
        parts = name.split(".")
        if parts[0] == "mcptools" and len(parts) >= 2:
            server_folder = base / "mcptools" / parts[1]
            if parts[1] not in servers:
                try:
                    servers[parts[1]] = json.loads(read_text(server_folder / "registration.json"))
                except (OSError, ValueError):
                    servers[parts[1]] = None  # registered before ipybox recorded registrations
            module = server_folder / f"{parts[2]}.py" if len(parts) >= 3 else None
            if module is not None and module.is_file():
                tools[f"{parts[1]}.{parts[2]}"] = module_hash(read_text(module))
        elif parts[0] == "mcpparse" and len(parts) >= 3:
            if (base / "mcpparse" / parts[1] / f"{parts[2]}.py").is_file():
                parsers.add(f"{parts[1]}.{parts[2]}")  # the module, not a name imported from it
        elif parts[0] not in _PROVIDED and parts[0] not in standard and parts[0] not in packages:
            # `import matplotlib.pyplot as plt` names only the submodule: its top level is the
            # package to install.
            if distributions is None:
                distributions = _distributions()
            packages[parts[0]] = (distributions.get(parts[0]) or [parts[0]])[0]
    needs: Dict[str, object] = {"servers": servers, "tools": tools, "packages": packages}
    if parsers:  # most actions import none: their record stays as it was
        needs["parsers"] = sorted(parsers)
    return needs


def foreign_paths(registration: object, base: pathlib.Path) -> List[str]:
    """Absolute paths a recorded registration names outside the project ``base``: a record
    saved before ipybox wrote the saving project's folder as ``${IPYBOX_WORKSPACE}`` names that
    project's folders, on which the server would work here too."""
    if not isinstance(registration, Mapping):
        return []
    values: List[object] = [registration.get("command"), registration.get("cwd")]
    values.extend(registration.get("args") or [])
    found: List[str] = []
    for value in values:
        if not isinstance(value, str) or "${" in value:
            continue
        text = value.split("=", 1)[1] if value.startswith("-") and "=" in value else value
        if not text.startswith("/") or text in found:
            continue
        # normpath: `/this/project/../other` climbs out of the project.
        path = pathlib.PurePosixPath(os.path.normpath(text))
        if path == base or base in path.parents:
            continue
        if os.path.isfile(text):
            continue  # a program or a script the server runs, not a folder it works on
        found.append(text)
    return found


def _call(tool: str, arguments: Mapping[str, object]) -> str:
    return f"{tool} {json.dumps(arguments, sort_keys=True)}"


def _missing_servers(
    requires: Mapping[str, object], base: pathlib.Path, calls: Iterable[str] = ()
) -> Dict[str, object]:
    """The servers of ``requires`` (or ``calls``) not registered here: name -> recorded
    registration (None when it was not recorded)."""
    servers = dict(requires.get("servers") or {}) if isinstance(requires, Mapping) else {}
    for call in calls:
        servers.setdefault(call.split(".")[0], None)
    return {
        server: registration
        for server, registration in sorted(servers.items())
        if not (base / "mcptools" / server / "__init__.py").is_file()
    }


def _missing_packages(requires: Mapping[str, object]) -> Dict[str, str]:
    """The packages of ``requires`` that do not import here: module -> distribution."""
    import importlib.util

    packages = requires.get("packages") if isinstance(requires, Mapping) else None
    absent = {}
    for module, distribution in sorted(dict(packages or {}).items()):
        try:
            if importlib.util.find_spec(module) is not None:
                continue
        except (ImportError, ValueError):
            pass
        absent[module] = distribution
    return absent


def missing(
    requires: Mapping[str, object],
    workspace: Union[str, "os.PathLike[str]", None] = None,
    calls: Iterable[str] = (),
    origin: str = "project",
) -> List[str]:
    """One line per dependency of ``requires`` this project lacks, each with the ipybox tool
    call that adds it. ``calls`` (``"server.tool"``) stands in for the servers of an action
    saved without a record. ``origin`` is where the action lives (a library root's origin): a
    package of an action saved outside the project (``"user"``, ``"library"``) is installed
    with ``"scope": "user"``, for every project."""
    base = library.workspace_path(workspace)
    lines = []
    for server, registration in _missing_servers(requires, base, calls).items():
        if isinstance(registration, dict):
            how = _call(
                "register_mcp_server", {"server_name": server, "server_params": registration}
            )
        else:
            how = (
                f"register_mcp_server with server_name {server!r} "
                "(its parameters were not recorded)"
            )
        line = f"MCP server {server!r} is not registered in this project: call {how}"
        foreign = foreign_paths(registration, base)
        if foreign:
            line += (
                f" (CHECK FIRST: it names {', '.join(foreign)}, outside this project; the "
                "action would work on those folders: pass this project's instead)"
            )
        lines.append(line)
    parsers = requires.get("parsers") if isinstance(requires, Mapping) else None
    for parser in sorted(str(item) for item in parsers or () if isinstance(item, str)):
        server, _, tool = parser.partition(".")
        if (base / "mcpparse" / server / f"{tool}.py").is_file():
            continue
        lines.append(
            f"parser mcpparse.{parser} is not in this project: copy mcpparse/{server}/{tool}.py "
            "from the project that saved the action (parsers are written by hand, never generated)"
        )
    for module, distribution in _missing_packages(requires).items():
        arguments = {"package_name": distribution}
        if origin != "project":
            arguments["scope"] = "user"
        how = _call("install_package", arguments)
        lines.append(f"package {distribution!r} (import {module}) is not installed: call {how}")
    return lines


def changed_tools(
    requires: Mapping[str, object], workspace: Union[str, "os.PathLike[str]", None] = None
) -> List[str]:
    """``"server.tool"`` of each tool module whose hash differs from the one pinned when the
    action was saved (a module of a registered server that is gone counts as changed)."""
    base = library.workspace_path(workspace)
    changed = []
    for tool, pinned in sorted(dict(requires.get("tools") or {}).items()):
        server, _, name = tool.partition(".")
        if not (base / "mcptools" / server / "__init__.py").is_file():
            continue  # not registered here: missing() says so
        try:
            current = module_hash(read_text(base / "mcptools" / server / f"{name}.py"))
        except (OSError, ValueError):
            current = None
        if current != pinned:
            changed.append(tool)
    return changed


def recorded(directory: Union[str, "os.PathLike[str]"]) -> Optional[Dict[str, object]]:
    """The ``REQUIRES`` literal of the action's ``__init__.py``, read without importing it."""
    tree = _tree(pathlib.Path(directory) / "__init__.py")
    for node in tree.body if tree is not None else ():
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        if any(isinstance(target, ast.Name) and target.id == "REQUIRES" for target in targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return None
            return value if isinstance(value, dict) else None
    return None


def _origin(module: str) -> str:
    """The origin of the library root the (imported) module ``module`` was loaded from."""
    file_name = getattr(sys.modules.get(module), "__file__", None)
    if not file_name:
        return "project"
    path = pathlib.Path(file_name).resolve()
    for root in library.library_roots():
        if root.path.resolve() in path.parents:
            return root.origin
    return "project"


def _addable(requires: Mapping[str, object]) -> bool:
    """True when ipybox could add something ``requires`` lists and this project lacks."""
    base = library.workspace_path(None)
    servers = _missing_servers(requires, base)
    return any(isinstance(params, dict) for params in servers.values()) or bool(
        _missing_packages(requires)
    )


def require(module: str, requires: Mapping[str, object]) -> None:
    """Raises ``MissingDependencyError`` when this project lacks what ``requires`` lists
    (called by a saved action's ``__init__.py``)."""
    lines = missing(requires, origin=_origin(module))
    if lines:
        offer = ""
        if _addable(requires):
            offer = (
                "\nipybox can add the servers and packages for you, once the user approves:\n"
                f"  from ipybox_runtime.requirements import add_dependencies; "
                f"print(add_dependencies({module!r}))"
            )
        raise MissingDependencyError(
            f"{module} cannot run in this project; it needs:\n"
            + "\n".join(f"  - {line}" for line in lines)
            + offer
        )


def _action_requires(module: str) -> Dict[str, object]:
    """The ``REQUIRES`` record of the saved action ``module`` (``gentools.<category>.<name>``),
    found without importing it (an import would raise for what is missing)."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        spec = None
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    if not locations:
        raise ValueError(f"{module} is not a saved code action (no package of that name)")
    record = recorded(locations[0])
    if record is None:
        raise ValueError(f"{module} records no REQUIRES: nothing to add")
    return record


def add_dependencies(module: str) -> str:
    """Asks ipybox to add what the saved action ``module`` needs and this project lacks: each
    MCP server registered with the registration recorded at save time, each package installed
    (for every project when the action comes from the user library). The user is asked first,
    with every registration and package shown; nothing is added without their approval.
    Returns ipybox's report; raises ``ApprovalRejectedError`` when declined and
    ``ToolRunnerError`` when something could not be added (its message says what). Parsers
    (``mcpparse``) are written by hand and are never added: copy them."""
    from . import tool_client

    requires = _action_requires(module)
    base = library.workspace_path(None)
    servers = {
        name: params
        for name, params in _missing_servers(requires, base).items()
        if isinstance(params, dict)
    }
    for_user = _origin_of_package(module) != "project"
    packages = [
        {"spec": distribution, "for_user": for_user}
        for distribution in _missing_packages(requires).values()
    ]
    if not servers and not packages:
        return f"{module}: nothing ipybox can add is missing"
    report = tool_client.add_dependencies(module, servers, packages)
    import importlib

    importlib.invalidate_caches()  # new packages and mcptools modules import at once
    return report


def _origin_of_package(module: str) -> str:
    """Where the (not yet imported) action ``module`` lives: a library root's origin."""
    import importlib.util

    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return "project"
    for location in list(spec.submodule_search_locations or []) if spec else []:
        path = pathlib.Path(location).resolve()
        for root in library.library_roots():
            if root.path.resolve() in path.parents:
                return root.origin
    return "project"
