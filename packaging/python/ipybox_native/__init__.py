"""ipybox-native's Python SDK: the reference's API (ipybox 0.9.2) over ipybox's native engine.

    from ipybox_native import ApprovalRequest, CodeExecutionResult, CodeExecutor
    from ipybox_native import generate_mcp_sources

Each ``CodeExecutor`` drives one ``ipybox sdk`` process (the binary this wheel installs as
``ipybox``); see README.md, "Python SDK", for what differs from the reference and why.
"""

from .approval import ApprovalRequest
from .code_exec import CodeExecutionChunk, CodeExecutionError, CodeExecutionResult, CodeExecutor
from .launcher import main
from .mcp_sources import generate_mcp_sources

__all__ = [
    "ApprovalRequest",
    "CodeExecutionChunk",
    "CodeExecutionError",
    "CodeExecutionResult",
    "CodeExecutor",
    "generate_mcp_sources",
    "main",
]
