"""Saved code action ``gentools.{{category}}.{{name}}``; its interface is in ``api.py``."""

from .api import *  # noqa: F401,F403 - re-exports exactly the names in api.__all__
from .api import __all__  # noqa: F401
