"""A small MCP server on stdio for the SDK tests, standard library only (it runs under any
Python): raw JSON lines, the methods a client needs.

Tools: ``echo-text`` (``s``, optional ``delay`` in seconds) answers ``"echo: <s>"``; its name
has a hyphen, so its module is ``echo_text``.
"""

from __future__ import annotations

import json
import sys
import time

TOOLS = [
    {
        "name": "echo-text",
        "description": "Echoes its argument.",
        "inputSchema": {
            "type": "object",
            "properties": {"s": {"type": "string"}, "delay": {"type": "number"}},
            "required": ["s"],
        },
    }
]


def answer(message: dict, result: dict) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}) + "\n")
    sys.stdout.flush()


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method = message.get("method")
        if "id" not in message or method is None:
            continue
        if method == "initialize":
            answer(
                message,
                {
                    "protocolVersion": message["params"]["protocolVersion"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "echo", "version": "1.0.0"},
                },
            )
        elif method == "tools/list":
            answer(message, {"tools": TOOLS})
        elif method == "tools/call":
            arguments = message["params"].get("arguments") or {}
            time.sleep(float(arguments.get("delay") or 0))
            answer(message, {"content": [{"type": "text", "text": f"echo: {arguments['s']}"}]})
        else:
            answer(message, {})


if __name__ == "__main__":
    main()
