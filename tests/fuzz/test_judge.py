"""Regression tests of the fuzz tier's judge (invalid_values.closed_for_inputs), which decides
whether a generated argument set is valid for the generated input models."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from invalid_values import Judge, closed_for_inputs  # noqa: E402

# Seed 1317234161, shrunk: a definition that is an allOf member and an alternative of its own.
SHARED_DEFINITION = {
    "type": "object",
    "properties": {
        "p12": {
            "anyOf": [
                {
                    "allOf": [
                        {"$ref": "#/$defs/quo%22te"},
                        {
                            "type": "object",
                            "properties": {"p4": {"type": "string"}},
                            "additionalProperties": False,
                        },
                    ]
                },
                {"$ref": "#/$defs/quo%22te"},
                {"type": "null"},
            ]
        }
    },
    "$defs": {
        'quo"te': {
            "type": "object",
            "properties": {"children": {"$ref": "#/$defs/quo%22te"}},
        }
    },
}


class ClosedForInputs(unittest.TestCase):
    def test_a_definition_used_alone_is_closed_though_an_all_of_member_too(self) -> None:
        judge = Judge(closed_for_inputs(SHARED_DEFINITION))
        # Valid only through the definition's openness, which the generated model closes.
        self.assertFalse(judge.is_valid({"p12": {"children": {}, "p4": "x"}}))
        # The controls: what either alternative admits closed.
        self.assertTrue(judge.is_valid({"p12": {"p4": "x"}}))
        self.assertTrue(judge.is_valid({"p12": {"children": {"children": {}}}}))
        self.assertTrue(judge.is_valid({"p12": None}))
        self.assertFalse(judge.is_valid({"p12": {"children": {"other": 1}}}))

    def test_the_schema_itself_is_left_as_it_was(self) -> None:
        closed_for_inputs(SHARED_DEFINITION)
        self.assertEqual(
            Judge(SHARED_DEFINITION).is_valid({"p12": {"children": {}, "p4": "x"}}), True
        )


if __name__ == "__main__":
    unittest.main()
