"""Peak RSS of `ipybox mcp` itself while kernel code floods it, one flood per session:

  raw IOPub      kernel code sends, on its IOPub socket past the runtime's pacing, 8 stream
                 messages of 64 MiB; or one message of 4,000,000 one-byte frames; or 200
                 display_data messages of 7 MiB (under the size limit: images)
  tool server    40 requests of 8 MiB at once to the tool server (32 of text, 8 of four million
                 zeros: parsed, those are 16 bytes a value or more); or one with arguments nested
                 four million levels deep
  planted files  FIFOs, or links to /dev/zero, as gentools/ and mcptools/ files, then `reset`
                 (which makes ipybox read both folders)

Prints a table (and --json: one object, flood -> {"peak_mib", "outcome"}). The goal is 128 MiB
whatever the kernel sends. The peak is ipybox's own (VmHWM in /proc, sampled until it exits), not
its kernel's. A session that passes --kill-mib is killed and reported as such; one that does not
answer within --timeout is reported as hung (both happen with builds from before the bounds).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import threading
import time

RAW_IOPUB = """
k = get_ipython().kernel
parent = k.get_parent('shell')
text = 'y' * (64 << 20)
for i in range(8):
    k.session.send(k.iopub_socket, 'stream', {'name': 'stdout', 'text': text}, parent=parent)
print('sent')
"""

RAW_IMAGES = """
import base64, os
k = get_ipython().kernel
parent = k.get_parent('shell')
data = {'image/png': base64.b64encode(os.urandom(5 << 20)).decode()}
for i in range(200):
    k.session.send(k.iopub_socket, 'display_data', {'data': data, 'metadata': {}}, parent=parent)
print('sent')
"""

RAW_FRAMES = """
get_ipython().kernel.iopub_socket.send_multipart([b'x'] * 4_000_000)
print('sent')
"""

TOOL_SERVER = """
import collections, os, socket, threading
path, token = os.environ['IPYBOX_TOOL_SOCKET'], os.environ['IPYBOX_TOOL_TOKEN']
size = (8 << 20) - 1024
call = '{"server_name":"none","tool_name":"t","tool_args":'
bodies = BODIES
answers = collections.Counter()
lock = threading.Lock()
def post(body):
    connection = socket.socket(socket.AF_UNIX)
    try:
        connection.connect(path)
        connection.sendall(
            f'POST /run HTTP/1.1\\r\\nHost: x\\r\\nAuthorization: Bearer {token}\\r\\n'
            f'Content-Type: application/json\\r\\nConnection: close\\r\\n'
            f'Content-Length: {len(body)}\\r\\n\\r\\n'.encode() + body)
        answer = b''
        while chunk := connection.recv(65536):
            answer += chunk
        status = answer.split(b' ', 2)[1].decode() if answer else 'closed'
    except OSError as error:
        status = type(error).__name__
    finally:
        connection.close()
    with lock:
        answers[status] += 1
threads = [threading.Thread(target=post, args=(body,)) for body in bodies]
for thread in threads: thread.start()
for thread in threads: thread.join()
print('answers', dict(sorted(answers.items())))
"""
# 32 bodies of 8 MiB of text, 8 of four million zeros (parsed JSON is 16 bytes a value or more).
PARALLEL_BODIES = """(
    [(call + '{"text":"' + 'x' * size + '"}}').encode()] * 32
    + [(call + '{"a":[' + '0,' * (size // 2 - 64) + '0]}}').encode()] * 8
)"""
# Arguments nested four million levels deep.
NESTED_BODIES = (
    """[(call + '{"a":' + '[' * (size // 2 - 64) + ']' * (size // 2 - 64) + '}}').encode()]"""
)

PLANT = """
import os
os.makedirs('mcptools/everything', exist_ok=True)
open('mcptools/everything/echo.py', 'w').write('def run(): pass\\n')
for name in ('shout', 'loud'):
    os.makedirs(f'gentools/text/{name}', exist_ok=True)
    open(f'gentools/text/{name}/api.py', 'w').write('from mcptools.everything import echo\\n')
    PLANT('gentools/text/' + name + '/impl.py')
PLANT('mcptools/everything/planted.py')
print('planted')
"""


def plant(how: str) -> str:
    return PLANT.replace("PLANT(", how + "(")


def status_of(pid: int, field: str) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def request(identifier: int, method: str, params: dict) -> bytes:
    message = {"jsonrpc": "2.0", "id": identifier, "method": method, "params": params}
    return (json.dumps(message) + "\n").encode()


def cell(identifier: int, code: str) -> bytes:
    return request(
        identifier,
        "tools/call",
        {"name": "execute_ipython_cell", "arguments": {"code": code, "timeout": 600}},
    )


def session(ipybox: str, workspace: str, calls: list[bytes], timeout: float, kill_mib: float):
    """Runs `ipybox mcp`, sends initialize and `calls` one after the other, each waiting for its
    answer; returns (peak MiB, the last answer's text or what went wrong)."""
    process = subprocess.Popen(
        [ipybox, "mcp", "--workspace", workspace, "--log-level", "off"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    peak = 0.0
    killed = threading.Event()
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, status_of(process.pid, "VmHWM"))
            if status_of(process.pid, "VmRSS") > kill_mib:
                killed.set()
                process.kill()
                return
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    answers: list[dict] = []

    def converse() -> None:
        initialize = request(
            1,
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        )
        process.stdin.write(initialize)
        process.stdin.flush()
        process.stdout.readline()
        process.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        for call in calls:
            process.stdin.write(call)
            process.stdin.flush()
            line = process.stdout.readline()
            if not line:
                return
            answers.append(json.loads(line))

    talker = threading.Thread(target=converse, daemon=True)
    talker.start()
    talker.join(timeout)
    hung = talker.is_alive()
    peak = max(peak, status_of(process.pid, "VmHWM"))
    if hung or killed.is_set():
        process.kill()
    else:
        process.stdin.close()
    process.wait()
    done.set()
    sampler.join()
    if killed.is_set():
        return peak, f"killed past {kill_mib:.0f} MiB"
    if hung:
        return peak, f"hung (no answer in {timeout:.0f} s)"
    if len(answers) < len(calls):
        return peak, "ipybox died"
    return peak, " | ".join(summary(answer) for answer in answers if "result" in answer)


def summary(answer: dict) -> str:
    """An answer's text in a few words: repeated drop notices counted, the rest cut short."""
    text = " ".join(block.get("text", "") for block in answer["result"].get("content", []))
    notice = "[ipybox] a message from the kernel on iopub was dropped"
    dropped = text.count(notice)
    lines = [line for line in text.splitlines() if line.strip() and notice not in line]
    short = " ".join(" ".join(lines).split())[:70]
    return f"{dropped} dropped with a notice; {short}" if dropped else short


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ipybox", required=True)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--kill-mib", type=float, default=3072)
    parser.add_argument("--json", action="store_true")
    arguments = parser.parse_args()
    reset = request(3, "tools/call", {"name": "reset", "arguments": {}})
    alive = cell(3, "print('alive')")
    floods = {
        "idle (one cell)": [cell(2, "print(1)")],
        "raw IOPub: 8 messages of 64 MiB": [cell(2, RAW_IOPUB), alive],
        "raw IOPub: one of 4,000,000 frames": [cell(2, RAW_FRAMES), alive],
        "raw IOPub: 200 images of 7 MiB": [cell(2, RAW_IMAGES), alive],
        "tool server: 40 bodies of 8 MiB at once": [
            cell(2, TOOL_SERVER.replace("BODIES", PARALLEL_BODIES))
        ],
        "tool server: nested 4,000,000 deep": [
            cell(2, TOOL_SERVER.replace("BODIES", NESTED_BODIES)),
            alive,
        ],
        "FIFO in gentools/ and mcptools/": [cell(2, plant("os.mkfifo")), reset],
        "/dev/zero links in gentools/, mcptools/": [
            cell(2, plant("(lambda path: os.symlink('/dev/zero', path))")),
            reset,
        ],
    }
    report = {}
    for label, calls in floods.items():
        with tempfile.TemporaryDirectory(prefix="ipybox-flood-") as workspace:
            peak, outcome = session(
                arguments.ipybox, workspace, calls, arguments.timeout, arguments.kill_mib
            )
        report[label] = {"peak_mib": round(peak, 1), "outcome": outcome}
    if arguments.json:
        print(json.dumps(report))
        return
    print(f"{'flood':<44} {'peak RSS':>10}  outcome")
    for label, row in report.items():
        print(f"{label:<44} {row['peak_mib']:>6.1f} MiB  {row['outcome']}")


if __name__ == "__main__":
    main()
