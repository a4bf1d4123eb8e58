#!/usr/bin/env python3
"""style.platform: Linux-only facilities appear in native/ only inside Linux implementations.

Issue 39 puts every use of a facility macOS lacks (cgroups, pidfds, close_range, prctl, /proc,
seqpacket sockets, credentials passing, renameat2, openat2, ...) behind one interface per
concern, with a Linux implementation under a `linux/` folder of its module and a POSIX or Darwin
one beside it. This check reads the C++ under native/ (comments left out, strings kept: "/proc/"
is a use) and fails on a use outside a `linux/` folder, unless the file is listed in
platform-pending.txt: the files not moved yet, each with its concern. A listed file with no use
left fails too, so the list only shrinks.

The tests the macOS release job builds (DARWIN_TESTS: the kernel and sandbox integration tests
and tests/support) are read too: there a use must sit under ``#if IPYBOX_TEST_LINUX`` or
``#if IPYBOX_TEST_FORKING`` (tests/CMakeLists.txt), or in a file their CMakeLists.txt builds only
for IPYBOX_PLATFORM linux, or in a ``linux/`` folder.

    python3 tests/style/platform_calls.py [--root DIR] [--list]
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

# Each pattern with what it is; matched against code with its comments removed.
LINUX_ONLY = [
    (r"#\s*include\s*<linux/", "a <linux/...> header"),
    (
        r"#\s*include\s*<sys/(epoll|prctl|syscall|signalfd|inotify|eventfd|sysmacros|"
        r"timerfd|fsuid|vfs|statfs|sysinfo)\.h>",
        "a Linux-only <sys/...> header",
    ),
    (r"\bSYS_[a-z_0-9]+\b", "a raw Linux system call number"),
    (r"\bpidfd\w*\b", "pidfds"),
    (r"\bclose_range\b", "close_range"),
    (r"\bprctl\s*\(|\bPR_[A-Z_]+\b", "prctl"),
    (r"\bSOCK_SEQPACKET\b", "seqpacket sockets (none in Darwin's AF_UNIX)"),
    (r"\bSCM_CREDENTIALS\b|\bSO_PASSCRED\b|\bstruct\s+ucred\b|\bSO_PEERCRED\b", "credentials"),
    (r"\bgetdents64\b|\bdirent64\b", "getdents64"),
    (r"\brenameat2\b|\bRENAME_(NOREPLACE|EXCHANGE)\b", "renameat2"),
    (r"\bopenat2\b|\bRESOLVE_[A-Z_]+\b|\bopen_how\b", "openat2"),
    (r"\bO_PATH\b|\bO_TMPFILE\b|\bAT_EMPTY_PATH\b", "a Linux-only open flag"),
    (r"\bpipe2\s*\(|\bdup3\s*\(|\baccept4\s*\(", "pipe2, dup3 or accept4"),
    (r"\bSOCK_CLOEXEC\b|\bSOCK_NONBLOCK\b", "socket type flags"),
    (r"\bMSG_NOSIGNAL\b", "MSG_NOSIGNAL (Darwin: SO_NOSIGPIPE)"),
    (r"\bMSG_CMSG_CLOEXEC\b", "MSG_CMSG_CLOEXEC"),
    (r"\bgetrandom\s*\(", "getrandom (Darwin: getentropy)"),
    (r"\bst_mtim\b|\bst_atim\b|\bst_ctim\b", "struct stat's Linux field names"),
    (r"\bsched_(get|set)affinity\b|\bcpu_set_t\b|\bioprio\w*", "CPU affinity and I/O priority"),
    (r"\bunshare\s*\(|\bsetns\s*\(|\bCLONE_[A-Z]+\b", "namespaces"),
    (r"\bRLIMIT_(AS|SIGPENDING|RTTIME|RTPRIO|NICE|MSGQUEUE|LOCKS)\b", "a Linux rlimit"),
    (r"\bsigabbrev_np\b|\bsigdescr_np\b", "glibc's signal names"),
    (r"#\s*include\s*<malloc\.h>|\bmallopt\s*\(|\bM_MMAP_THRESHOLD\b", "glibc's allocator"),
    (r"\"/proc/|'/proc/|\"/proc\"|'/proc'", "/proc"),
    (r"/sys/fs/cgroup|cgroup\.(procs|kill|events)|memory\.(max|limit_in_bytes)", "cgroups"),
]
PATTERNS = [(re.compile(pattern), what) for pattern, what in LINUX_ONLY]
SOURCES = (".cpp", ".hpp", ".h", ".cc")


def without_comments(text: str) -> str:
    """The code with // and /* */ comments blanked (strings and characters kept, lines kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def uses(path: Path) -> list[tuple[int, str, str]]:
    code = without_comments(path.read_text(encoding="utf-8", errors="replace"))
    found = []
    for number, line in enumerate(code.splitlines(), 1):
        for pattern, what in PATTERNS:
            match = pattern.search(line)
            if match:
                found.append((number, what, match.group(0)))
    return found


def in_linux_implementation(relative: Path) -> bool:
    return "linux" in relative.parts[:-1]


# The folders of the tests the macOS release job builds (.github/workflows/release.yml).
DARWIN_TESTS = ["tests/integration/kernel", "tests/integration/sandbox", "tests/support"]
DARWIN_TEST_FILES = ["tests/integration/tools/tool_fixture.cpp"]
LINUX_GUARDS = re.compile(r"^\s*#\s*if\s+(IPYBOX_TEST_LINUX|IPYBOX_TEST_FORKING)\b")
LINUX_BRANCH = re.compile(
    r'if\(IPYBOX_PLATFORM STREQUAL "linux"\)(.*?)(?:else\(\)|endif\(\))', re.S
)


def linux_only_sources(folder: Path) -> set[str]:
    """The sources a folder's CMakeLists.txt names only in an ``if(IPYBOX_PLATFORM STREQUAL
    "linux")`` branch."""
    cmake = folder / "CMakeLists.txt"
    if not cmake.is_file():
        return set()
    names: set[str] = set()
    for branch in LINUX_BRANCH.findall(cmake.read_text(encoding="utf-8")):
        names.update(re.findall(r"[\w./-]+\.cpp", branch))
    return names


def unguarded_uses(path: Path) -> list[tuple[int, str, str]]:
    """The uses outside an ``#if IPYBOX_TEST_LINUX`` or ``#if IPYBOX_TEST_FORKING`` block (its
    #else branch counts as outside)."""
    found = []
    guards: list[bool] = []  # one per open #if: whether this branch is Linux-only
    code = without_comments(path.read_text(encoding="utf-8", errors="replace"))
    for number, line in enumerate(code.splitlines(), 1):
        directive = re.match(r"^\s*#\s*(if|ifdef|ifndef|elif|else|endif)\b", line)
        if directive:
            kind = directive.group(1)
            if kind in ("if", "ifdef", "ifndef"):
                guards.append(bool(LINUX_GUARDS.match(line)))
            elif kind in ("elif", "else") and guards:
                guards[-1] = False
            elif kind == "endif" and guards:
                guards.pop()
            continue
        if any(guards):
            continue
        for pattern, what in PATTERNS:
            match = pattern.search(line)
            if match:
                found.append((number, what, match.group(0)))
    return found


def darwin_test_failures(root: Path) -> list[str]:
    paths = [root / name for name in DARWIN_TEST_FILES]
    for folder in DARWIN_TESTS:
        linux_only = linux_only_sources(root / folder)
        for path in sorted((root / folder).rglob("*")):
            if path.suffix in SOURCES and path.name not in linux_only:
                paths.append(path)
    failures = []
    for path in paths:
        if not path.is_file() or in_linux_implementation(path.relative_to(root)):
            continue
        for number, what, text in unguarded_uses(path):
            failures.append(
                f"{path.relative_to(root).as_posix()}:{number}: {what} ({text}) in a test the "
                f"macOS release job builds; put it under #if IPYBOX_TEST_LINUX (or "
                f"IPYBOX_TEST_FORKING), or in a file built for Linux only"
            )
    return failures


def read_pending(path: Path) -> dict[str, str]:
    pending = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            name, _, concern = line.partition(" ")
            pending[name] = concern.strip()
    return pending


def self_test() -> int:
    """The check fails where it must: a use outside linux/, a stale entry; and passes a use inside
    linux/, a use in a comment, and a listed file."""
    import subprocess
    import tempfile

    cases = [
        ({"native/m/src/a.cpp": "int f() { return pidfd_open(1, 0); }"}, "", 1),
        ({"native/m/src/linux/a.cpp": "#include <sys/prctl.h>\nint g = SYS_gettid;"}, "", 0),
        ({"native/m/src/a.cpp": "// close_range and /proc/ in a comment\nint x;"}, "", 0),
        ({"native/m/src/a.cpp": 'auto p = "/proc/self/fd";'}, "native/m/src/a.cpp why", 0),
        ({"native/m/src/a.cpp": "int y;"}, "native/m/src/a.cpp why", 1),
        ({"native/m/include/x.hpp": "send(f, b, n, MSG_NOSIGNAL);"}, "", 1),
        ({"tests/support/a.cpp": 'auto p = "/proc/self/stat";'}, "", 1),
        ({"tests/integration/kernel/t.cpp": "auto c = \"os.listdir('/proc')\";"}, "", 1),
        ({"tests/support/a.cpp": '#if IPYBOX_TEST_LINUX\nauto p = "/proc/1";\n#endif'}, "", 0),
        (
            {"tests/support/a.cpp": '#if IPYBOX_TEST_FORKING\n#else\nauto p = "/proc/1";\n#endif'},
            "",
            1,
        ),
        ({"tests/support/linux/a.cpp": 'auto p = "/proc/1";'}, "", 0),
        (
            {
                "tests/integration/sandbox/s.cpp": 'auto p = "/proc/1";',
                "tests/integration/sandbox/CMakeLists.txt": 'if(IPYBOX_PLATFORM STREQUAL "linux")\n'
                "    set(x s.cpp)\nendif()",
            },
            "",
            0,
        ),
    ]
    failed = 0
    for number, (files, pending, expected) in enumerate(cases, 1):
        with tempfile.TemporaryDirectory() as root:
            for name, text in files.items():
                (Path(root) / name).parent.mkdir(parents=True, exist_ok=True)
                (Path(root) / name).write_text(text + "\n")
            (Path(root) / "pending.txt").write_text(pending + "\n")
            code = subprocess.run(
                [sys.executable, __file__, "--root", root, "--pending", f"{root}/pending.txt"],
                capture_output=True,
            ).returncode
        if code != expected:
            print(f"self-test case {number}: exit {code}, expected {expected}", file=sys.stderr)
            failed += 1
    print(f"style.platform self-test: {len(cases) - failed} of {len(cases)} cases as expected")
    return 1 if failed else 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--root", type=Path, default=HERE.parent.parent)
    parser.add_argument("--pending", type=Path, default=HERE / "platform-pending.txt")
    parser.add_argument("--list", action="store_true", help="print every use outside linux/")
    parser.add_argument("--self-test", action="store_true", help="check the check")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    pending = read_pending(args.pending)
    failures, seen = [], set()
    for path in sorted((args.root / "native").rglob("*")):
        if path.suffix not in SOURCES or not path.is_file():
            continue
        relative = path.relative_to(args.root)
        if in_linux_implementation(relative.relative_to("native")):
            continue
        found = uses(path)
        if not found:
            continue
        name = relative.as_posix()
        if args.list:
            for number, what, text in found:
                print(f"{name}:{number}: {what} ({text})")
        if name in pending:
            seen.add(name)
            continue
        for number, what, text in found:
            failures.append(
                f"{name}:{number}: {what} ({text}) outside a linux/ implementation; put it "
                f"behind the platform layer (issue 39), or list the file in "
                f"{args.pending.name} with its concern"
            )
    failures += darwin_test_failures(args.root)
    for name in sorted(set(pending) - seen):
        failures.append(
            f"{args.pending.name}: {name} has no Linux-only use left (or is gone): take it off"
        )
    for failure in failures:
        print(failure, file=sys.stderr)
    if not failures:
        print(f"style.platform: no Linux-only use outside linux/ but {len(pending)} listed files")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
