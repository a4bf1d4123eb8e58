"""What a child of the kernel template does to become a kernel (kernel_template.py forks it).

Before anything else runs in it: its limits, its control groups (joined on a thread of its own
while ipykernel initializes, waited for before the kernel serves), its dumpable flag, its
environment block and command line as /proc shows them, fresh random states. While ipykernel
starts: the connection from the fork request instead of a file (sandboxed sessions), no code of
the IPython profile, and numpy's BLAS threads back before the first cell.
"""

from __future__ import annotations

import os
import sys
from typing import Any

TREE_VARIABLE = "IPYBOX_TREE"
TREE_PLACEHOLDER = "0" * 32  # the native side's tags are 32 hex digits
# Read by OpenBLAS when it loads: with it set, numpy's import starts no thread here; each child
# gets the thread count a cold kernel would have (restore_blas_threads_on_first_cell).
BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS",)

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


def path_entries(python_path: str) -> list[str]:
    """The entries of a PYTHONPATH value as they stand on sys.path: absolute, empty ones out."""
    return [os.path.abspath(entry) for entry in python_path.split(os.pathsep) if entry]


def use_python_path(template_path: str, kernel_path: str) -> None:
    """Puts the entries of the kernel's PYTHONPATH on sys.path where the template's PYTHONPATH
    put its own (right after the script's entry), in order and once each, as a kernel started
    cold with it has them; the template's entries the kernel's lacks leave."""
    old = path_entries(template_path)
    new = path_entries(kernel_path)
    if old == new:
        return
    moved = set(old) | set(new)
    # The block begins where the template's first entry stands; without one, after the script's
    # entry (when the bootstrap left it). An entry of the kernel's that Python also puts further
    # on (a folder of the standard library) stands in the block only: Python keeps the first.
    if old and old[0] in sys.path:
        at = sys.path.index(old[0])
    else:
        at = 1 if sys.path[:1] == [""] else 0
    kept = [entry for entry in sys.path if entry not in moved]
    sys.path[:] = kept[:at] + list(dict.fromkeys(new)) + kept[at:]
    import importlib

    importlib.invalidate_caches()


def apply_limits(limits: dict[str, int]) -> None:
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


def retag(tag: str) -> None:
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


def retitle(command_line: list[str]) -> None:
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


class Joining:
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


def join_groups(descriptors: list[int]) -> Joining:
    return Joining(descriptors)


def restore_blas_threads_on_first_cell(shell: Any) -> None:
    """OpenBLAS was loaded with one thread (kernel_template._preload); a cold kernel has one a CPU.

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


def reseed() -> None:
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


def set_dumpable(dumpable: bool) -> None:
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


def use_connection(app: Any, info: dict[str, Any]) -> None:
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
