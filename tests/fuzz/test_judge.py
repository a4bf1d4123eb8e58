"""Regression tests of the fuzz tier's judge (invalid_values.closed_for_inputs), which decides
whether a generated argument set is valid for the generated input models."""

from __future__ import annotations

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from invalid_values import Judge, closed_for_inputs, is_valid_input  # noqa: E402

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


# Seed 499467324 (tool 332), shrunk: a oneOf of two objects, the first open as written but closed
# as Params reads it; Params completed an invalid set (a required constant left out) into one
# that is valid in that reading, and the worker judged it with the schema as written.
ONE_OF_OBJECTS = {
    "type": "object",
    "properties": {
        "global_": {"const": "true"},
        "a.b ": {
            "oneOf": [
                {"type": "object", "properties": {"naïve": {"type": "string"}}},
                {
                    "type": "object",
                    "properties": {"_tool_output__": {"type": "number"}},
                    "additionalProperties": True,
                },
            ]
        },
    },
    "required": ["global_", "a.b "],
}


class ClosedForInputs(unittest.TestCase):
    def test_a_completed_set_is_judged_as_valid_sets_are_drawn(self) -> None:
        sent = {"global_": "true", "a.b ": {"_tool_output__": 20, "_tool_output_": True}}
        # As written both alternatives match (the first is open), so oneOf refuses it ...
        self.assertFalse(Judge(ONE_OF_OBJECTS).is_valid(sent))
        # ... read as Params reads it only the second does.
        self.assertTrue(is_valid_input(ONE_OF_OBJECTS, sent))
        self.assertFalse(is_valid_input(ONE_OF_OBJECTS, {"a.b ": sent["a.b "]}))

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
