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

import pathlib
import pprint
from typing import Dict

from . import checks, library, requirements
from .creating import new_gentool
from .files import read_text
from .scaffold import ACTION_FILE_NAMES, ACTION_FILES, check_name, render, template_dir

__all__ = ["save_gentool"]


def render_init(category: str, name: str, requires: Dict[str, object]) -> str:
    """The action's ``__init__.py`` from the scaffold, with ``requires`` filled in."""
    template = template_dir() / ACTION_FILES[0][0]
    text = render(template.read_text(encoding="utf-8"), category, name)
    literal = pprint.pformat(requires, width=96, sort_dicts=True)
    return text.replace("REQUIRES: dict = {}", f"REQUIRES: dict = {literal}", 1)


def save_gentool(
    category: str, name: str, *, scope: str = "user", overwrite: bool = False
) -> pathlib.Path:
    """Checks the draft ``<workspace>/gentools/<category>/<name>/``, records what it needs, and
    returns where it is saved.

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
        return draft
    files = {file_name: read_text(draft / file_name) for file_name in ACTION_FILE_NAMES}
    return new_gentool(category, name, scope="user", files=files, overwrite=overwrite)
