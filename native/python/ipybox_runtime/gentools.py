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

The scaffold is the ``gentools-template`` directory installed next to this package's parent
(``share/ipybox/gentools-template``), or at the root of a source checkout.

Standard library only.
"""

from __future__ import annotations

import ast
import importlib
import keyword
import os
import pathlib
from typing import Dict, List, Mapping, Optional, Tuple, Union

from . import library, tool_client
from .files import read_text
from .search_index import describe_action

__all__ = ["NAME_RULE", "catalog", "new_gentool", "save_gentool", "template_dir"]

TEMPLATE_DIR_NAME = "gentools-template"
WORKSPACE_VARIABLE = "IPYBOX_WORKSPACE"
# "host": the user library is saved to through ipybox (set by the host under --sandbox).
LIBRARY_SAVE_VARIABLE = "IPYBOX_LIBRARY_SAVE"
ACTION_FILE_NAMES = ("__init__.py", "api.py", "impl.py")
MAX_NAME_LENGTH = 64

# (file in the template, file in the created tree); {category} and {name} are filled in.
_ACTION_FILES = (
    ("category/action/__init__.py", "{category}/{name}/__init__.py"),
    ("category/action/api.py", "{category}/{name}/api.py"),
    ("category/action/impl.py", "{category}/{name}/impl.py"),
)
_CATEGORY_FILE = ("category/__init__.py", "{category}/__init__.py")


def template_dir() -> pathlib.Path:
    """The scaffold directory; raises ``FileNotFoundError`` naming the places looked at."""
    here = pathlib.Path(__file__).resolve()
    # Installed: share/ipybox/{python/ipybox_runtime, gentools-template}.
    # Source tree: native/python/ipybox_runtime and gentools-template at the root.
    candidates = [here.parents[2] / TEMPLATE_DIR_NAME, here.parents[3] / TEMPLATE_DIR_NAME]
    for candidate in candidates:
        if (candidate / _ACTION_FILES[1][0]).is_file():
            return candidate
    raise FileNotFoundError(
        "the ipybox gentools scaffold is missing; looked for "
        + " and ".join(str(candidate) for candidate in candidates)
        + " (reinstall ipybox)"
    )


# The one rule for category and action names (NAME_RULE says it to the agent).
NAME_RULE = (
    "lowercase ASCII letters, digits and _, starting with a letter, at most "
    f"{MAX_NAME_LENGTH} characters, not a Python keyword (like 'github' or 'top_repositories')"
)


def _check_name(kind: str, value: object) -> str:
    if not isinstance(value, str):
        raise ValueError(f"the {kind} must be a string, not {type(value).__name__}")
    problem = None
    if not value:
        problem = "it is empty"
    elif len(value) > MAX_NAME_LENGTH:
        problem = f"it is longer than {MAX_NAME_LENGTH} characters"
    elif not value.isascii() or not (value[0].islower() and value[0].isalpha()):
        problem = "it does not start with a lowercase letter"
    elif any(not (c.islower() or c.isdigit() or c == "_") for c in value):
        problem = "it holds characters other than lowercase letters, digits and _"
    elif keyword.iskeyword(value):
        problem = "it is a Python keyword"
    if problem:
        raise ValueError(f"invalid gentools {kind} {value!r}: {problem}; the rule: {NAME_RULE}")
    return value


def _resolve_root(root: Union[str, "os.PathLike[str]"]) -> pathlib.Path:
    path = pathlib.Path(root)
    if not path.is_absolute():
        # The kernel may have changed directory; the workspace is where saved actions belong.
        base = os.environ.get(WORKSPACE_VARIABLE) or os.getcwd()
        path = pathlib.Path(base) / path
    return path


def _render(text: str, category: str, name: str) -> str:
    return text.replace("{{category}}", category).replace("{{name}}", name)


def new_gentool(
    category: str,
    name: str,
    *,
    scope: str = "project",
    root: Union[str, "os.PathLike[str]", None] = None,
    overwrite: bool = False,
    files: Optional[Mapping[str, str]] = None,
) -> pathlib.Path:
    """Creates ``<root>/<category>/<name>/`` from the scaffold and returns that directory.

    ``category`` and ``name`` must be ASCII Python identifiers that are not keywords and do not
    start with an underscore (``ValueError`` otherwise). The root is chosen by ``scope``:
    ``"project"`` (``<workspace>/gentools``, importable in this project only) or ``"user"``
    (the user's library, importable in every project; a project action of the same name wins).
    An explicit ``root`` overrides ``scope``; a relative one is taken from the workspace
    (``$IPYBOX_WORKSPACE``, else the current directory). A root the kernel may not write (the
    user library under ``--sandbox``) raises ``PermissionError``.

    Writes ``__init__.py``, ``api.py`` and ``impl.py`` of the action, and the category's
    ``__init__.py`` when it is missing (an existing one is never replaced). When any of the
    action's files exists already, nothing is written and ``FileExistsError`` names it, unless
    ``overwrite=True``, which replaces the action's files with fresh scaffold copies.

    ``files`` gives the text of some of the action's files (``"api.py"``, ``"impl.py"``,
    ``"__init__.py"``) to write instead of the scaffold's. Under ``--sandbox`` the kernel cannot
    write the user library: with ``scope="user"`` the files go to ipybox, which asks for
    approval (like a tool call, as ``ipybox.save_gentool``, showing every file in full) and
    writes them there; pass the finished ``api.py`` and ``impl.py`` in ``files`` (at most 64 KiB
    each). Without ``files`` it creates the draft in the project instead (and returns that
    folder): write it there, then ``save_gentool(category, name, scope="user")``.
    Refusals raise ``FileExistsError`` (exists, no ``overwrite``), ``PermissionError`` (a link
    or a foreign file in the library) or ``ApprovalRejectedError``.
    """
    _check_name("category", category)
    _check_name("name", name)
    overrides = _check_files(files)
    if root is None and scope == "user" and os.environ.get(LIBRARY_SAVE_VARIABLE) == "host":
        if not overrides:
            # The kernel could not edit a scaffold saved there: the draft lives in the project
            # until save_gentool() copies it over.
            return new_gentool(category, name, scope="project", overwrite=overwrite)
        return _save_through_host(category, name, overrides, overwrite)
    root_path = _resolve_root(root) if root is not None else library.root_for_scope(scope).path
    template = template_dir()

    planned: List[Tuple[pathlib.Path, pathlib.Path]] = []
    for source, target in _ACTION_FILES:
        planned.append((template / source, root_path / target.format(category=category, name=name)))
    if not overwrite:
        for _, target_path in planned:
            if target_path.exists() or target_path.is_symlink():
                raise FileExistsError(
                    f"{target_path} already exists; choose another name, or pass overwrite=True "
                    "to replace the saved action's files"
                )
    category_source, category_target = _CATEGORY_FILE
    category_init = root_path / category_target.format(category=category)
    if not (category_init.exists() or category_init.is_symlink()):
        planned.append((template / category_source, category_init))

    contents: Dict[pathlib.Path, str] = {
        target_path: _render(source_path.read_text(encoding="utf-8"), category, name)
        for source_path, target_path in planned
    }
    for file_name, text in overrides.items():
        contents[root_path / category / name / file_name] = text
    package = root_path / category / name
    try:
        package.mkdir(parents=True, exist_ok=True)
        for target_path, text in contents.items():
            target_path.write_text(text, encoding="utf-8")
    except OSError as error:
        if not isinstance(error, PermissionError) and error.errno != 30:  # EROFS
            raise
        raise PermissionError(
            f"{root_path} cannot be written from this kernel ({error.strerror}); write the "
            "action in the project (new_gentool(category, name)), then "
            "save_gentool(category, name, scope='user')"
        ) from error
    library.refresh_paths()  # so that the new package imports in this same kernel
    importlib.invalidate_caches()
    return package


def _check_files(files: Optional[Mapping[str, str]]) -> Dict[str, str]:
    if files is None:
        return {}
    if not isinstance(files, Mapping):
        raise ValueError("files must be a mapping of file name to text, like {'api.py': ...}")
    checked = {}
    for file_name, text in files.items():
        if file_name not in ACTION_FILE_NAMES:
            raise ValueError(
                f"files may hold only {', '.join(ACTION_FILE_NAMES)}, not {file_name!r}"
            )
        if not isinstance(text, str):
            raise ValueError(f"the text of {file_name} must be a string")
        checked[file_name] = text
    return checked


def _save_through_host(
    category: str, name: str, overrides: Dict[str, str], overwrite: bool
) -> pathlib.Path:
    """Renders the scaffold, applies ``overrides`` and has ipybox write the user library."""
    template = template_dir()
    files = {}
    for source, target in _ACTION_FILES:
        file_name = pathlib.PurePosixPath(target).name
        text = (template / source).read_text(encoding="utf-8")
        files[file_name] = overrides.get(file_name, _render(text, category, name))
    category_init = _render(
        (template / _CATEGORY_FILE[0]).read_text(encoding="utf-8"), category, name
    )
    package = tool_client.save_gentool(
        category, name, files, category_init=category_init, overwrite=overwrite
    )
    library.refresh_paths()  # so that the new package imports in this same kernel
    importlib.invalidate_caches()
    return package


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


from .saving import save_gentool  # noqa: E402 - saving builds on the helpers above
