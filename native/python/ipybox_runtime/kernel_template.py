"""The kernel template: a process that has imported what every kernel imports, and forks kernels.

The native side starts ``python -c <bootstrap>`` exactly as it starts a kernel (same interpreter,
environment, working directory, limits, sandbox), except that its standard input is a
``SOCK_SEQPACKET`` socket only the native side holds the other end of: the template's one
channel. The template imports ipykernel, IPython, this runtime and the usual heavy modules, then
waits. It opens no socket of its own, starts no thread and never runs user code.

Messages from the native side are JSON objects, with descriptors passed alongside
(``SCM_RIGHTS``):

* ``{"op": "fork", "id": N, "argv": [...], "cmdline": [...], "cwd": ..., "env": {...},
  "limits": {...}}`` with the descriptors ``[handshake, stdin, output, *cgroup_procs]``
  (``cmdline``: the command line a cold start would have run, for ``/proc/<pid>/cmdline``;
  optional ``"connection"``: the kernel's connection info, key included, used instead of a
  connection file; optional ``"dumpable": false``: the kernel stays undumpable, see
  ``set_dumpable``).
  The template answers ``{"id": N, "pid": P}`` (P in its own PID namespace) and the child
  becomes a fresh kernel (see ``_become_kernel``); or ``{"id": N, "error": ...}``; or, without
  forking, ``{"id": N, "unsuitable": ...}`` when an entry of the kernel's PYTHONPATH that is not
  the template's holds a top-level module the template imported (the child would keep the
  template's): that kernel starts cold, and the template serves the next request.
  A template may serve kernels whose PYTHONPATH has entries its own lacks (the workspaces of
  several sessions): each child puts the entries of its own PYTHONPATH where the template's were
  on ``sys.path`` (``forked_kernel.use_python_path``), as a kernel started cold with it has them.
* ``{"op": "reap", "pid": P}``: the native side has read the exit status of the child P from
  ``/proc``; the template may now collect the zombie. Children are never reaped before: their
  status stays readable, and their PID cannot be reused while the native side watches it.

End of file on the channel (the native side let go, or died) ends the template. Its first
message says it is ready, with the folders of ``sys.path`` and the user site and their state
(inode and modification time, or null when missing): once one of them changes (a package
installed or removed, a folder of the path made), the native side stops forking from this
template, whose imports are then out of date.
"""

from __future__ import annotations

import array
import gc
import json
import os
import socket
import sys
from typing import Any

from ipybox_runtime import forked_kernel

# Imported before the first fork, in this order; each one is optional but the first three.
PRELOAD = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "ipybox_runtime.kernel_main",
    "ipybox_runtime.kernel_output",
    "ipybox_runtime.library",
    "ipybox_runtime.tool_client",
    "ipybox_runtime.models",
    "pydantic",
    "numpy",
    "numpy.random",
    # What pyplot imports, but neither pyplot nor the inline backend: importing those hooks them
    # into the kernel's shell (post-execute figure flush), which only exists in the child.
    "matplotlib",
    "matplotlib.figure",
    "matplotlib.font_manager",
    "matplotlib.backends.backend_agg",
)
REQUIRED = 3
MAX_MESSAGE = 1 << 20
MAX_DESCRIPTORS = 16


def _send(channel: socket.socket, message: dict[str, Any]) -> None:
    channel.send(json.dumps(message).encode())


def _why_not_forkable() -> str:
    if not hasattr(os, "fork") or not hasattr(socket, "CMSG_SPACE"):
        return "this Python has no os.fork or no descriptor passing"
    threads = len(os.listdir("/proc/self/task")) if os.path.isdir("/proc/self/task") else 1
    if threads != 1:
        return f"the template runs {threads} threads after its imports"
    return ""


def _watched_paths() -> dict[str, list[int] | None]:
    import site

    paths = [p for p in sys.path if p]
    try:
        paths.append(site.getusersitepackages())
    except Exception:  # noqa: BLE001 - a Python without a user site
        pass
    return {path: _stamp(path) for path in paths}


def _stamp(path: str) -> list[int] | None:
    try:
        info = os.stat(path)
    except OSError:
        return None
    return [info.st_ino, info.st_mtime_ns]


def _preload() -> str:
    from ipybox_runtime import kernel_main

    kernel_main.prepare_environment()
    forced = [name for name in forked_kernel.BLAS_THREAD_VARIABLES if name not in os.environ]
    for name in forced:
        os.environ[name] = "1"
    for index, name in enumerate(PRELOAD):
        try:
            __import__(name)
        except Exception as error:  # noqa: BLE001 - an optional module may fail in any way
            if index < REQUIRED:
                return f"cannot import {name}: {error}"
    for name in forced:
        del os.environ[name]
    kernel_main.parse_ahead()
    _warm_caches()
    # What the imports made stays put: the collector of a child never walks (and so never
    # copies) the pages it shares with the template and its siblings.
    gc.collect()
    gc.freeze()
    sys.stdout.flush()
    sys.stderr.flush()
    return _why_not_forkable()


def _warm_caches() -> None:
    """Fills the caches every kernel's start would fill the same way, so that its children find
    them full: the machine's addresses (jupyter_client asks `ip addr` in a subprocess, once per
    process) and the patterns argparse compiles when IPython's magics format their help."""
    import argparse

    try:
        from jupyter_client import localinterfaces

        localinterfaces.localhost()
    except Exception:  # noqa: BLE001 - a kernel then asks for them itself, as a cold one does
        pass
    parser = argparse.ArgumentParser(prog="%warm", description="warm", add_help=True)
    parser.add_argument("value", nargs="?", help="a value")
    parser.add_argument("--option", metavar="N", help="an option")
    parser.format_help()


def _receive(channel: socket.socket) -> tuple[dict[str, Any] | None, list[int]]:
    space = socket.CMSG_SPACE(MAX_DESCRIPTORS * array.array("i").itemsize)
    data, ancillary, _, _ = channel.recvmsg(MAX_MESSAGE, space)
    descriptors = array.array("i")
    for level, kind, payload in ancillary:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % descriptors.itemsize
            descriptors.frombytes(payload[:usable])
    for fd in descriptors:
        os.set_inheritable(fd, False)
    if not data:
        return None, list(descriptors)
    return json.loads(data), list(descriptors)


def serve(channel: socket.socket) -> None:
    reason = _preload()
    if reason:
        _send(channel, {"unable": reason})
        return
    _send(channel, {"ready": True, "pid": os.getpid(), "watched": _watched_paths()})
    while True:
        request, descriptors = _receive(channel)
        if request is None:
            return
        op = request.get("op")
        if op == "reap":
            try:
                os.waitpid(int(request["pid"]), os.WNOHANG)
            except ChildProcessError:
                pass
            continue
        if op != "fork":
            continue
        unsuitable = _shadowing(request.get("env", {}).get("PYTHONPATH", ""))
        if unsuitable:
            for fd in descriptors:
                os.close(fd)
            _send(channel, {"id": request.get("id"), "unsuitable": unsuitable})
            continue
        sys.stdout.flush()
        sys.stderr.flush()
        try:
            pid = os.fork()
        except OSError as error:
            for fd in descriptors:
                os.close(fd)
            _send(channel, {"id": request.get("id"), "error": f"fork: {error}"})
            continue
        if pid == 0:
            _become_kernel(channel, request, descriptors)
        for fd in descriptors:
            os.close(fd)
        _send(channel, {"id": request.get("id"), "pid": pid})


def _shadowing(kernel_path: str) -> str:
    """Why a kernel with this PYTHONPATH must not be forked from here: an entry the template's
    sys.path lacks holds (as a package, a module, an extension or a distribution's metadata) a
    top-level name the template imported; "" when none does."""
    known = set(sys.path)
    imported = {name.partition(".")[0] for name in list(sys.modules)}
    for entry in forked_kernel.path_entries(kernel_path):
        if entry in known:
            continue
        try:
            names = os.listdir(entry)
        except OSError:
            continue
        for name in names:
            stem = name.partition(".")[0].partition("-")[0]
            if stem in imported:
                return f"{entry} has its own {stem}, which the kernel template imported"
    return ""


def _become_kernel(channel: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    code = 1
    try:
        channel.close()  # the template's channel is never a kernel's
        handshake, stdin, output, *cgroups = fds
        os.setsid()
        joining = forked_kernel.join_groups(cgroups)
        forked_kernel.apply_limits(request.get("limits", {}))
        os.chdir(request["cwd"])
        os.dup2(stdin, 0)
        os.dup2(output, 1)
        os.dup2(output, 2)
        os.close(stdin)
        os.close(output)
        # The native side learns our PID as it sees it (SCM_CREDENTIALS), opens a pidfd, and
        # only then lets us go on: until then the PID cannot name another process.
        with socket.socket(fileno=handshake) as link:
            link.send(json.dumps({"pid": os.getpid()}).encode())
            if link.recv(1) != b"g":
                os._exit(1)
        forked_kernel.set_dumpable(bool(request.get("dumpable", True)))
        environment = request["env"]
        os.environ.clear()
        os.environ.update(environment)
        forked_kernel.use_python_path(_TEMPLATE_PATH, environment.get("PYTHONPATH", ""))
        forked_kernel.retag(environment.get(forked_kernel.TREE_VARIABLE, ""))
        forked_kernel.retitle(request.get("cmdline", []))
        sys.argv = ["-c", *request["argv"]]
        forked_kernel.reseed()
        from ipybox_runtime import kernel_main

        def before_start(app: Any) -> None:
            joining.wait()
            forked_kernel.restore_blas_threads_on_first_cell(app.shell)

        connection = request.get("connection")
        kernel_main.main(
            request["argv"],
            watch_parent=False,
            before_start=before_start,
            configure=(lambda app: forked_kernel.use_connection(app, connection))
            if connection
            else None,
        )
        code = 0
    except SystemExit as exit_request:
        code = exit_request.code if isinstance(exit_request.code, int) else 1
    except BaseException:  # noqa: BLE001 - the child must never return into the template's loop
        import traceback

        traceback.print_exc()
    finally:
        try:
            import atexit

            atexit._run_exitfuncs()
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


# The PYTHONPATH the template started with; its entries are on sys.path for it.
_TEMPLATE_PATH = os.environ.get("PYTHONPATH", "")


def main() -> None:
    forked_kernel.set_dumpable(False)
    # Standard input is the channel; the template itself reads /dev/null there, as a kernel does.
    channel = socket.socket(fileno=os.dup(0))
    os.set_inheritable(channel.fileno(), False)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    with channel:
        serve(channel)
