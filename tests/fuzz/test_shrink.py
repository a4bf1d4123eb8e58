"""Tests of the fuzz tier's shrinker (schema_shrink.py), with a stand-in for the generator: a
failure check that says which schemas still fail, so that the minimal case is known."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path
from typing import Any, Dict, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))

from schema_shrink import shrink  # noqa: E402

TOOL = {
    "name": "t",
    "description": "a tool",
    "inputSchema": {
        "type": "object",
        "title": "Inputs",
        "properties": {
            "keep": {"type": "string", "pattern": "^a", "maxLength": 9},
            "noise": {"type": "integer", "minimum": 0},
            "union": {"anyOf": [{"type": "null"}, {"type": "array", "items": {"type": "number"}}]},
            "choice": {"enum": ["a", "b", "c", "d"]},
        },
        "required": ["keep", "noise"],
        "$defs": {"unused": {"type": "boolean"}},
    },
}


def fails_with_pattern(tool: Dict[str, Any]) -> Optional[str]:
    """The stand-in failure: a property `keep` with a pattern; its detail names the pattern."""
    keep = tool.get("inputSchema", {}).get("properties", {}).get("keep", {})
    return f"pattern {keep['pattern']}" if isinstance(keep, dict) and "pattern" in keep else None


class ShrinkTest(unittest.TestCase):
    def test_everything_the_failure_does_not_need_goes(self) -> None:
        # Types stay (a reduction never drops "type"); every removable keyword, other property,
        # alternative, definition and the description go.
        minimal, detail = shrink(TOOL, fails_with_pattern, "original", budget=500)
        self.assertEqual(
            minimal,
            {
                "name": "t",
                "inputSchema": {
                    "type": "object",
                    "properties": {"keep": {"type": "string", "pattern": "^a"}},
                },
            },
        )
        self.assertEqual(detail, "pattern ^a")

    def test_the_budget_bounds_the_checks_and_what_was_found_so_far_is_kept(self) -> None:
        checks = []

        def counted(tool: Dict[str, Any]) -> Optional[str]:
            checks.append(tool)
            return fails_with_pattern(tool)

        minimal, _ = shrink(TOOL, counted, "original", budget=3)
        self.assertLessEqual(len(checks), 3)
        self.assertIsNotNone(fails_with_pattern(minimal))

    def test_a_tool_that_never_fails_again_is_returned_whole(self) -> None:
        minimal, detail = shrink(TOOL, lambda tool: None, "original", budget=50)
        self.assertEqual(minimal, TOOL)
        self.assertEqual(detail, "original")

    def test_the_tool_given_is_not_changed(self) -> None:
        before = repr(TOOL)
        shrink(TOOL, fails_with_pattern, "original", budget=500)
        self.assertEqual(repr(TOOL), before)


if __name__ == "__main__":
    unittest.main()
