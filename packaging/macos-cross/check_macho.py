#!/usr/bin/env python3
"""Checks that a file is a macOS executable for one CPU and imports nothing Linux-only.

    check_macho.py --arch aarch64|x86_64 FILE

Read from the file's own bytes (no Apple tool runs on Linux): the 64-bit Mach-O header (magic
0xfeedfacf, the CPU type, MH_EXECUTE), the load commands (LC_BUILD_VERSION names macOS, every
LC_LOAD_DYLIB is a system library) and the symbol table (LC_SYMTAB): no undefined symbol is one of
the Linux-only calls below. The linker already refuses what libSystem lacks; this also catches a
link that let undefined symbols through (-undefined dynamic_lookup) or a weak import.
Exit status 0 when every check passes, 1 otherwise; each finding is printed.
"""

import argparse
import re
import struct
import sys

MH_MAGIC_64 = 0xFEEDFACF
MH_EXECUTE = 0x2
CPU_TYPES = {"aarch64": 0x0100000C, "x86_64": 0x01000007}
CPU_NAMES = {value: key for key, value in CPU_TYPES.items()}

LC_REQ_DYLD = 0x80000000
LC_SYMTAB = 0x2
LC_LOAD_DYLIB = 0xC
LC_LOAD_WEAK_DYLIB = 0x18 | LC_REQ_DYLD
LC_REEXPORT_DYLIB = 0x1F | LC_REQ_DYLD
LC_BUILD_VERSION = 0x32
PLATFORM_MACOS = 1

N_STAB = 0xE0
N_TYPE = 0x0E
N_UNDF = 0x0
N_EXT = 0x01

# C symbols carry a leading underscore in Mach-O. A name matches when it is one of these or starts
# with one that ends in '_' (a family such as epoll_*).
LINUX_ONLY = [
    "epoll_",
    "pidfd_",
    "inotify_",
    "signalfd",
    "eventfd",
    "eventfd_read",
    "eventfd_write",
    "prctl",
    "close_range",
    "memfd_create",
    "sched_setaffinity",
    "sched_getaffinity",
    "ioprio_",
    "unshare",
    "setns",
    "clone",
    "clone3",
    "pivot_root",
    "prlimit",
    "prlimit64",
    "accept4",
    "pipe2",
    "dup3",
    "getrandom",
    "statx",
    "openat2",
    "renameat2",
    "copy_file_range",
    "timerfd_create",
    "timerfd_settime",
    "splice",
    "tee",
    "vmsplice",
    "fanotify_",
]


def linux_only(name):
    if not name.startswith("_"):
        return False
    bare = name[1:]
    for entry in LINUX_ONLY:
        if entry.endswith("_") and bare.startswith(entry):
            return True
        if bare == entry:
            return True
    return False


def c_string(data, offset):
    end = data.index(b"\0", offset)
    return data[offset:end].decode("utf-8", "replace")


def version_text(packed):
    return f"{packed >> 16}.{(packed >> 8) & 0xFF}.{packed & 0xFF}"


def check(path, arch):
    """Returns (facts, problems): lines to print."""
    with open(path, "rb") as file:
        data = file.read()
    facts, problems = [], []
    if len(data) < 32:
        return facts, [f"{path}: too short for a Mach-O header ({len(data)} bytes)"]
    magic, cputype, _subtype, filetype, ncmds, _sizeofcmds, _flags = struct.unpack_from(
        "<IiiIIII", data, 0
    )
    if magic != MH_MAGIC_64:
        return facts, [f"{path}: magic {magic:#010x}, not a 64-bit Mach-O ({MH_MAGIC_64:#x})"]
    cpu = CPU_NAMES.get(cputype, f"unknown {cputype:#010x}")
    facts.append(f"CPU type {cputype:#010x} ({cpu})")
    if cputype != CPU_TYPES[arch]:
        problems.append(
            f"CPU type {cputype:#010x} ({cpu}), expected {CPU_TYPES[arch]:#010x} ({arch})"
        )
    if filetype != MH_EXECUTE:
        problems.append(f"file type {filetype}, expected MH_EXECUTE ({MH_EXECUTE})")

    symtab = None
    platform_seen = False
    dylibs = []
    offset = 32  # mach_header_64
    for _ in range(ncmds):
        cmd, cmdsize = struct.unpack_from("<II", data, offset)
        if cmd == LC_SYMTAB:
            symtab = struct.unpack_from("<IIII", data, offset + 8)
        elif cmd in (LC_LOAD_DYLIB, LC_LOAD_WEAK_DYLIB, LC_REEXPORT_DYLIB):
            (name_offset,) = struct.unpack_from("<I", data, offset + 8)
            dylibs.append(c_string(data, offset + name_offset))
        elif cmd == LC_BUILD_VERSION:
            platform, minos, sdk = struct.unpack_from("<III", data, offset + 8)
            platform_seen = True
            facts.append(f"platform {platform}, minimum macOS {version_text(minos)}")
            if platform != PLATFORM_MACOS:
                problems.append(f"LC_BUILD_VERSION platform {platform}, expected macOS (1)")
        offset += cmdsize
    if not platform_seen:
        problems.append("no LC_BUILD_VERSION load command")
    facts.append("libraries: " + ", ".join(dylibs))
    for dylib in dylibs:
        if not re.match(r"^/(usr/lib|System/Library)/", dylib):
            problems.append(f"links {dylib}, which is no macOS system library")

    if symtab is None:
        problems.append("no LC_SYMTAB load command")
        return facts, problems
    symoff, nsyms, stroff, _strsize = symtab
    undefined = []
    for index in range(nsyms):
        n_strx, n_type, _n_sect, _n_desc, _n_value = struct.unpack_from(
            "<IBBhQ", data, symoff + 16 * index
        )
        if n_type & N_STAB:
            continue
        if (n_type & N_TYPE) == N_UNDF and n_type & N_EXT:
            undefined.append(c_string(data, stroff + n_strx))
    facts.append(f"{nsyms} symbols, {len(undefined)} undefined (imported)")
    for name in sorted(undefined):
        if linux_only(name):
            problems.append(f"imports the Linux-only {name}")
    return facts, problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", required=True, choices=sorted(CPU_TYPES))
    parser.add_argument("file")
    arguments = parser.parse_args()
    facts, problems = check(arguments.file, arguments.arch)
    for fact in facts:
        print(f"{arguments.file}: {fact}")
    for problem in problems:
        print(f"{arguments.file}: FAIL: {problem}")
    if problems:
        return 1
    print(f"{arguments.file}: a Mach-O executable for {arguments.arch}-macos, no Linux-only import")
    return 0


if __name__ == "__main__":
    sys.exit(main())
