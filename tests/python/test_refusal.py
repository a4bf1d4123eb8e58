"""Generated models refuse what the schema refuses and send valid values exactly (issue 25).

The golden package ``refusal`` has one property per keyword a generated model checks; every
invalid value below is confirmed invalid by jsonschema, and Params must refuse it with a
``pydantic.ValidationError`` whose location is the property's original name, under pydantic 1.10
and 2.x alike, whether the value comes as JSON or as a keyword. Valid values go out as written.
The golden package ``collisions`` holds properties, nested models and enum members whose Python
names collide once mangled.
"""

from __future__ import annotations

import importlib
import unittest
from typing import Any, Dict

import pydantic
import support

try:
    import jsonschema
except ImportError:  # the judge is optional here; the fuzz tier always has it
    jsonschema = None

# (property, invalid value, the keyword it breaks)
INVALID = [
    ("count", "7", "type"),
    ("count", 1.5, "type"),
    ("count", True, "type"),
    ("count", None, "type"),
    ("ratio", "5", "type"),
    ("ratio", True, "type"),
    ("flag", "true", "type"),
    ("flag", 1, "type"),
    ("word", 1234, "type"),
    ("word", ["a"], "type"),
    ("level", True, "enum"),
    ("level", 4, "enum"),
    ("level", "1", "enum"),
    ("one", True, "const"),
    ("one", 2, "const"),
    ("yes", 1, "const"),
    ("ids", ["1"], "items"),
    ("ids", [1, True], "items"),
    ("ids", "1", "type"),
    ("maybe", 5, "type"),
    ("maybe", False, "type"),
    ("inner", {"n": "5"}, "properties"),
    ("inner", {}, "required"),
    ("inner", "n", "type"),
    ("bounded", 0, "minimum"),
    ("bounded", 11, "maximum"),
    ("exclusive", 0, "exclusiveMinimum"),
    ("exclusive", 1, "exclusiveMaximum"),
    ("even", 3, "multipleOf"),
    ("short", "a", "minLength"),
    ("short", "abcde", "maxLength"),
    ("code", "A1", "pattern"),
    ("pair", [], "minItems"),
    ("pair", ["a", "b", "c"], "maxItems"),
    ("pair", [1], "items"),
    ("sort", "x", "enum"),
    ("sort", 1, "enum"),
    ("scores", {"a": "1"}, "additionalProperties"),
    ("scores", {"a": 1.5}, "additionalProperties"),
    ("either", 1.5, "anyOf"),
    ("either", True, "anyOf"),
    ("grid", [[1, "2"]], "items"),
    ("grid", [1], "items"),
    ("unknown", 1, "additionalProperties"),
]

# Valid values that pydantic's lax types would rewrite.
VALID: Dict[str, Any] = {
    "count": 7,
    "ratio": 5,
    "flag": False,
    "word": "5",
    "level": 2,
    "one": 1,
    "yes": True,
    "ids": [1, 2],
    "maybe": None,
    "inner": {"n": 3},
    "bounded": 10,
    "exclusive": 0.5,
    "even": 4,
    "short": "ab",
    "code": "abc",
    "pair": ["1"],
    "sort": "stars",
    "scores": {"a": 1},
    "either": "5",
    "grid": [[1, 2.5], []],
}


class RefusalTest(unittest.TestCase):
    def setUp(self):
        self.module = importlib.import_module("refusal.check_all")
        self.schema = self.module_schema()

    def module_schema(self) -> Dict[str, Any]:
        import json

        _, tools = support.load_case(support.GOLDEN_DIR / "refusal")
        return json.loads(json.dumps(tools[0]["inputSchema"]))

    def assert_refused(self, name: str, arguments: Dict[str, Any], how: str) -> None:
        Params = self.module.Params
        with self.assertRaises(pydantic.ValidationError, msg=f"{how} {arguments!r}") as caught:
            if how == "json":
                Params.from_arguments(arguments)
            else:
                Params(**arguments)
        locations = [error["loc"][0] for error in caught.exception.errors()]
        self.assertIn(name, locations, f"{how} {arguments!r}: {caught.exception}")
        self.assertIn(name, str(caught.exception))

    def test_every_invalid_value_is_refused_naming_the_property(self):
        for name, value, keyword in INVALID:
            arguments = {"count": 1, name: value}
            if jsonschema is not None:
                self.assertFalse(
                    jsonschema.Draft202012Validator(self.schema).is_valid(arguments),
                    f"{arguments!r} should break {keyword}",
                )
            with self.subTest(name=name, value=value, keyword=keyword):
                self.assert_refused(name, arguments, "json")
                self.assert_refused(name, arguments, "keywords")

    def test_the_error_says_what_was_expected(self):
        with self.assertRaises(pydantic.ValidationError) as caught:
            self.module.Params(count="7")
        self.assertIn("integer", str(caught.exception))

    def test_valid_values_go_out_exactly_as_written(self):
        if jsonschema is not None:
            self.assertTrue(jsonschema.Draft202012Validator(self.schema).is_valid(VALID))
        for how in ("json", "keywords"):
            with self.subTest(how=how):
                Params = self.module.Params
                model = Params.from_arguments(VALID) if how == "json" else Params(**VALID)
                sent = model.to_arguments()
                self.assertTrue(support.same_json(sent, VALID), f"{sent!r}")

    def test_an_integral_float_is_a_valid_integer(self):
        self.assertEqual(self.module.Params(count=7.0).to_arguments(), {"count": 7})

    def test_keywords_python_cannot_check_are_listed_as_server_only(self):
        doc = importlib.import_module("refusal.server_only").__doc__
        self.assertIn("Checked by the server only", doc)
        for keyword in ("uniqueItems", "if", "then", "dependentSchemas", "minProperties"):
            self.assertIn(f"`{keyword}`", doc)
        checked = importlib.import_module("refusal.check_all").__doc__
        self.assertNotIn("Checked by the server only", checked)

    def test_constraints_inside_unions_and_items_are_checked_not_listed(self):
        module = importlib.import_module("refusal.server_only")
        for keyword in ("minLength", "maxLength", "minimum"):
            self.assertNotIn(f"`{keyword}`", module.__doc__)
        for name, value in (("choice", "abcd"), ("choice", -1), ("tags", ["ok", "x"])):
            with self.subTest(name=name, value=value):
                with self.assertRaises(pydantic.ValidationError) as caught:
                    module.Params.from_arguments({name: value})
                self.assertEqual(caught.exception.errors()[0]["loc"][0], name)
        sent = module.Params.from_arguments({"choice": "abc", "tags": ["ok"]}).to_arguments()
        self.assertEqual(sent, {"choice": "abc", "tags": ["ok"]})


class CollisionTest(unittest.TestCase):
    ARGUMENTS = {
        "datetime": "2024-01-02T03:04:05Z",
        "datetime_": 1,
        "int": 2,
        "int_": "two",
        "class": True,
        "class_": "c",
        "class__2": 2.5,
        "Int": {"int": 3, "int_": "three", "Int": False},
        "Int2": {"datetime": "d", "datetime_": 4},
        "int2": {"class": 5, "class_": "five"},
        "mode": "a b",
        "Mode": "x",
        "Params": {"Params": 6},
        "Field": "f",
        "model_config": "m",
        "model_config_": 7,
    }

    def setUp(self):
        self.module = importlib.import_module("collisions.names")

    def test_every_property_round_trips_from_json(self):
        sent = self.module.Params.from_arguments(self.ARGUMENTS).to_arguments()
        self.assertTrue(support.same_json(sent, self.ARGUMENTS), f"{sent!r}")

    def test_every_property_round_trips_by_python_name(self):
        Params = self.module.Params
        by_json = Params.from_arguments(self.ARGUMENTS)
        names = {
            Params.__fields__[name].alias
            if not hasattr(Params, "model_fields")
            else (Params.model_fields[name].alias or name): name
            for name in (
                Params.model_fields if hasattr(Params, "model_fields") else Params.__fields__
            )
        }
        keywords = {names[key]: getattr(by_json, names[key]) for key in self.ARGUMENTS}
        sent = Params(**keywords).to_arguments()
        self.assertTrue(support.same_json(sent, self.ARGUMENTS), f"{sent!r}")

    def test_enum_members_keep_their_values(self):
        mode = self.module.Params.from_arguments({"int": 1, "int_": "x", "mode": "a_b"}).mode
        self.assertEqual(mode.value, "a_b")
        values = [member.value for member in type(mode)]
        self.assertEqual(len(values), len(set(values)))

    def test_result_parses_colliding_names(self):
        output = {"int": 1, "int_": "one", "Result": {"datetime": "d", "datetime_": 2}, "more": 3}
        parsed = self.module.Result.from_structured(output).to_arguments()
        self.assertTrue(support.same_json(parsed, output), f"{parsed!r}")


if __name__ == "__main__":
    unittest.main()
