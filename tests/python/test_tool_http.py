"""ipybox_runtime.tool_http against a server that answers with canned bytes: what the tool
server sends is read exactly; anything else is a ProtocolError, never a guess."""

from __future__ import annotations

import os
import socket
import tempfile
import threading
import time
import unittest
from typing import List

from ipybox_runtime import tool_http


class _CannedServer:
    """Accepts one connection, reads the request head and body, then writes `pieces` (with a
    short pause between them) and closes."""

    def __init__(self, pieces: List[bytes]) -> None:
        self.directory = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.directory.name, "tools.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(1)
        self.request = b""
        self.thread = threading.Thread(target=self._serve, args=(pieces,), daemon=True)
        self.thread.start()

    def _serve(self, pieces: List[bytes]) -> None:
        connection, _ = self.listener.accept()
        with connection:
            while b"\r\n\r\n" not in self.request:
                self.request += connection.recv(4096)
            head, _, body = self.request.partition(b"\r\n\r\n")
            length = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            while len(body) < length:
                body += connection.recv(4096)
            self.request = head + b"\r\n\r\n" + body
            for piece in pieces:
                connection.sendall(piece)
                time.sleep(0.005)

    def close(self) -> None:
        self.thread.join(5)
        self.listener.close()
        self.directory.cleanup()


def _post(pieces: List[bytes], body: bytes = b'{"a": 1}'):
    server = _CannedServer(pieces)
    try:
        return tool_http.post(server.path, "/run", "token", body, 5.0), server.request
    finally:
        server.close()


def _answer(body: bytes, *headers: bytes) -> bytes:
    return b"\r\n".join([b"HTTP/1.1 200 OK", *headers, b"", body])


class PostTest(unittest.TestCase):
    def test_one_request_with_its_token_and_length(self):
        (status, body), request = _post(
            [_answer(b"{}", b"Content-Length: 2")], b'{"x": "\xc3\xbc"}'
        )
        self.assertEqual((status, body), (200, b"{}"))
        head, _, sent = request.partition(b"\r\n\r\n")
        self.assertTrue(head.startswith(b"POST /run HTTP/1.1\r\n"))
        self.assertIn(b"\r\nAuthorization: Bearer token\r\n", head + b"\r\n")
        self.assertIn(b"\r\nContent-Length: 11", head)
        self.assertEqual(sent, b'{"x": "\xc3\xbc"}')

    def test_an_answer_in_pieces_and_a_large_one_arrive_whole(self):
        large = bytes(range(256)) * 20000  # 5 MB
        answer = _answer(
            large, b"Content-Type: application/json", b"content-length: %d" % len(large)
        )
        pieces = [answer[:7], answer[7:40], answer[40:100_000], answer[100_000:]]
        (status, body), _ = _post(pieces)
        self.assertEqual(status, 200)
        self.assertEqual(body, large)

    def test_other_statuses_are_returned_with_their_body(self):
        (status, body), _ = _post([b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 3\r\n\r\nno!"])
        self.assertEqual((status, body), (401, b"no!"))

    def test_what_the_tool_server_never_sends_is_a_protocol_error(self):
        cases = {
            "no Content-Length": _answer(b"{}"),
            "chunked": _answer(b"2\r\n{}\r\n0\r\n\r\n", b"Transfer-Encoding: chunked"),
            "closed early": _answer(b"{}", b"Content-Length: 10"),
            "too long": _answer(b"{}{}", b"Content-Length: 2"),
            "not HTTP": b"SSH-2.0-OpenSSH\r\n\r\n",
            "bad length": _answer(b"{}", b"Content-Length: -2"),
            "two lengths": _answer(b"{}", b"Content-Length: 2", b"Content-Length: 3"),
            "a header without a colon": _answer(b"{}", b"Content-Length: 2", b"garbage"),
            "no end of head": b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n",
            "an endless head": b"HTTP/1.1 200 OK\r\n" + b"X: " + b"y" * 70_000,
        }
        for name, answer in cases.items():
            with self.subTest(name):
                with self.assertRaises(tool_http.ProtocolError):
                    _post([answer])

    def test_the_control_a_well_formed_answer_of_each_shape_is_read(self):
        for answer in (_answer(b"{}", b"Content-Length: 2"), _answer(b"", b"Content-Length: 0")):
            with self.subTest(answer):
                (status, _), _ = _post([answer])
                self.assertEqual(status, 200)

    def test_a_server_that_never_answers_times_out(self):
        directory = tempfile.TemporaryDirectory()
        path = os.path.join(directory.name, "tools.sock")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(path)
        listener.listen(1)
        try:
            with self.assertRaises(socket.timeout):
                tool_http.post(path, "/run", "token", b"{}", 0.2)
        finally:
            listener.close()
            directory.cleanup()


if __name__ == "__main__":
    unittest.main()
