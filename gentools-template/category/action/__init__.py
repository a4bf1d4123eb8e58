"""Saved code action ``gentools.{{category}}.{{name}}``; its interface is in ``api.py``."""

from ipybox_runtime.requirements import require

# What the action needs, recorded by save_gentool(): the MCP servers it calls (as registered,
# placeholders kept), the versions of their tools it was written against, and packages.
# Importing it where one is missing raises MissingDependencyError naming each one and the call
# that adds it.
REQUIRES: dict = {}
require(__name__, REQUIRES)

from .api import *  # noqa: F401,F403,E402 - re-exports exactly the names in api.__all__
from .api import __all__  # noqa: F401,E402
