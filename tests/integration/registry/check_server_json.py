"""Checks server.json, the MCP Registry's entry for ipybox-native.

    IPYBOX_BIN=<binary> python3 tests/integration/registry/check_server_json.py
        [--published-schema FILE]

1. The registry's published schema, the file at the entry's ``$schema`` URL (run-tests.sh puts
   it in .cache/registry-schema/ from a pinned PyPI wheel that bundles it; see
   packaging/tools.sh): the entry is valid against it, and as a control, a few
   broken copies of the entry are not. Then the official registry's stricter requirements as a
   schema of our own: the name's pattern, a description of at most 100 characters, a package's
   allowed keys, a specific version (no range), the stdio transport, named and positional
   arguments.
2. What the entry says about us: PyPI's ``ipybox-native`` through ``uvx``, the project's
   version, and exactly the flags ``ipybox mcp --help`` lists, after the ``mcp`` subcommand.
3. The PyPI readme carries the ``mcp-name:`` line by which the registry verifies that the
   package is ours.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List

import jsonschema

ROOT = Path(__file__).resolve().parents[3]
RANGE = {"not": {"pattern": r"^[\^~<>=]|\.x$|\*|^latest$"}}
ARGUMENT = {
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"enum": ["named", "positional"]},
        "name": {"type": "string", "pattern": "^-"},
        "description": {"type": "string"},
        "isRequired": {"type": "boolean"},
        "isRepeated": {"type": "boolean"},
        "isSecret": {"type": "boolean"},
        "format": {"enum": ["string", "number", "boolean", "filepath"]},
        "value": {"type": "string"},
        "valueHint": {"type": "string"},
        "default": {"type": "string"},
        "choices": {"type": "array", "items": {"type": "string"}},
    },
    "allOf": [
        {"if": {"properties": {"type": {"const": "named"}}}, "then": {"required": ["name"]}},
        {
            "if": {"properties": {"type": {"const": "positional"}}},
            "then": {"anyOf": [{"required": ["valueHint"]}, {"required": ["value"]}]},
        },
    ],
}
PACKAGE = {
    "type": "object",
    "additionalProperties": False,
    "required": ["registryType", "identifier", "version", "transport"],
    "properties": {
        "registryType": {"type": "string"},
        "registryBaseUrl": {"type": "string", "pattern": "^https://"},
        "identifier": {"type": "string"},
        "version": {"type": "string", "minLength": 1, **RANGE},
        "fileSha256": {"type": "string", "pattern": "^[a-f0-9]{64}$"},
        "runtimeHint": {"type": "string"},
        "transport": {
            "type": "object",
            "required": ["type"],
            "properties": {"type": {"enum": ["stdio", "streamable-http", "sse"]}},
        },
        "runtimeArguments": {"type": "array", "items": ARGUMENT},
        "packageArguments": {"type": "array", "items": ARGUMENT},
        "environmentVariables": {"type": "array"},
    },
}
SERVER = {
    "type": "object",
    "required": ["$schema", "name", "description", "version"],
    "properties": {
        "$schema": {"type": "string", "pattern": r"^https://static\.modelcontextprotocol\.io/"},
        "name": {
            "type": "string",
            "pattern": "^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$",
            "minLength": 3,
            "maxLength": 200,
        },
        "description": {"type": "string", "minLength": 1, "maxLength": 100},
        "version": {"type": "string", "maxLength": 255, **RANGE},
        "packages": {"type": "array", "items": PACKAGE},
    },
}


def project_version() -> str:
    text = (ROOT / "CMakeLists.txt").read_text(encoding="utf-8")
    match = re.search(r"project\(\s*ipybox\s+VERSION\s+([0-9][0-9A-Za-z.+-]*)", text)
    assert match, "no project(ipybox VERSION ...) in CMakeLists.txt"
    return match.group(1)


def mcp_flags() -> List[str]:
    binary = os.environ.get("IPYBOX_BIN")
    if not binary:
        raise SystemExit("FAIL: set IPYBOX_BIN to the ipybox binary")
    help_text = subprocess.run(
        [binary, "mcp", "--help"], capture_output=True, text=True, check=True
    ).stdout
    flags = re.findall(r"^\s+(?:-\w,)?(--[a-z][a-z-]*)", help_text, re.MULTILINE)
    return [flag for flag in flags if flag != "--help"]


PUBLISHED = ROOT / ".cache" / "registry-schema" / "2025-12-11" / "server.schema.json"

# Entries the published schema refuses (each a change to ours): the control that it is applied.
BROKEN = {
    "no description": lambda entry: entry.pop("description"),
    "a name without a namespace": lambda entry: entry.update(name="ipybox"),
    "a package without a transport": lambda entry: entry["packages"][0].pop("transport"),
    "an argument of an unknown type": lambda entry: entry["packages"][0]["packageArguments"][
        0
    ].update(type="flag"),
    "a description of 101 characters": lambda entry: entry.update(description="x" * 101),
}


def published_problems(entry: Dict[str, Any], published: Any) -> List[str]:
    """What the published schema finds wrong with ``entry`` (formats where jsonschema checks them:
    ``uri`` needs a package Debian's jsonschema does without)."""
    validator = jsonschema.Draft7Validator(published, format_checker=jsonschema.FormatChecker())
    return [f"published schema: {error.message}" for error in validator.iter_errors(entry)]


def problems(entry: Dict[str, Any], published: Any) -> List[str]:
    found = published_problems(entry, published)
    if published.get("$id") != entry.get("$schema"):
        found.append(
            f"$schema is {entry.get('$schema')!r}, the schema's $id {published.get('$id')!r}"
        )
    for broken, change in BROKEN.items():
        copy = json.loads(json.dumps(entry))
        change(copy)
        if not published_problems(copy, published):
            found.append(f"the published schema accepted an entry with {broken} (the control)")
    found += [
        f"registry requirements: {error.message}"
        for error in jsonschema.Draft7Validator(SERVER).iter_errors(entry)
    ]
    version = project_version()
    if entry.get("version") != version:
        found.append(f"version {entry.get('version')!r} is not the project's {version!r}")
    packages = entry.get("packages", [])
    if len(packages) != 1:
        return found + ["expected one package"]
    package = packages[0]
    expected = {"registryType": "pypi", "identifier": "ipybox-native", "runtimeHint": "uvx"}
    for key, value in expected.items():
        if package.get(key) != value:
            found.append(f"packages[0].{key} is {package.get(key)!r}, not {value!r}")
    if package.get("version") != version:
        found.append(f"packages[0].version is not the project's {version!r}")
    if package.get("transport") != {"type": "stdio"}:
        found.append("the transport is not stdio")
    arguments = package.get("packageArguments", [])
    if not arguments or arguments[0].get("value") != "mcp" or arguments[0]["type"] != "positional":
        found.append("the first argument is not the positional subcommand 'mcp'")
    listed = [a.get("name") for a in arguments if a.get("type") == "named"]
    flags = mcp_flags()
    for flag in flags:
        if flag not in listed:
            found.append(f"`ipybox mcp {flag}` is missing from packageArguments")
    for name in listed:
        if name not in flags:
            found.append(f"packageArguments lists {name}, which `ipybox mcp` does not take")
    readme = (ROOT / "packaging" / "pypi-readme.md").read_text(encoding="utf-8")
    if f"mcp-name: {entry.get('name')}" not in readme:
        found.append(f"packaging/pypi-readme.md lacks the line 'mcp-name: {entry.get('name')}'")
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--published-schema", type=Path, default=PUBLISHED)
    parser.add_argument("--entry", type=Path, default=ROOT / "server.json")
    args = parser.parse_args()
    if not args.published_schema.is_file():
        raise SystemExit(
            f"FAIL: no published schema at {args.published_schema}: ./run-tests.sh fetches it "
            "(or: source packaging/tools.sh && ensure_registry_schema)"
        )
    published = json.loads(args.published_schema.read_text(encoding="utf-8"))
    found = problems(json.loads(args.entry.read_text(encoding="utf-8")), published)
    for problem in found:
        print(f"FAIL: {problem}", file=sys.stderr)
    if not found:
        print(f"{args.entry.name}: valid")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
