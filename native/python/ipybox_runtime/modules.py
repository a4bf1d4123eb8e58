"""Helpers the host runs inside the kernel to keep imported modules in step with the files."""

from __future__ import annotations

import importlib
import sys


def unload(package: str) -> int:
    """Forgets ``package`` and its submodules so that the next import reads the files again.

    Returns how many modules were unloaded. Objects that user code already holds keep
    referring to the old modules.
    """
    prefix = package + "."
    names = [name for name in sys.modules if name == package or name.startswith(prefix)]
    for name in names:
        del sys.modules[name]
    importlib.invalidate_caches()
    return len(names)
