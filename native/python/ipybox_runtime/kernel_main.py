"""Entry point of every ipybox kernel.

The native process starts ``python -c <bootstrap> -f <connection file>`` with an explicit
environment; the bootstrap takes the current directory (the workspace) off ``sys.path`` and
calls ``main``. This module makes the process fit for an agent's use (no colour codes,
inline plots, no history database in the user's home, the workspace importable whatever the
current directory becomes) and then hands over to ipykernel.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from typing import Any, Callable

_COLOUR_VARIABLES = ("CLICOLOR", "CLICOLOR_FORCE", "FORCE_COLOR")


def prepare_environment() -> None:
    for name in _COLOUR_VARIABLES:
        os.environ.pop(name, None)
    os.environ["TERM"] = "dumb"
    os.environ["NO_COLOR"] = "1"
    os.environ.setdefault("MPLBACKEND", "module://matplotlib_inline.backend_inline")
    os.environ.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")


def _prepare_import_path() -> None:
    # The workspace stays importable (mcptools, gentools, ...) even after os.chdir in a cell.
    workspace = os.environ.get("IPYBOX_WORKSPACE")
    if workspace and workspace not in sys.path:
        sys.path.insert(0, workspace)
    # gentools.<category>.<name> from the project's gentools/ and every user-level root.
    from ipybox_runtime import library

    library.install()


LIFELINE_VARIABLE = "IPYBOX_LIFELINE"


def _exit_with_parent(watch_parent: bool = True) -> None:
    # A kernel must not outlive the ipybox process that started it, even when that process is
    # killed. ipykernel's own poller only notices a parent of pid 1, which misses subreapers.
    # ipybox holds the only write end of our stdin: end-of-file there means it is gone, which
    # works through a sandbox wrapper too (there our parent is the wrapper, not ipybox).
    if os.environ.pop(LIFELINE_VARIABLE, None) == "stdin":
        lifeline = os.dup(0)  # not inherited by the processes the user's code starts
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)  # which read /dev/null, as before
        os.close(null)

        def watch_lifeline() -> None:
            while os.read(lifeline, 4096):
                pass
            os._exit(1)

        threading.Thread(target=watch_lifeline, name="ipybox-lifeline", daemon=True).start()

    if not watch_parent:  # a kernel forked by the template: the template is no lifeline
        return
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(0.5)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="ipybox-parent-watch", daemon=True).start()


SHELL_APPROVAL_VARIABLE = "IPYBOX_SHELL_APPROVAL"
SHELL_ESCAPE_VARIABLE = "IPYBOX_SHELL_ESCAPE"
RESTORE_CWD_VARIABLE = "IPYBOX_RESTORE_CWD"


def _kernel_arguments(argv: list[str]) -> list[str]:
    arguments = [
        *argv,
        "--InteractiveShell.colors=NoColor",
        "--HistoryManager.hist_file=:memory:",
        "--IPKernelApp.quiet=True",
    ]
    extensions = ["ipybox_runtime.kernel_output", "ipybox_runtime.short_traceback"]
    if os.environ.get(SHELL_APPROVAL_VARIABLE) == "1":
        extensions.append("ipybox_runtime.shell_approval")
        if os.environ.get(SHELL_ESCAPE_VARIABLE) == "1":  # wraps what shell_approval installed
            extensions.append("ipybox_runtime.shell_escape")
    if os.environ.get(RESTORE_CWD_VARIABLE) == "1":
        extensions.append("ipybox_runtime.working_directory")
    if os.environ.get("IPYBOX_LIBRARY_SAVE") == "host":  # set by the host under --sandbox
        extensions.append("ipybox_runtime.sandbox_errors")
    arguments.extend(f"--IPKernelApp.extensions={name}" for name in extensions)
    return [*arguments, *_workspace_off_the_path()]


def _workspace_off_the_path() -> list[str]:
    # The kernel starts in the workspace, which kernel code writes: a planted logging.py or
    # json.py must not replace the modules ipykernel imports while it starts. The native side
    # starts us with `-c`, whose '' entry (the current directory) it removes first; IPython
    # would add it back (InteractiveShellApp.init_path) unless told not to.
    from IPython import version_info

    return ["--InteractiveShellApp.ignore_cwd=True"] if version_info >= (8,) else []


# The kernel template parses the command line its kernels will have once, before it forks them
# (traitlets builds a parser over every configurable class: about a sixth of a kernel's start).
# Only the connection file differs from kernel to kernel; it stands in as this placeholder.
CONNECTION_PLACEHOLDER = "ipybox-connection-file-of-the-forked-kernel"
_parsed: tuple[list[str], Any] | None = None


def parse_ahead() -> None:
    """Creates the kernel application and parses a forked kernel's command line (template)."""
    global _parsed
    from ipykernel.kernelapp import IPKernelApp

    arguments = _kernel_arguments(["-f", CONNECTION_PLACEHOLDER])
    try:
        app = IPKernelApp.instance()
        app.parse_command_line(arguments)
    except Exception:  # noqa: BLE001 - a kernel then parses its own, as a cold one does
        IPKernelApp.clear_instance()
        return
    _parsed = (arguments, app)


def _application(arguments: list[str]) -> Any:
    """The application to initialize with `arguments`: parsed ahead when they are the ones the
    template parsed (but for the connection file), else a fresh one that parses them itself."""
    from ipykernel.kernelapp import IPKernelApp
    from traitlets.config import Config

    if _parsed is not None:
        expected, app = _parsed
        at = arguments.index("-f") + 1 if "-f" in arguments[:-1] else -1
        if at > 0 and [*arguments[:at], CONNECTION_PLACEHOLDER, *arguments[at + 1 :]] == expected:
            app.update_config(Config({"IPKernelApp": {"connection_file": arguments[at]}}))
            app.argv = list(arguments)
            app.parse_command_line = lambda argv=None: None  # parsed ahead, as above
            return app
        IPKernelApp.clear_instance()
    return IPKernelApp.instance()


def main(
    argv: list[str] | None = None,
    watch_parent: bool = True,
    before_start: Callable[[Any], None] | None = None,
    configure: Callable[[Any], None] | None = None,
) -> None:
    """Starts the kernel. `configure(app)` runs before the application is initialized (a
    forked kernel's connection, forked_kernel.use_connection); `before_start(app)` once it
    is, before it serves (and so before any code of the user's runs)."""
    prepare_environment()
    _exit_with_parent(watch_parent)
    from ipybox_runtime import kernel_output

    kernel_output.install()

    arguments = _kernel_arguments(sys.argv[1:] if argv is None else argv)
    app = _application(arguments)
    if configure is not None:
        configure(app)
    app.initialize(arguments)
    # Only now, with ipykernel started and before any user code: the workspace (and the current
    # directory, as IPython gives it) become importable.
    _prepare_import_path()
    if "" not in sys.path:
        sys.path.insert(1, "")
    if before_start is not None:
        before_start(app)
    app.start()


if __name__ == "__main__":
    main()
