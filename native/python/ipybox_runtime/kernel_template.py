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
  ``_set_dumpable``).
  The template answers ``{"id": N, "pid": P}`` (P in its own PID namespace) and the child
  becomes a fresh kernel (see ``_become_kernel``); or ``{"id": N, "error": ...}``.
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
TREE_VARIABLE = "IPYBOX_TREE"
TREE_PLACEHOLDER = "0" * 32  # the native side's tags are 32 hex digits
# Read by OpenBLAS when it loads: with it set, numpy's import starts no thread here; each child
# gets the thread count a cold kernel would have (_restore_blas_threads).
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS",)
MAX_MESSAGE = 1 << 20
# What a kernel's connection info says of its channels (the key and scheme go to its Session).
CHANNEL_FIELDS = (
    "transport",
    "ip",
    "shell_port",
    "iopub_port",
    "stdin_port",
    "control_port",
    "hb_port",
)
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
    forced = [name for name in BLAS_THREAD_VARIABLES if name not in os.environ]
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


def _apply_limits(limits: dict[str, int]) -> None:
    import resource

    names = {
        "address_space": resource.RLIMIT_AS,
        "file_size": resource.RLIMIT_FSIZE,
        "open_files": resource.RLIMIT_NOFILE,
        "processes": resource.RLIMIT_NPROC,
        "cpu_seconds": resource.RLIMIT_CPU,
    }
    for name, value in limits.items():
        resource.setrlimit(names[name], (int(value), int(value)))


def _retag(tag: str) -> None:
    """Writes the kernel's tree tag into the environment block the process started with.

    /proc/<pid>/environ shows that block, not os.environ; without a cgroup, ipybox finds the
    processes of a kernel's tree by the tag there, and a child forked without exec (os.fork,
    multiprocessing) keeps the block. The template started with a placeholder of the same length.
    """
    import ctypes

    with open("/proc/self/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    # Fields 50 and 51 of proc(5) (env_start, env_end); fields[0] is field 3.
    start, end = int(fields[47]), int(fields[48])
    block = ctypes.string_at(start, end - start)
    marker = f"{TREE_VARIABLE}={TREE_PLACEHOLDER}".encode()
    at = block.find(marker + b"\0")
    if at < 0 or len(tag) != len(TREE_PLACEHOLDER) or not tag.isalnum():
        return
    ctypes.memmove(start + at + len(TREE_VARIABLE) + 1, tag.encode(), len(tag))


def _retitle(command_line: list[str]) -> None:
    """Writes the kernel's command line over the template's, as /proc/<pid>/cmdline shows it.

    ps, pgrep and the like then see the kernel a cold start would have run. The template was
    started with room to spare (a padding argument); what is left is filled with NUL bytes.
    """
    import ctypes

    with open("/proc/self/stat", "rb") as stat:
        fields = stat.read().rsplit(b")", 1)[1].split()
    # Fields 48 and 49 of proc(5) (arg_start, arg_end); fields[0] is field 3.
    start, end = int(fields[45]), int(fields[46])
    text = b"\0".join(os.fsencode(argument) for argument in command_line) + b"\0"
    if not command_line or len(text) > end - start:
        return
    ctypes.memmove(start, text + b"\0" * (end - start - len(text)), end - start)


class _Joining:
    """Moves this process into the kernel's control groups on a thread of its own.

    Each move waits for the kernel's grace period that cgroup migration takes (5 to 20 ms on
    cgroup v1, measured), which the kernel's start spends importing nothing and initializing
    ipykernel instead. The kernel waits for the move (`wait`) before it serves, so no code of
    the user's runs outside the groups; a move that fails ends the kernel (fail closed).
    """

    def __init__(self, descriptors: list[int]) -> None:
        import threading

        self._descriptors = descriptors
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="ipybox-join-groups")
        self._thread.start()

    def _run(self) -> None:
        try:
            for fd in self._descriptors:
                os.write(fd, b"0")
        except BaseException as error:  # noqa: BLE001 - reported by wait()
            self._error = error
        finally:
            for fd in self._descriptors:
                os.close(fd)

    def wait(self) -> None:
        self._thread.join()
        if self._error is not None:
            raise RuntimeError(f"cannot join the kernel's control groups: {self._error}")


def _join_groups(descriptors: list[int]) -> _Joining:
    return _Joining(descriptors)


def _restore_blas_threads_on_first_cell(shell: Any) -> None:
    """OpenBLAS was loaded with one thread (see _preload); a cold kernel has one per CPU.

    New OpenBLAS threads spin for their first work for a while (about 70 ms of CPU here): done
    at start, that would slow every kernel's start and the spare's next to it. A cold kernel
    pays it when its code first imports numpy; a forked one, before its first cell runs.
    """

    def restore(*_: Any) -> None:
        shell.events.unregister("pre_run_cell", restore)
        _restore_blas_threads()

    shell.events.register("pre_run_cell", restore)


def _restore_blas_threads() -> None:
    if any(name in os.environ for name in BLAS_THREAD_VARIABLES) or "numpy" not in sys.modules:
        return
    import ctypes

    with open("/proc/self/maps") as maps:
        libraries = {line.split()[-1] for line in maps if "openblas" in line and ".so" in line}
    for path in sorted(libraries):
        try:
            setter = ctypes.CDLL(path).openblas_set_num_threads
        except (OSError, AttributeError):
            continue
        setter(ctypes.c_int(len(os.sched_getaffinity(0))))
        return


def _reseed() -> None:
    # random reseeds itself in a forked child (os.register_at_fork); numpy's global state does
    # not, and tempfile's directory is read again from this kernel's TMPDIR.
    numpy_random = sys.modules.get("numpy.random")
    if numpy_random is not None:
        numpy_random.seed()
    import tempfile

    tempfile.tempdir = None
    matplotlib = sys.modules.get("matplotlib")
    if matplotlib is not None:
        for name in ("get_configdir", "get_cachedir"):
            cached = getattr(matplotlib, name, None)
            if hasattr(cached, "cache_clear"):
                cached.cache_clear()


def _set_dumpable(dumpable: bool) -> None:
    """PR_SET_DUMPABLE: a process that is not dumpable cannot be traced, nor its memory, its
    descriptors or its environment opened through /proc, by another process of the same user
    (short of CAP_SYS_PTRACE). The template is never dumpable: its children run user code as
    the same user. A forked kernel is dumpable again, like a cold one, unless it shares the
    template's sandbox with its siblings (the kernel being retired must not reach into the spare
    that replaces it)."""
    import ctypes

    pr_set_dumpable = 4
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(pr_set_dumpable, int(dumpable), 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_DUMPABLE)")


def _use_connection(app: Any, info: dict[str, Any]) -> None:
    """Configures the kernel application `app` (not yet initialized) from the fork request's
    connection info, not from a file.

    A kernel forked inside the template's sandbox shares its folders with its siblings: a
    connection file would put the key where they can read it, and one planted before the
    kernel reads it would give it ports and a key of a sibling's choosing. So none is read or
    written; the key stays in this process's memory.
    """
    from traitlets.config import Config

    config = Config()
    for name in CHANNEL_FIELDS:
        setattr(config.IPKernelApp, name, info[name])
    config.Session.key = str(info["key"]).encode()
    config.Session.signature_scheme = info.get("signature_scheme", "hmac-sha256")
    app.update_config(config)
    app.init_connection_file = lambda: None  # type: ignore[method-assign]
    app.write_connection_file = lambda: None  # type: ignore[method-assign]
    _skip_profile_code(app)


def _skip_profile_code(app: Any) -> None:
    """Runs no config file and no startup script of the kernel's IPython profile.

    The profile lies in the kernel's own IPYTHONDIR, made empty just before the fork, so a cold
    kernel would find nothing there either; but its siblings can write it (they share the
    sandbox): the kernel being retired could plant code there for the spare that replaces it.
    The system's config and startup folders (read-only in the sandbox) are still read.
    """
    load_config_file = app.load_config_file
    run_startup_files = app._run_startup_files

    def load_config_file_but_the_profiles(*args: Any, **kwargs: Any) -> Any:
        profile = os.path.realpath(app.profile_dir.location)
        app.config_file_paths = [
            path for path in app.config_file_paths if os.path.realpath(path) != profile
        ]
        return load_config_file(*args, **kwargs)

    def run_startup_files_but_the_profiles() -> None:
        # Set around the observer, which would make the folder (traitlets keeps the values in
        # _trait_values): a path under /dev/null holds no file.
        values = app.profile_dir._trait_values
        kept = values["startup_dir"]
        values["startup_dir"] = os.path.join(os.devnull, "startup")
        try:
            run_startup_files()
        finally:
            values["startup_dir"] = kept

    app.load_config_file = load_config_file_but_the_profiles  # type: ignore[method-assign]
    app._run_startup_files = run_startup_files_but_the_profiles  # type: ignore[method-assign]


def _become_kernel(channel: socket.socket, request: dict[str, Any], fds: list[int]) -> None:
    code = 1
    try:
        channel.close()  # the template's channel is never a kernel's
        handshake, stdin, output, *cgroups = fds
        os.setsid()
        joining = _join_groups(cgroups)
        _apply_limits(request.get("limits", {}))
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
        _set_dumpable(bool(request.get("dumpable", True)))
        environment = request["env"]
        os.environ.clear()
        os.environ.update(environment)
        _retag(environment.get(TREE_VARIABLE, ""))
        _retitle(request.get("cmdline", []))
        sys.argv = ["-c", *request["argv"]]
        _reseed()
        from ipybox_runtime import kernel_main

        def before_start(app: Any) -> None:
            joining.wait()
            _restore_blas_threads_on_first_cell(app.shell)

        connection = request.get("connection")
        kernel_main.main(
            request["argv"],
            watch_parent=False,
            before_start=before_start,
            configure=(lambda app: _use_connection(app, connection)) if connection else None,
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


def main() -> None:
    _set_dumpable(False)
    # Standard input is the channel; the template itself reads /dev/null there, as a kernel does.
    channel = socket.socket(fileno=os.dup(0))
    os.set_inheritable(channel.fileno(), False)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    with channel:
        serve(channel)
