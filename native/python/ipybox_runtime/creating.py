"""Creating a saved code action's files from the scaffold: ``new_gentool``.

An action is created as a draft in the project (``<workspace>/gentools/<category>/<name>/``),
or written straight to a chosen root. Under ``--sandbox`` the kernel cannot write the user
library: there the finished files go to ipybox, which writes them after approval
(``IPYBOX_LIBRARY_SAVE=host``). Standard library only.
"""

from __future__ import annotations

import importlib
import os
import pathlib
from typing import Dict, List, Mapping, Optional, Tuple, Union

from . import library, tool_client
from .scaffold import (
    ACTION_FILE_NAMES,
    ACTION_FILES,
    CATEGORY_FILE,
    check_name,
    render,
    template_dir,
)

__all__ = ["new_gentool"]

WORKSPACE_VARIABLE = "IPYBOX_WORKSPACE"
# "host": the user library is saved to through ipybox (set by the host under --sandbox).
LIBRARY_SAVE_VARIABLE = "IPYBOX_LIBRARY_SAVE"


def _resolve_root(root: Union[str, "os.PathLike[str]"]) -> pathlib.Path:
    path = pathlib.Path(root)
    if not path.is_absolute():
        # The kernel may have changed directory; the workspace is where saved actions belong.
        base = os.environ.get(WORKSPACE_VARIABLE) or os.getcwd()
        path = pathlib.Path(base) / path
    return path


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
    check_name("category", category)
    check_name("name", name)
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
    for source, target in ACTION_FILES:
        planned.append((template / source, root_path / target.format(category=category, name=name)))
    if not overwrite:
        for _, target_path in planned:
            if target_path.exists() or target_path.is_symlink():
                raise FileExistsError(
                    f"{target_path} already exists; choose another name, or pass overwrite=True "
                    "to replace the saved action's files"
                )
    category_source, category_target = CATEGORY_FILE
    category_init = root_path / category_target.format(category=category)
    if not (category_init.exists() or category_init.is_symlink()):
        planned.append((template / category_source, category_init))

    contents: Dict[pathlib.Path, str] = {
        target_path: render(source_path.read_text(encoding="utf-8"), category, name)
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
    for source, target in ACTION_FILES:
        file_name = pathlib.PurePosixPath(target).name
        text = (template / source).read_text(encoding="utf-8")
        files[file_name] = overrides.get(file_name, render(text, category, name))
    category_init = render(
        (template / CATEGORY_FILE[0]).read_text(encoding="utf-8"), category, name
    )
    package = tool_client.save_gentool(
        category, name, files, category_init=category_init, overwrite=overwrite
    )
    library.refresh_paths()  # so that the new package imports in this same kernel
    importlib.invalidate_caches()
    return package
