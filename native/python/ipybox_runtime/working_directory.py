"""Puts the kernel back in its working directory after each cell (an IPython extension).

ipybox loads this extension when asked to keep the working directory (``working_dir`` in the
Python SDK, as the reference does): after a cell that changed the current directory (or whose
directory was removed), the kernel changes back to the workspace and the cell's output ends with
``[ipybox] cwd reset to <workspace>``.
"""

from __future__ import annotations

import os
from typing import Any, Optional

__all__ = ["load_ipython_extension"]

_INSTALLED_MARK = "_ipybox_working_directory_installed"


def _current_directory() -> Optional[str]:
    try:
        return os.getcwd()
    except OSError:  # removed by the cell
        return None


def load_ipython_extension(shell: Any) -> None:
    if getattr(shell, _INSTALLED_MARK, False):
        return
    home = os.environ.get("IPYBOX_WORKSPACE") or os.getcwd()

    def restore(*_result: Any) -> None:
        if _current_directory() == home:
            return
        os.chdir(home)
        print(f"[ipybox] cwd reset to {home}", flush=True)

    shell.events.register("post_run_cell", restore)
    setattr(shell, _INSTALLED_MARK, True)
