"""Under ``--sandbox``: a write the sandbox refused says so in its error.

srt mounts everything outside the workspace read-only, so such a write fails with
``OSError: [Errno 30] Read-only file system`` (and a protected file inside the workspace with
``PermissionError``), which reads like a broken disk. This IPython extension (loaded by
kernel_main under ``--sandbox``) adds to the message of such an error that ended a cell which
protection refused it and how the user can widen it. The exception's type stays what the
system raised, so code that catches ``OSError`` behaves as it would anywhere.
"""

from __future__ import annotations

import errno
import os
from typing import Any

from .short_traceback import add_error_handler

_REFUSED = (errno.EROFS, errno.EACCES, errno.EPERM)


def hint(error: OSError) -> str:
    workspace = os.environ.get("IPYBOX_WORKSPACE") or os.getcwd()
    return (
        f"[ipybox] refused by the sandbox (--sandbox): this kernel writes only inside the "
        f"workspace {workspace} (not .env, .git/hooks, .claude settings); to widen it the user "
        "adds the folder to filesystem.allowWrite in .claude/ipybox-sandbox.json (or "
        "--sandbox-config)"
    )


def _show(shell: Any, etype, value, tb, tb_offset=None):
    if isinstance(value, OSError) and value.errno in _REFUSED and value.strerror:
        if "[ipybox]" not in value.strerror:
            value.strerror = f"{value.strerror}; {hint(value)}"
    shell.showtraceback((etype, value, tb), tb_offset=tb_offset)


def load_ipython_extension(shell: Any) -> None:
    add_error_handler(shell, (OSError,), _show)
