#!/usr/bin/env python3
"""MCP servers that misbehave on purpose, for ipybox's hostile-server tests.

One script, three transports, one misbehaviour per mode:

    hostile_server.py stdio MODE            newline-delimited JSON on stdin/stdout
    hostile_server.py http MODE             Streamable HTTP on 127.0.0.1, endpoint /mcp
    hostile_server.py sse MODE              legacy HTTP+SSE on 127.0.0.1, stream /sse

The HTTP transports print their URL on the first line of stdout, then serve until killed.
initialize, ping and notifications are always handled correctly; the mode decides what
tools/list and tools/call get:

    well-behaved     a correct answer (the control)
    latin1-list      the tool list with one Latin-1 byte (0xE9) in a description
    huge-list        a tool list of 20 MiB (over ipybox's 16 MiB message limit)
    deep-list        a tool list whose schema nests 600 levels deep (the limit is 512)
    silent-list      tools/list is read and never answered (the connection stays open)
    trickle-list     the correct answer, at 2 bytes a second
    notify-list      notifications every 50 ms, forever, instead of the answer to tools/list
    notify-trickle-list  the same, each notification written in two halves 0.3 s apart, so
                     that bytes of a message are always arriving (stdio)
    slow-list        the correct answer in three pieces 1.2 s apart: slow, but it finishes
    huge-result      tools/call answers with 20 MiB of text

Only the standard library; nothing here is imported by ipybox.
"""

import json
import queue
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MIB = 1024 * 1024
MODES = {
    "well-behaved",
    "latin1-list",
    "huge-list",
    "deep-list",
    "silent-list",
    "trickle-list",
    "notify-list",
    "notify-trickle-list",
    "slow-list",
    "huge-result",
}
TOOL = {"name": "noop", "description": "Does nothing.", "inputSchema": {"type": "object"}}


def encode(message):
    return json.dumps(message).encode()


def answer(request_id, result):
    return encode({"jsonrpc": "2.0", "id": request_id, "result": result})


def tool_list_answer(request_id, mode):
    """The bytes of the answer to tools/list in `mode`, or None when it sends none."""
    if mode == "latin1-list":
        text = '{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"noop",' % json.dumps(
            request_id
        )
        return text.encode() + b'"description":"caf\xe9","inputSchema":{"type":"object"}}]}}'
    if mode == "huge-list":
        tool = dict(TOOL, description="x" * (20 * MIB))
        return answer(request_id, {"tools": [tool]})
    if mode == "deep-list":
        deep = "[" * 600 + "]" * 600
        text = '{"tools":[{"name":"noop","inputSchema":{"type":"object","default":%s}}]}' % deep
        # The id after the result, as the TypeScript SDK writes it.
        return b'{"result":' + text.encode() + b',"jsonrpc":"2.0","id":%s}' % encode(request_id)
    if mode in ("silent-list", "notify-list", "notify-trickle-list"):
        return None
    return answer(request_id, {"tools": [TOOL]})


def tool_call_answer(request_id, mode):
    text = "x" * (20 * MIB) if mode == "huge-result" else "ok"
    return answer(request_id, {"content": [{"type": "text", "text": text}], "isError": False})


def respond(message, mode):
    """(bytes of the answer or None, whether it trickles, whether notifications replace it)."""
    method = message.get("method")
    request_id = message.get("id")
    if request_id is None or method is None:
        return None, False, False  # a notification or a response of the client's
    if method == "initialize":
        version = message.get("params", {}).get("protocolVersion", "2025-06-18")
        result = {
            "protocolVersion": version,
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "hostile", "version": "1.0"},
        }
        return answer(request_id, result), False, False
    if method == "tools/list":
        notify = mode in ("notify-list", "notify-trickle-list")
        return tool_list_answer(request_id, mode), mode == "trickle-list", notify
    if method == "tools/call":
        return tool_call_answer(request_id, mode), False, False
    if method == "ping":
        return answer(request_id, {}), False, False
    error = {"code": -32601, "message": "Method not found"}
    return encode({"jsonrpc": "2.0", "id": request_id, "error": error}), False, False


def notifications():
    """An endless stream of log notifications, one every 50 ms."""
    count = 0
    while True:
        count += 1
        note = {"level": "info", "data": "still working %d" % count}
        yield encode({"jsonrpc": "2.0", "method": "notifications/message", "params": note})
        time.sleep(0.05)


def trickled(data):
    """`data` at 2 bytes a second: one byte every half second."""
    for start in range(len(data)):
        yield data[start : start + 1]
        time.sleep(0.5)


def in_pieces(data, count, pause):
    """`data` in `count` pieces, `pause` seconds apart."""
    size = -(-len(data) // count)
    for start in range(0, len(data), size):
        if start:
            time.sleep(pause)
        yield data[start : start + size]


def serve_stdio(mode):
    out = sys.stdout.buffer
    lock = threading.Lock()

    def write(data):
        with lock:
            out.write(data)
            out.flush()

    def handle(line):
        data, trickle, notify = respond(json.loads(line), mode)
        if notify:
            halves = 2 if mode == "notify-trickle-list" else 1
            for note in notifications():
                for piece in in_pieces(note + b"\n", halves, 0.3):
                    write(piece)
        if data is None:
            return
        if trickle:
            pieces = trickled(data + b"\n")
        elif mode == "slow-list" and json.loads(line).get("method") == "tools/list":
            pieces = in_pieces(data + b"\n", 3, 1.2)
        else:
            pieces = [data + b"\n"]
        for piece in pieces:
            write(piece)

    for line in sys.stdin.buffer:
        if line.strip():
            threading.Thread(target=handle, args=(line,), daemon=True).start()


class StreamableHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "well-behaved"

    def log_message(self, *args):
        pass

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        message = json.loads(self.rfile.read(length))
        data, trickle, notify = respond(message, self.mode)
        if data is None and not notify:
            if message.get("id") is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            time.sleep(3600)  # silent: the request was read, no answer ever comes
            return
        if notify or self.mode == "huge-result" and message.get("method") == "tools/call":
            self.send_sse(notifications() if notify else [data])
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        for piece in trickled(data) if trickle else [data]:
            self.wfile.write(piece)
            self.wfile.flush()

    def send_sse(self, messages):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        for data in messages:
            self.wfile.write(b"event: message\ndata: " + data + b"\n\n")
            self.wfile.flush()

    def do_GET(self):
        self.send_response(405)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_DELETE(self):
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()


class LegacySseHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    mode = "well-behaved"
    outbox = queue.Queue()

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(b"event: endpoint\ndata: /messages\n\n")
        self.wfile.flush()
        while True:
            data = self.outbox.get()
            self.wfile.write(b"event: message\ndata: " + data + b"\n\n")
            self.wfile.flush()

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        message = json.loads(self.rfile.read(length))
        self.send_response(202)
        self.send_header("Content-Length", "0")
        self.end_headers()
        data, _, notify = respond(message, self.mode)
        if notify:
            threading.Thread(target=self.notify_forever, daemon=True).start()
        if data is not None:
            self.outbox.put(data)

    def notify_forever(self):
        for note in notifications():
            self.outbox.put(note)


def serve_http(handler, mode, path):
    handler.mode = mode
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    print("http://127.0.0.1:%d%s" % (server.server_address[1], path), flush=True)
    server.serve_forever()


def main():
    if (
        len(sys.argv) != 3
        or sys.argv[1] not in ("stdio", "http", "sse")
        or sys.argv[2] not in MODES
    ):
        sys.exit("usage: hostile_server.py stdio|http|sse MODE (one of %s)" % ", ".join(MODES))
    transport, mode = sys.argv[1], sys.argv[2]
    if transport == "stdio":
        serve_stdio(mode)
    elif transport == "http":
        serve_http(StreamableHandler, mode, "/mcp")
    else:
        serve_http(LegacySseHandler, mode, "/sse")


if __name__ == "__main__":
    main()
