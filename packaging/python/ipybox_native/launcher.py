"""Where the native binary is, and the command ``ipybox-native``.

``ipybox-native`` is the package's name as a command, so that ``uvx ipybox-native`` runs ipybox
as ``uvx ipybox`` runs the reference: it replaces itself with the native binary that the same
wheel installed as the script ``ipybox``, with the same arguments.
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib import metadata
from pathlib import Path
from typing import List, Optional

DISTRIBUTION = "ipybox-native"
BINARY_VARIABLE = "IPYBOX_BIN"


def native_binary() -> Optional[Path]:
    """The installed ``ipybox`` binary of this distribution, or None if it is missing.

    Found through the wheel's installed file list, so a venv, ``pip install --user`` and
    ``uv tool install`` all work.
    """
    try:
        files = metadata.distribution(DISTRIBUTION).files or []
    except metadata.PackageNotFoundError:
        return None
    for file in files:  # the binary is the one file named "ipybox" (in the scripts folder)
        if file.name == "ipybox":
            located = Path(str(file.locate())).resolve()
            if located.is_file() and os.access(located, os.X_OK):
                return located
    return None


def engine_binary() -> Path:
    """The binary the SDK drives: ``$IPYBOX_BIN`` when set (a build of one's own), else this
    distribution's, else ``ipybox`` on PATH. Raises FileNotFoundError naming what was tried."""
    override = os.environ.get(BINARY_VARIABLE)
    if override:
        return Path(override)
    installed = native_binary()
    if installed is not None:
        return installed
    on_path = shutil.which("ipybox")
    if on_path:
        return Path(on_path)
    raise FileNotFoundError(
        f"the ipybox binary was not found (${BINARY_VARIABLE}, the {DISTRIBUTION} "
        f"installation, PATH); reinstall it: pip install --force-reinstall {DISTRIBUTION}"
    )


def main(argv: Optional[List[str]] = None) -> None:
    binary = native_binary()
    if binary is None:
        sys.exit(
            "ipybox-native: the ipybox binary of this installation is missing; "
            f"reinstall it: pip install --force-reinstall {DISTRIBUTION}"
        )
    arguments = sys.argv[1:] if argv is None else argv
    os.execv(binary, [str(binary), *arguments])
