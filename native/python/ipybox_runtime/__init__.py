"""The Python side of ipybox: what runs inside the kernel next to the user's code.

It holds the kernel entry point (``kernel_main``), the client through which generated
``mcptools`` modules call MCP tools on the host (``tool_client``), the errors they raise
(``errors``), the Pydantic base class of generated models (``models``), the IPython
extension that asks the host before shell commands run (``shell_approval``, loaded only when
enabled), and the gentools library: its roots (``library``), creating and saving actions
(``gentools``, the interface over ``scaffold``, ``creating`` and ``saving``), search (``search``,
re-exported here as ``search_tools``) and checks (``checks``). It depends only on the standard
library and Pydantic (1.10 or 2.x), and the imports between its modules form no cycle
(tests/python/test_runtime_imports.py).
"""

from .search import search_tools

__all__ = ["search_tools"]
