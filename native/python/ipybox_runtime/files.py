"""Reading files that kernel code of any origin may have put in the workspace, without hanging.

The search index and ``catalog()`` read every module under ``mcptools/``, ``mcpparse/`` and
``gentools/``. A FIFO there would block an ordinary ``open()`` for ever (and with it the search,
which ipybox runs for the agent); a link to ``/dev/zero`` would make ``read()`` fill memory.
``read_text`` opens without waiting (``O_NONBLOCK``), refuses anything that is not a regular file
and reads at most ``limit`` bytes. Links are followed: an import follows them too.
"""

from __future__ import annotations

import errno
import os
import stat
from typing import Union

# Python source of a tool module or a saved action, the search cache: at most this much is read.
DEFAULT_LIMIT = 4 * 1024 * 1024


def read_text(path: Union[str, "os.PathLike[str]"], limit: int = DEFAULT_LIMIT) -> str:
    """The UTF-8 text of the regular file at ``path``.

    Raises ``OSError`` when it cannot be opened, is not a regular file (a FIFO, a device, a
    socket, a directory) or holds more than ``limit`` bytes, and ``UnicodeDecodeError`` (a
    ``ValueError``) when it is not UTF-8.
    """
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file", os.fspath(path))
        chunks = []
        total = 0
        while True:
            chunk = os.read(descriptor, min(1 << 16, limit + 1 - total))
            if not chunk:
                break
            total += len(chunk)
            if total > limit:
                raise OSError(errno.EFBIG, f"larger than {limit} bytes", os.fspath(path))
            chunks.append(chunk)
        return b"".join(chunks).decode("utf-8")
    finally:
        os.close(descriptor)
