#!/usr/bin/env python3
"""Keeps the marketplace's, plugins' and server.json's versions equal to the project's version.

The one source of truth is ``project(ipybox VERSION x.y.z)`` in CMakeLists.txt: the binary
reports it (``ipybox --version``), the launchers compare it with their plugin's version, and
docker-build.sh tags the image with it. Claude Code only picks up a plugin update when the
version in its manifest changes, so every release bumps all of them together:

    plugins/sync-version.py           write the project version into every manifest
    plugins/sync-version.py --check   only report manifests that disagree (exit 1 if any)

The plugins that run the native binary also carry ``release.txt``: the release URL their launcher
fetches the portable tarball from and the SHA-256 it must have. ``release.sh`` passes the
checksums it wrote (``--release-sums dist/SHA256SUMS``, and ``--release-url URL`` to move the
releases); ``--check`` also reports release files that differ from each other or list checksums
for another version than the project's. The Linux (``ipybox-<version>-linux-<arch>.tar.gz``) and
macOS (``ipybox-<version>-macos-<arch>.tar.gz``) tarballs in the sums are listed: the macOS ones
come from the release workflow's SHA256SUMS on GitHub, as no Mac runs release.sh here.
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
        ROOT / "server.json",  # the MCP Registry's entry: its own and its PyPI package's version
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
    for entry in document.get("packages", []):
        found.append((f"packages[{entry.get('identifier')}].version", entry.get("version")))
    return found


def release_files() -> List[Path]:
    return sorted(ROOT.glob("plugins/*/release.txt"))


def release_text(old: str, version: str, sums: Path | None, url: str | None) -> str:
    """release.txt with its comment kept, the url replaced if given, the checksums of ``sums``."""
    comments = [line for line in old.splitlines() if line.startswith("#")]
    entries = [
        line.split() for line in old.splitlines() if line.strip() and not line.startswith("#")
    ]
    old_url = next((entry[1] for entry in entries if entry[0] == "url" and len(entry) > 1), None)
    lines = list(comments)
    if url or old_url:
        lines.append(f"url {url or old_url}")
    if sums is None:
        lines.extend(" ".join(entry) for entry in entries if entry[0] == "sha256")
    else:
        for line in sums.read_text(encoding="utf-8").splitlines():
            digest, name = line.split(maxsplit=1)
            name = name.lstrip("*")
            if name.startswith(
                (f"ipybox-{version}-linux-", f"ipybox-{version}-macos-")
            ) and name.endswith(".tar.gz"):
                lines.append(f"sha256 {name} {digest}")
    return "\n".join(lines) + "\n"


def release_problems(version: str) -> List[str]:
    files = release_files()
    texts = {path: path.read_text(encoding="utf-8") for path in files}
    problems = []
    if len(set(texts.values())) > 1:
        problems.append("the plugins' release.txt files differ: " + ", ".join(map(str, files)))
    for path, text in texts.items():
        for line in text.splitlines():
            fields = line.split()
            if fields[:1] == ["sha256"] and not fields[1].startswith(f"ipybox-{version}-"):
                problems.append(
                    f"{path.relative_to(ROOT)}: {fields[1]} is not of version {version}"
                )
    return problems


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="report disagreements, change nothing")
    parser.add_argument(
        "--release-sums", type=Path, help="SHA256SUMS of a release: its tarballs go to release.txt"
    )
    parser.add_argument("--release-url", help="base URL of the releases, for release.txt")
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
        wrong.extend(release_problems(version))
        for line in wrong:
            print(f"sync-version: {line}", file=sys.stderr)
        if wrong:
            print("sync-version: run plugins/sync-version.py to fix", file=sys.stderr)
        return 1 if wrong else 0
    for path in release_files():
        old = path.read_text(encoding="utf-8")
        path.write_text(
            release_text(old, version, args.release_sums, args.release_url), encoding="utf-8"
        )
    print(f"sync-version: every manifest now says {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
