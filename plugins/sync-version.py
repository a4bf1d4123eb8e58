#!/usr/bin/env python3
"""Keeps the marketplace's and plugins' versions equal to the project's version.

The one source of truth is ``project(ipybox VERSION x.y.z)`` in CMakeLists.txt: the binary
reports it (``ipybox --version``), the launchers compare it with their plugin's version, and
docker-build.sh tags the image with it. Claude Code only picks up a plugin update when the
version in its manifest changes, so every release bumps all of them together:

    plugins/sync-version.py           write the project version into every manifest
    plugins/sync-version.py --check   only report manifests that disagree (exit 1 if any)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import List, Tuple

ROOT = Path(__file__).resolve().parent.parent
VERSION_KEY = re.compile(r'("version"\s*:\s*")([^"]*)(")')


def project_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(\s*ipybox\s+VERSION\s+([0-9][0-9A-Za-z.+-]*)", text)
    if not match:
        raise SystemExit("sync-version: no `project(ipybox VERSION ...)` in CMakeLists.txt")
    return match.group(1)


def manifests() -> List[Path]:
    return [
        ROOT / ".claude-plugin" / "marketplace.json",
        *sorted(ROOT.glob("plugins/*/.claude-plugin/plugin.json")),
    ]


def versions_in(path: Path) -> List[Tuple[str, str]]:
    """(where, version) for every version a manifest declares."""
    document = json.loads(path.read_text(encoding="utf-8"))
    found = []
    if "version" in document:
        found.append(("version", document["version"]))
    if "version" in document.get("metadata", {}):
        found.append(("metadata.version", document["metadata"]["version"]))
    for entry in document.get("plugins", []):
        found.append((f"plugins[{entry.get('name')}].version", entry.get("version")))
    return found


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="report disagreements, change nothing")
    args = parser.parse_args()
    version = project_version()
    wrong = []
    for path in manifests():
        relative = path.relative_to(ROOT)
        declared = versions_in(path)
        if not declared:
            wrong.append(f"{relative}: declares no version")
        wrong.extend(
            f"{relative}: {where} is {value!r}, the project is {version!r}"
            for where, value in declared
            if value != version
        )
        if not args.check:
            text = path.read_text(encoding="utf-8")
            path.write_text(
                VERSION_KEY.sub(lambda m: m.group(1) + version + m.group(3), text), encoding="utf-8"
            )
    if args.check:
        for line in wrong:
            print(f"sync-version: {line}", file=sys.stderr)
        if wrong:
            print("sync-version: run plugins/sync-version.py to fix", file=sys.stderr)
        return 1 if wrong else 0
    print(f"sync-version: every manifest now says {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
