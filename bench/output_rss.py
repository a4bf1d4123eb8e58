"""Peak RSS of `ipybox run` and `ipybox mcp` for cells that print 50 MB and 500 MB, and for a cell
that displays 300 incompressible PNG images of 1.4 MB each (420 MB of images).

Prints one JSON object, {"run": {"50 MB": MiB, "500 MB": MiB, "300 images": MiB}, "mcp": ...}.
ipybox mcp is driven over stdio with raw JSON-RPC lines (initialize, one execute_ipython_cell,
end of input). The peak is ipybox's own (VmHWM in /proc, sampled until it exits), not its
kernel's: wait4's ru_maxrss would count the reaped kernel too.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import threading
import time


def high_water_mib(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def cell(megabytes: int) -> str:
    return "line = 'x' * 1023\n" f"for i in range({megabytes} * 1024): print(line)\n" "print('END')"


def image_cell(count: int, kilobytes: int) -> str:
    # A valid PNG of random grey pixels: zlib cannot shrink it, so each display is ~kilobytes.
    return (
        "import os, struct, zlib\n"
        "from IPython.display import Image, display\n"
        "def chunk(kind, data):\n"
        "    body = kind + data\n"
        "    return struct.pack('>I', len(data)) + body + struct.pack('>I', zlib.crc32(body))\n"
        f"side = int(({kilobytes} * 1024) ** 0.5)\n"
        "header = struct.pack('>IIBBBBB', side, side, 8, 0, 0, 0, 0)\n"
        f"for i in range({count}):\n"
        "    rows = b''.join(b'\\0' + os.urandom(side) for _ in range(side))\n"
        "    png = (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', header)\n"
        "           + chunk(b'IDAT', zlib.compress(rows, 0)) + chunk(b'IEND', b''))\n"
        "    display(Image(data=png, format='png'))\n"
        "print('END')"
    )


def peak_mib(command: list[str], stdin: bytes | None) -> float:
    process = subprocess.Popen(
        command,
        stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    peak = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, high_water_mib(process.pid))
            time.sleep(0.02)

    sampler = threading.Thread(target=sample)
    sampler.start()
    if stdin is not None:
        # Input stays open until the cell's answer (id 2) is back: end of input stops the server.
        process.stdin.write(stdin)
        process.stdin.flush()
        for line in process.stdout:
            if json.loads(line).get("id") == 2:
                break
        peak = max(peak, high_water_mib(process.pid))
        process.stdin.close()
        process.stdout.read()
    status = process.wait()
    done.set()
    sampler.join()
    if status not in (0, 1):
        raise SystemExit(f"{command[:2]} failed with {status}")
    return peak


def mcp_input(code: str) -> bytes:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "execute_ipython_cell",
                "arguments": {"code": code, "timeout": 600},
            },
        },
    ]
    return "".join(json.dumps(message) + "\n" for message in messages).encode()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--ipybox", required=True)
    parser.add_argument("--sizes", default="50,500")
    parser.add_argument("--images", type=int, default=300, help="0 leaves the image cell out")
    arguments = parser.parse_args()
    report: dict[str, dict[str, float]] = {"run": {}, "mcp": {}}
    cells = {f"{size} MB": cell(int(size)) for size in arguments.sizes.split(",")}
    if arguments.images > 0:
        cells[f"{arguments.images} images"] = image_cell(arguments.images, 1400)
    with tempfile.TemporaryDirectory(prefix="ipybox-rss-") as workspace:
        for label, code in cells.items():
            report["run"][label] = peak_mib(
                [arguments.ipybox, "run", "--workspace", workspace, "-c", code], None
            )
            report["mcp"][label] = peak_mib(
                [arguments.ipybox, "mcp", "--workspace", workspace, "--log-level", "off"],
                mcp_input(code),
            )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
