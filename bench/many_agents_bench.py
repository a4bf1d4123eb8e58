"""Many agents on one machine, each with a kernel of its own: `ipybox mcp --transport http` with
kernels as handles against Jupyter Kernel Gateway (the reference ipybox's own engine), driven in
the same run by clients doing the same work.

Each of N agents makes a kernel, runs M cells cycling `pass`, a 100 KB print and (ipybox only)
a tool call from kernel code through the generated API, then gives the kernel back. Reported:
p50 and p99 per cell kind, kernels made per second, PSS per idle kernel (every process of one,
and ipybox's kernel template they are forked from, summed from /proc/PID/smaps_rollup and divided
by N), the server's RSS, and the processes left
once every client has gone and the TTL has passed.

Both servers are driven by thin clients on tornado: ipybox by stateless MCP 2026-07-28 POSTs (no
SDK in between), the gateway over its REST API and WebSocket channels. Run with the reference's
virtual environment, which holds tornado and jupyter_kernel_gateway (bench/run --many-agents sets
it up):

    python bench/many_agents_bench.py --ipybox build/native/cli/ipybox [--agents 32 --cells 50]

Both run their kernels with this interpreter (the venv's ipykernel). The gateway has no tool
server: its tool-call column is empty. Figures compare the two servers
on this machine in this run; nothing here is asserted, the goals are printed as met or not.
"""

import argparse
import asyncio
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from tornado.websocket import websocket_connect

REPO = Path(__file__).resolve().parent.parent
EVERYTHING = REPO / "tests/node/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
PROTOCOL = "2026-07-28"
BIG_PRINT = "print('x' * 100_000)"
TOOL_CALL = "print(echo.run(echo.Params(message='hi')))"


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def children_of():
    tree = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if fields[0] in ("Z", "X"):
            continue
        tree.setdefault(int(fields[1]), []).append(int(entry))
    return tree


def descendants(pid):
    tree = children_of()
    found, queue = [], list(tree.get(pid, []))
    while queue:
        child = queue.pop()
        found.append(child)
        queue.extend(tree.get(child, []))
    return found


def processes_in(folder):
    """Live processes whose working directory is `folder` or below it (a kernel's is its
    workspace)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{entry}/cwd")
            state = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        if state[state.rfind(")") + 2] in "ZX":
            continue
        if cwd == str(folder) or cwd.startswith(str(folder) + "/"):
            found.append(int(entry))
    return found


def kernel_templates(server_pid):
    """The server's kernel templates: the agents' kernels are forked from one, whose share of the
    pages they have in common counts in their PSS."""
    found = []
    for pid in descendants(server_pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"ipybox_runtime.kernel_template" in command:
            found.append(pid)
    return found


def pss_kib(pids):
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except OSError:
            pass
    return total


def rss_kib(pid):
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


async def wait_for_log(process_log, pattern, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = Path(process_log).read_text(errors="replace")
        match = re.search(pattern, text)
        if match:
            return match
        await asyncio.sleep(0.1)
    raise RuntimeError(f"timed out waiting for {pattern!r} in {process_log}")


async def wait_for_port(port, timeout=30):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            await asyncio.sleep(0.1)
    raise RuntimeError(f"nothing listens on port {port}")


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


class Timings:
    def __init__(self):
        self.cells = {"pass": [], "print 100 KB": [], "tool call": []}

    async def time(self, kind, call):
        start = time.perf_counter()
        await call()
        self.cells[kind].append((time.perf_counter() - start) * 1000)


# ---- ipybox ----------------------------------------------------------------------------------


async def modern_call(client, url, name, arguments):
    """One tools/call as MCP 2026-07-28 has it: a POST carrying its _meta, no session. The
    answer is one JSON body, or an SSE stream when it took more than a second."""
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": PROTOCOL,
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "many-agents", "version": "1"},
            },
        },
    }
    response = await client.fetch(
        url,
        method="POST",
        body=json.dumps(body),
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": PROTOCOL,
            "Mcp-Method": "tools/call",
            "Mcp-Name": name,
        },
        request_timeout=600,
    )
    text = response.body.decode()
    if response.headers.get("Content-Type", "").startswith("text/event-stream"):
        data = [line[5:] for line in text.splitlines() if line.startswith("data:")]
        text = next(item for item in data if '"result"' in item or '"error"' in item)
    message = json.loads(text)
    result = message.get("result")
    if result is None or result.get("isError"):
        raise RuntimeError(f"{name} failed: {message}")
    return result


async def ipybox_agent(url, number, cells, timings, everything_url, made, barrier):
    client = AsyncHTTPClient()
    start = time.perf_counter()
    created = await modern_call(client, url, "create_kernel", {"workspace": f"agents/{number}"})
    made.append(time.perf_counter() - start)
    kernel_id = created["structuredContent"]["kernel_id"]

    async def cell(code):
        await modern_call(
            client, url, "execute_ipython_cell", {"code": code, "kernel_id": kernel_id}
        )

    await modern_call(
        client,
        url,
        "register_mcp_server",
        {
            "server_name": "everything",
            "server_params": {"url": everything_url},
            "kernel_id": kernel_id,
        },
    )
    await cell("from mcptools.everything import echo")
    barrier.set()
    await barrier.all_idle.wait()
    for index in range(cells):
        kind = ("pass", "print 100 KB", "tool call")[index % 3]
        code = {"pass": "pass", "print 100 KB": BIG_PRINT, "tool call": TOOL_CALL}[kind]
        await timings.time(kind, lambda code=code: cell(code))
    await modern_call(client, url, "destroy_kernel", {"kernel_id": kernel_id})


class Barrier:
    """Every agent's kernel idle before anyone measures: PSS is read then."""

    def __init__(self, parties):
        self.parties = parties
        self.count = 0
        self.all_ready = asyncio.Event()
        self.all_idle = asyncio.Event()

    def set(self):
        self.count += 1
        if self.count == self.parties:
            self.all_ready.set()


async def start_ipybox(binary, scratch, name, ttl_seconds, max_kernels):
    """`ipybox mcp --transport http` on a free port; returns the process, URL and workspace."""
    port = free_port()
    log = scratch / f"{name}.log"
    workspace = scratch / name
    workspace.mkdir()
    env = dict(os.environ, XDG_STATE_HOME=str(scratch / f"{name}-state"))
    with open(log, "w") as log_file:
        server = subprocess.Popen(
            [
                str(binary),
                "mcp",
                "--transport",
                "http",
                "--listen",
                f"127.0.0.1:{port}",
                "--workspace",
                str(workspace),
                "--max-kernels",
                str(max_kernels),
                "--kernel-ttl",
                str(ttl_seconds),
                # The gateway's interpreter and ipykernel: the same kernel on both sides.
                "--python",
                sys.executable,
            ],
            stdout=subprocess.DEVNULL,
            stderr=log_file,
            env=env,
        )
    await wait_for_log(log, r"serving MCP over HTTP")
    return server, f"http://127.0.0.1:{port}/mcp", workspace


def stop(server):
    server.send_signal(signal.SIGTERM)
    server.wait(timeout=60)


async def run_ipybox(binary, agents, cells, everything_url, scratch):
    server, url, workspace = await start_ipybox(binary, scratch, "ipybox", 600, agents + 2)
    try:
        agents_folder = workspace / "agents"
        timings, made, barrier = Timings(), [], Barrier(agents)
        start = time.perf_counter()
        tasks = [
            asyncio.create_task(ipybox_agent(url, n, cells, timings, everything_url, made, barrier))
            for n in range(agents)
        ]
        await barrier.all_ready.wait()
        made_per_second = agents / (time.perf_counter() - start)
        await asyncio.sleep(1.5)
        pss = pss_kib(processes_in(agents_folder) + kernel_templates(server.pid)) / agents
        barrier.all_idle.set()
        await asyncio.gather(*tasks)
        server_rss = rss_kib(server.pid)
        left_after_destroy = len(processes_in(agents_folder))
    finally:
        stop(server)
    # A kernel nobody destroys is stopped after the TTL: a server of its own, with 2 s.
    server, url, workspace = await start_ipybox(binary, scratch, "ipybox-ttl", 2, 4)
    try:
        await modern_call(AsyncHTTPClient(), url, "create_kernel", {"workspace": "forgotten"})
        await asyncio.sleep(5)
        left_after_ttl = len(processes_in(workspace / "forgotten"))
    finally:
        stop(server)
    return {
        "cells": timings.cells,
        "made_per_second": made_per_second,
        "pss_per_kernel_kib": pss,
        "server_rss_kib": server_rss,
        "left": left_after_destroy + left_after_ttl,
    }


# ---- Jupyter Kernel Gateway ------------------------------------------------------------------


def jupyter_message(msg_type, content, session):
    return {
        "header": {
            "msg_id": uuid.uuid4().hex,
            "msg_type": msg_type,
            "session": session,
            "username": "bench",
            "version": "5.3",
            "date": "",
        },
        "parent_header": {},
        "metadata": {},
        "content": content,
        "buffers": [],
        "channel": "shell",
    }


async def gateway_execute(socket_, session, code):
    request = jupyter_message(
        "execute_request",
        {
            "code": code,
            "silent": False,
            "store_history": True,
            "user_expressions": {},
            "allow_stdin": False,
            "stop_on_error": True,
        },
        session,
    )
    await socket_.write_message(json.dumps(request))
    replied = idle = False
    while not (replied and idle):
        message = json.loads(await socket_.read_message())
        if message.get("parent_header", {}).get("msg_id") != request["header"]["msg_id"]:
            continue
        kind = message["header"]["msg_type"]
        if kind == "execute_reply":
            replied = True
            if message["content"].get("status") != "ok":
                raise RuntimeError(f"gateway cell failed: {message['content']}")
        elif kind == "status" and message["content"].get("execution_state") == "idle":
            idle = True


async def gateway_agent(base, cells, timings, made, barrier):
    client = AsyncHTTPClient()
    start = time.perf_counter()
    response = await client.fetch(
        f"{base}/api/kernels", method="POST", body="{}", request_timeout=120
    )
    kernel_id = json.loads(response.body)["id"]
    socket_ = await websocket_connect(
        HTTPRequest(f"{base.replace('http', 'ws')}/api/kernels/{kernel_id}/channels"),
        max_message_size=64 * 1024 * 1024,
    )
    session = uuid.uuid4().hex
    await gateway_execute(socket_, session, "pass")  # ready: it answers
    made.append(time.perf_counter() - start)
    barrier.set()
    await barrier.all_idle.wait()
    for index in range(cells):
        kind = ("pass", "print 100 KB", "tool call")[index % 3]
        if kind == "tool call":
            continue  # the gateway has no tool server
        code = "pass" if kind == "pass" else BIG_PRINT
        await timings.time(kind, lambda code=code: gateway_execute(socket_, session, code))
    socket_.close()
    await client.fetch(f"{base}/api/kernels/{kernel_id}", method="DELETE")


async def run_gateway(agents, cells, scratch):
    port = free_port()
    log = scratch / "gateway.log"
    with open(log, "w") as log_file:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "kernel_gateway",
                "--KernelGatewayApp.ip=127.0.0.1",
                f"--KernelGatewayApp.port={port}",
                "--KernelGatewayApp.prespawn_count=0",
            ],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            cwd=scratch,
        )
    try:
        await wait_for_log(log, r"Jupyter Kernel Gateway .* is available at|listening on")
        base = f"http://127.0.0.1:{port}"
        timings, made, barrier = Timings(), [], Barrier(agents)
        start = time.perf_counter()
        tasks = [
            asyncio.create_task(gateway_agent(base, cells, timings, made, barrier))
            for _ in range(agents)
        ]
        await barrier.all_ready.wait()
        made_per_second = agents / (time.perf_counter() - start)
        await asyncio.sleep(1.5)
        pss = pss_kib(descendants(server.pid)) / agents
        barrier.all_idle.set()
        await asyncio.gather(*tasks)
        await asyncio.sleep(2)
        return {
            "cells": timings.cells,
            "made_per_second": made_per_second,
            "pss_per_kernel_kib": pss,
            "server_rss_kib": rss_kib(server.pid),
            "left": len(descendants(server.pid)),
        }
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


# ---- the table -------------------------------------------------------------------------------


def start_everything(scratch):
    port = free_port()
    with open(scratch / "everything.log", "w") as log_file:
        process = subprocess.Popen(
            ["node", str(EVERYTHING), "streamableHttp"],
            stdout=log_file,
            stderr=subprocess.STDOUT,
            env=dict(os.environ, PORT=str(port)),
        )
    return process, port


def row(name, ours, theirs, unit, fmt="{:.1f}"):
    if theirs in (None, 0):
        return f"| {name} | {fmt.format(ours)} {unit} | n/a | n/a |"
    return (
        f"| {name} | {fmt.format(ours)} {unit} | {fmt.format(theirs)} {unit} | "
        f"{ours / theirs:.2f}x |"
    )


def report(ours, theirs, agents, cells):
    lines = [
        f"many agents: {agents} agents x {cells} cells, one kernel each (loopback)",
        "",
        "| measure | ipybox mcp (handles) | Jupyter Kernel Gateway | ratio |",
        "|---|---:|---:|---:|",
    ]
    for kind in ("pass", "print 100 KB", "tool call"):
        for label, share in (("p50", 0.5), ("p99", 0.99)):
            mine = percentile(ours["cells"][kind], share) if ours["cells"][kind] else 0
            gate = percentile(theirs["cells"][kind], share) if theirs["cells"][kind] else None
            lines.append(row(f"`{kind}` {label}", mine, gate, "ms"))
    lines.append(
        row("kernels made per second", ours["made_per_second"], theirs["made_per_second"], "/s")
    )
    lines.append(
        row(
            "PSS per idle kernel",
            ours["pss_per_kernel_kib"] / 1024,
            theirs["pss_per_kernel_kib"] / 1024,
            "MiB",
        )
    )
    lines.append(
        row("server RSS", ours["server_rss_kib"] / 1024, theirs["server_rss_kib"] / 1024, "MiB")
    )
    lines.append(f"| processes left | {ours['left']} | {theirs['left']} | |")
    p99_ours = percentile(ours["cells"]["pass"], 0.99)
    p99_theirs = percentile(theirs["cells"]["pass"], 0.99)
    lines += [
        "",
        f"goal p99 `pass` <= 0.25x the gateway's: {p99_ours / p99_theirs:.2f}x "
        f"{'met' if p99_ours <= 0.25 * p99_theirs else 'NOT met'}",
        f"goal PSS per idle kernel <= 40 MiB: {ours['pss_per_kernel_kib'] / 1024:.1f} MiB "
        f"{'met' if ours['pss_per_kernel_kib'] <= 40 * 1024 else 'NOT met'}",
        f"goal no process left: {ours['left']} {'met' if ours['left'] == 0 else 'NOT met'}",
    ]
    return "\n".join(lines)


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ipybox", required=True)
    parser.add_argument("--agents", type=int, default=32)
    parser.add_argument("--cells", type=int, default=50)
    parser.add_argument("--json", help="also write the raw figures here")
    args = parser.parse_args()
    if not EVERYTHING.exists():
        sys.exit("bench: the npm peers are missing; run: npm install --prefix tests/node")
    # Tornado's client queues past 10 requests at once by default: every agent gets its own.
    AsyncHTTPClient.configure(None, max_clients=4 * args.agents)
    scratch = Path(tempfile.mkdtemp(prefix="ipybox-many-agents-"))
    everything, port = start_everything(scratch)
    everything_url = f"http://127.0.0.1:{port}/mcp"
    try:
        await wait_for_port(port)
        print(f"bench: ipybox, {args.agents} agents...", file=sys.stderr)
        ours = await run_ipybox(
            Path(args.ipybox).resolve(), args.agents, args.cells, everything_url, scratch
        )
        print(f"bench: Jupyter Kernel Gateway, {args.agents} agents...", file=sys.stderr)
        theirs = await run_gateway(args.agents, args.cells, scratch)
    finally:
        everything.terminate()
        everything.wait(timeout=30)
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"ipybox": ours, "gateway": theirs}))
    print(report(ours, theirs, args.agents, args.cells))


if __name__ == "__main__":
    asyncio.run(main())
