"""Shrinking a failing tool schema for the fuzz tier (run_fuzz.py): greedy removal of
properties, alternatives, enum halves and keywords while the same kind of failure persists.
Pure: whether a candidate still fails is the caller's question (``fails``), so that this file
knows nothing of the generator or the interpreters."""

from __future__ import annotations

import copy
import json
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

# Keywords a reduction may drop wherever they appear.
REMOVABLE_KEYWORDS = (
    "pattern",
    "format",
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "multipleOf",
    "default",
    "title",
    "description",
    "additionalProperties",
    "nullable",
    "required",
    "$defs",
)


def reductions(node: Any) -> Iterator[Callable[[Any], Any]]:
    """Edits that make a schema smaller, each a function of a deep copy of `node`'s root."""
    paths: List[List[Any]] = []

    def walk(value: Any, path: List[Any]) -> None:
        if isinstance(value, dict):
            paths.append(path)
            for key, child in value.items():
                walk(child, path + [key])
        elif isinstance(value, list):
            for index, child in enumerate(value):
                walk(child, path + [index])

    walk(node, [])

    def at(root: Any, path: List[Any]) -> Any:
        for key in path:
            root = root[key]
        return root

    def replace(path: List[Any], value_of: Callable[[Any], Any]) -> Callable[[Any], Any]:
        def edit(root: Any) -> Any:
            if not path:
                return value_of(root)
            parent = at(root, path[:-1])
            parent[path[-1]] = value_of(parent[path[-1]])
            return root

        return edit

    for path in paths:
        target = at(node, path)
        for key in ("anyOf", "oneOf", "allOf"):
            for index in range(
                len(target.get(key, []) if isinstance(target.get(key), list) else [])
            ):
                yield replace(path, lambda t, k=key, i=index: t[k][i])
        if isinstance(target.get("items"), dict):
            yield replace(path, lambda t: t["items"])
        for name in list(
            target.get("properties", {}) if isinstance(target.get("properties"), dict) else []
        ):

            def drop(t: Any, n: str = name) -> Any:
                t["properties"].pop(n)
                if isinstance(t.get("required"), list):
                    t["required"] = [r for r in t["required"] if r != n]
                return t

            yield replace(path, drop)
        for keyword in REMOVABLE_KEYWORDS + ("outputSchema",):
            if keyword in target:
                yield replace(path, lambda t, k=keyword: {a: b for a, b in t.items() if a != k})
        if isinstance(target.get("enum"), list) and len(target["enum"]) > 1:
            yield replace(path, lambda t: {**t, "enum": t["enum"][: len(t["enum"]) // 2]})
            yield replace(path, lambda t: {**t, "enum": t["enum"][len(t["enum"]) // 2 :]})


def shrink(
    tool: Dict[str, Any], fails: Callable[[Dict[str, Any]], Optional[str]], detail: str, budget: int
) -> Tuple[Dict[str, Any], str]:
    """The smallest variant of `tool` found within `budget` checks for which ``fails`` still
    gives the failure's detail (None: it passes), and that detail (`detail` is the original's)."""
    details = {json.dumps(tool, sort_keys=True): detail}

    def still_fails(candidate: Dict[str, Any]) -> bool:
        found = fails(candidate)
        if found is not None:
            details[json.dumps(candidate, sort_keys=True)] = found
        return found is not None

    current = tool
    for name in ("description", "title"):
        if name in current and budget > 0:
            budget -= 1
            smaller = {k: v for k, v in current.items() if k != name}
            if still_fails(smaller):
                current = smaller
    progress = True
    while progress and budget > 0:
        progress = False
        for edit in reductions(current):
            if budget <= 0:
                break
            budget -= 1
            try:
                candidate = edit(copy.deepcopy(current))
            except (KeyError, IndexError, TypeError):
                continue
            if isinstance(candidate, dict) and candidate != current and still_fails(candidate):
                current = candidate
                progress = True
                break
    return current, details.get(json.dumps(current, sort_keys=True), "")
