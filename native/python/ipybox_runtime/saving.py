"""Saving a code action: the project's draft checked, its needs recorded, copied where it belongs.

Drafts live in the project (``gentools/<category>/<name>/``, made by ``new_gentool``) until
``check()`` passes. ``save_gentool(category, name, scope=...)`` then records what the action
needs in its ``__init__.py`` (``REQUIRES``: the MCP servers it calls with their registrations,
the versions of the tools, the packages; see ``ipybox_runtime.requirements``), checks it, and
for ``scope="user"`` copies the finished files to the user's library (under ``--sandbox``
through ipybox, after approval). The project's copy stays and, by the one precedence rule, wins
in this project: search shows it as shadowing the user's copy. Standard library only.
"""

from __future__ import annotations

import os
import pathlib
import pprint
import re
from typing import Any, Dict, List

from . import checks, library, requirements
from .creating import new_gentool
from .files import read_text
from .scaffold import ACTION_FILE_NAMES, ACTION_FILES, check_name, render, template_dir

__all__ = ["SavedGentool", "save_gentool"]

_WORKSPACE_VARIABLE = "IPYBOX_WORKSPACE"
_PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


class SavedGentool(os.PathLike):
    """Where ``save_gentool`` saved an action, and what it recorded of its needs.

    Usable as the folder's path (``os.fspath``, ``/``, ``==``, ``.name``, ``.exists()`` ...);
    ``str()`` is a summary to read: the servers with the registrations another project will be
    offered, the tools pinned, the packages, and each ``${VAR}`` those registrations need set
    where the action is reused (a literal ``env`` or header value is never saved: it is recorded
    as a placeholder of its own name).
    """

    def __init__(self, path: pathlib.Path, requires: Dict[str, Any]) -> None:
        self.path = pathlib.Path(path)
        self.requires = requires
        self.servers: Dict[str, Any] = dict(requires.get("servers") or {})
        self.tools: List[str] = sorted(requires.get("tools") or {})
        self.packages: Dict[str, str] = dict(requires.get("packages") or {})
        self.parsers: List[str] = list(requires.get("parsers") or [])
        self.placeholders: List[str] = sorted(
            {name for params in self.servers.values() for name in _placeholders_in(params)}
            - {_WORKSPACE_VARIABLE}  # ipybox fills it with the reusing project's folder
        )

    def __fspath__(self) -> str:
        return str(self.path)

    def __truediv__(self, other: "str | os.PathLike[str]") -> pathlib.Path:
        return self.path / other

    def __eq__(self, other: object) -> bool:
        if isinstance(other, SavedGentool):
            return self.path == other.path
        return self.path == other

    def __hash__(self) -> int:
        return hash(self.path)

    def __getattr__(self, name: str) -> Any:
        if name == "path":  # not set yet: no recursion through __getattr__
            raise AttributeError(name)
        return getattr(self.path, name)

    def __repr__(self) -> str:
        return f"SavedGentool({str(self.path)!r})"

    def __str__(self) -> str:
        lines = [f"saved {self.path}"]
        for name, params in sorted(self.servers.items()):
            shown = "not recorded (registered before ipybox kept registrations)"
            if isinstance(params, dict):
                shown = " ".join(
                    [str(params.get("command") or params.get("url") or "")]
                    + [str(arg) for arg in params.get("args") or []]
                )
            lines.append(f"  server {name}: {shown}")
        if self.tools:
            lines.append(f"  tools pinned: {', '.join(self.tools)}")
        packages = [
            module if module == dist else f"{module} (from {dist})"
            for module, dist in sorted(self.packages.items())
        ]
        lines.append(f"  packages: {', '.join(packages) if packages else 'none'}")
        if self.parsers:
            lines.append(f"  parsers (copy them along): {', '.join(self.parsers)}")
        if self.placeholders:
            lines.append(
                "  set where it is reused (environment or .env): "
                + ", ".join(f"${{{name}}}" for name in self.placeholders)
            )
        return "\n".join(lines)


def _placeholders_in(value: Any) -> List[str]:
    if isinstance(value, str):
        return _PLACEHOLDER.findall(value)
    if isinstance(value, dict):
        return [name for item in value.values() for name in _placeholders_in(item)]
    if isinstance(value, list):
        return [name for item in value for name in _placeholders_in(item)]
    return []


def render_init(category: str, name: str, requires: Dict[str, object]) -> str:
    """The action's ``__init__.py`` from the scaffold, with ``requires`` filled in."""
    template = template_dir() / ACTION_FILES[0][0]
    text = render(template.read_text(encoding="utf-8"), category, name)
    literal = pprint.pformat(requires, width=96, sort_dicts=True)
    return text.replace("REQUIRES: dict = {}", f"REQUIRES: dict = {literal}", 1)


def save_gentool(
    category: str, name: str, *, scope: str = "user", overwrite: bool = False
) -> SavedGentool:
    """Checks the draft ``<workspace>/gentools/<category>/<name>/``, records what it needs, and
    returns where it is saved with what was recorded (``SavedGentool``: a path; print it).

    ``scope="project"`` keeps it in the project; ``scope="user"`` (the default) also copies
    ``__init__.py``, ``api.py`` and ``impl.py`` to the user's library, which every project
    imports from; an action of the same name there is replaced only with ``overwrite=True``.
    Raises ``FileNotFoundError`` (no draft), ``checks.CheckFailedError`` naming each finding
    (nothing is copied), ``FileExistsError``, ``PermissionError`` or ``ApprovalRejectedError``.
    """
    check_name("category", category)
    check_name("name", name)
    if scope not in ("project", "user"):
        raise ValueError(f"scope must be 'project' or 'user', not {scope!r}")
    base = library.workspace_path()
    draft = base / "gentools" / category / name
    if not (draft / "api.py").is_file():
        raise FileNotFoundError(
            f"no draft at {draft}: make it with new_gentool({category!r}, {name!r}) and write "
            "its api.py and impl.py first"
        )
    requires = requirements.collect(draft, base)
    init_text = render_init(category, name, requires)
    if (draft / "__init__.py").is_file() and read_text(draft / "__init__.py") == init_text:
        pass  # unchanged: keep its stamp (the host's pins)
    else:
        (draft / "__init__.py").write_text(init_text, encoding="utf-8")
    report = checks.check([f"{category}.{name}"], workspace=base)
    if not report.ok:
        raise checks.CheckFailedError(f"not saved, the check failed:\n{report}")
    if scope == "project":
        return SavedGentool(draft, requires)
    files = {file_name: read_text(draft / file_name) for file_name in ACTION_FILE_NAMES}
    saved = new_gentool(category, name, scope="user", files=files, overwrite=overwrite)
    return SavedGentool(saved, requires)
