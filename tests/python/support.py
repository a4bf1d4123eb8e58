"""Shared helpers of the Python tests: paths, golden cases and a fake ipybox tool server."""

from __future__ import annotations

import contextlib
import importlib
import http.server
import json
import os
import socketserver
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

SOURCE_DIR = Path(__file__).resolve().parents[2]
RUNTIME_DIR = SOURCE_DIR / "native" / "python"
GOLDEN_DIR = SOURCE_DIR / "tests" / "golden" / "codegen"
TOKEN = "test-token-0123"


def prepare_import_path() -> None:
    """Puts the runtime and every golden `expected/` directory on sys.path."""
    paths = [str(RUNTIME_DIR)] + [str(case / "expected") for case in golden_cases()]
    for path in reversed(paths):
        if path not in sys.path:
            sys.path.insert(0, path)


def run_tests(directory: Path, names: List[str]) -> int:
    """Runs the unittest `names` (default: every test_*.py in `directory`); the exit status."""
    import unittest

    loader = unittest.TestLoader()
    if names:
        suite = loader.loadTestsFromNames(names)
    else:
        suite = loader.discover(str(directory), pattern="test_*.py", top_level_dir=str(directory))
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    if result.testsRun == 0:
        print("FAIL: no tests ran", file=sys.stderr)
        return 1
    return 0 if result.wasSuccessful() else 1


def golden_cases() -> List[Path]:
    return sorted(path for path in GOLDEN_DIR.iterdir() if (path / "tools.json").is_file())


def load_case(case: Path) -> Tuple[str, List[Dict[str, Any]]]:
    data = json.loads((case / "tools.json").read_text(encoding="utf-8"))
    return data["server_name"], data["tools"]


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON and of the same Python type throughout (5 is not 5.0, 1 is not True)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return a == b


def import_package(server_name: str):
    return importlib.import_module(server_name)


def tool_modules(server_name: str) -> Dict[str, Any]:
    """Module name -> imported module, for every tool of a generated package."""
    package = import_package(server_name)
    return {name: importlib.import_module(f"{server_name}.{name}") for name in package.TOOLS}


Handler = Callable[[Dict[str, Any]], Tuple[int, Any]]


class _RequestHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: "_FakeServer"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - signature of the base
        pass

    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        length = int(self.headers.get("Content-Length", "0"))
        raw = self.rfile.read(length)
        request = {
            "path": self.path,
            "authorization": self.headers.get("Authorization"),
            "content_type": self.headers.get("Content-Type"),
            "content_length": length,
            "raw": raw,
        }
        self.server.requests.append(request)
        if self.path not in self.server.routes:
            status, body = 404, {"error": {"type": "bad_request", "message": "no such route"}}
        elif request["authorization"] != f"Bearer {TOKEN}":
            status, body = error_result("unauthorized", "missing or wrong token", 401)
        else:
            status, body = self.server.handler(json.loads(raw.decode("utf-8")))
        payload = body if isinstance(body, bytes) else json.dumps(body).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class _FakeServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, handler: Handler, routes: Tuple[str, ...]) -> None:
        self.handler = handler
        self.routes = routes
        self.requests: List[Dict[str, Any]] = []
        super().__init__(path, _RequestHandler)


@contextlib.contextmanager
def fake_tool_server(
    handler: Handler, token: Optional[str] = TOKEN, routes: Tuple[str, ...] = ("/run",)
) -> Iterator[_FakeServer]:
    """A tool server on a Unix socket in a fresh directory, with the kernel's variables set;
    ``handler`` answers POSTs to ``routes``."""
    with tempfile.TemporaryDirectory(prefix="ipybox-py-") as directory:
        path = os.path.join(directory, "tools.sock")
        server = _FakeServer(path, handler, routes)
        thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        thread.start()
        saved = {name: os.environ.get(name) for name in ("IPYBOX_TOOL_SOCKET", "IPYBOX_TOOL_TOKEN")}
        os.environ["IPYBOX_TOOL_SOCKET"] = path
        if token is None:
            os.environ.pop("IPYBOX_TOOL_TOKEN", None)
        else:
            os.environ["IPYBOX_TOOL_TOKEN"] = token
        try:
            yield server
        finally:
            server.shutdown()
            server.server_close()
            for name, value in saved.items():
                if value is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = value


def ok_result(
    text: str = "", structured: Any = None, images: Optional[List[str]] = None
) -> Tuple[int, Any]:
    result = {"text": text, "structured": structured, "images": images or [], "is_error": False}
    return 200, {"result": result}


def error_result(kind: str, message: str, status: int = 200) -> Tuple[int, Any]:
    return status, {"error": {"type": kind, "message": message}}


def slow(seconds: float, answer: Tuple[int, Any]) -> Tuple[int, Any]:
    time.sleep(seconds)
    return answer
