"""The Python side of ipybox: what runs inside the kernel next to the user's code.

It holds the kernel entry point (``kernel_main``), the client through which generated
``mcptools`` modules call MCP tools on the host (``tool_client``), the errors they raise
(``errors``), the Pydantic base class of generated models (``models``) and the IPython
extension that asks the host before shell commands run (``shell_approval``, loaded only when
enabled). It depends only on the standard library and Pydantic (1.10 or 2.x).
"""
