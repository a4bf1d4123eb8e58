"""Property names that a naive mapping to Python names sends onto each other (issue 36), in the
golden package ``name_sets``: each tool is a class of failure the fuzz tier's name tier found
(``tests/fuzz/run_fuzz.py --names``), shrunk. Keys are property names, in JSON and in keyword
arguments alike; a Python name is a keyword only where the model refuses undeclared keys; every
attribute holds its own property's value; every docstring names the property of each attribute
named otherwise.
"""

from __future__ import annotations

import copy
import importlib
import sys
import unicodedata
import unittest
import warnings
from typing import Any, Dict

import pydantic
import support

from ipybox_runtime.json_values import to_json
from ipybox_runtime.models import PYDANTIC_V2, ToolModel

try:
    import jsonschema
except ImportError:  # the judge is optional here
    jsonschema = None

sys.path.insert(0, str(support.SOURCE_DIR / "native" / "codegen" / "tools"))

import nfkc_ascii  # noqa: E402 - the generator's table of NFKC folds into ASCII


def tool(name: str) -> Any:
    return importlib.import_module(f"name_sets.{name}")


def schema_of(name: str, key: str = "inputSchema") -> Dict[str, Any]:
    _, tools = support.load_case(support.GOLDEN_DIR / "name_sets")
    return next(entry[key] for entry in tools if entry["name"] == name)


def fields_of(model: Any) -> Dict[str, str]:
    """Python name -> property name."""
    fields = model.model_fields if PYDANTIC_V2 else model.__fields__
    return {name: name if field.alias is None else field.alias for name, field in fields.items()}


def quietly(make: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return make()


# Valid for open_shadows: every open object, at every level, holds undeclared keys spelled like
# a declared property's Python name (datetime_ for datetime, class_ for class, init__ for
# __init__), some beside the property itself, and keys named like model methods.
SHADOWS = {
    "nested": {"datetime_": 5, "class_": {}, "init__": True},
    "listed": [{"datetime_": "x", "datetime": 1}, {"class_": {}}],
    "mapped": {"k": {"init__": True, "__init__": "i"}},
    "either": {"class_": {}},
    "defined": {"datetime_": "y", "class": None, "to_arguments": 1e20, "model_dump": [1]},
    "class_": {},
    "init__": True,
}


class KeysArePropertyNamesTest(unittest.TestCase):
    def setUp(self):
        self.module = tool("open_shadows")

    def test_the_sets_are_valid(self):
        if jsonschema is None:
            self.skipTest("jsonschema is not installed")
        jsonschema.Draft202012Validator(schema_of("open_shadows")).validate(SHADOWS)

    def test_json_keys_spelled_like_python_names_go_out_as_they_came(self):
        params = self.module.Params.from_arguments(copy.deepcopy(SHADOWS))
        self.assertTrue(support.same_json(params.to_arguments(), SHADOWS))

    def test_keyword_arguments_spelled_like_python_names_go_out_as_they_came(self):
        # The three misses: datetime_ arrived as datetime, class_ was checked against
        # class's type, init__ against __init__'s.
        params = quietly(lambda: self.module.Params(**copy.deepcopy(SHADOWS)))
        self.assertTrue(support.same_json(params.to_arguments(), SHADOWS))
        self.assertIsNone(params.class_)
        self.assertIsNone(params.init__)
        self.assertIsNone(params.nested.datetime_)
        self.assertEqual(params.listed[0].datetime_, 1)

    def test_a_python_name_in_an_open_model_warns_how_to_set_the_field(self):
        with self.assertWarnsRegex(
            UserWarning, r"To set the field class_ .*\*\*\{'class': \.\.\.\}"
        ):
            self.module.Params(class_="x")

    def test_property_names_set_the_fields(self):
        params = self.module.Params(**{"class": "c", "__init__": "i", "nested": {"datetime": 2}})
        self.assertEqual((params.class_, params.init__, params.nested.datetime_), ("c", "i", 2))
        self.assertEqual(
            params.to_arguments(), {"class": "c", "__init__": "i", "nested": {"datetime": 2}}
        )

    def test_results_keep_every_key_under_its_own_name(self):
        output = {
            "nested": {"datetime_": "x", "datetime": 3, "init__": None},
            "listed": [{"class_": [], "class": "c"}],
            "class": None,
            "class_": 1,
            "__init__": "i",
            "init__": 2,
        }
        result = self.module.Result.from_structured(copy.deepcopy(output))
        self.assertTrue(support.same_json(result.to_arguments(), output))
        self.assertEqual((result.init__, result.nested.datetime_), ("i", 3))
        self.assertEqual(result.listed[0].class_, "c")


class ClosedModelsTest(unittest.TestCase):
    def setUp(self):
        self.module = tool("closed_names")
        self.arguments = {
            "class": {"x": 1},
            "class_": "s",
            "datetime": "d",
            "datetime_": 3,
            "__init__": True,
            "init__": "i",
            "inner": {"datetime": "e", "datetime_": 4, "my-field": 5},
        }

    def test_every_name_keeps_its_own_value(self):
        params = self.module.Params.from_arguments(copy.deepcopy(self.arguments))
        self.assertTrue(support.same_json(params.to_arguments(), self.arguments))
        by_keyword = self.module.Params(**copy.deepcopy(self.arguments))
        self.assertTrue(support.same_json(by_keyword.to_arguments(), self.arguments))
        for model in (params, by_keyword):
            for name, alias in fields_of(type(model)).items():
                held = to_json(getattr(model, name))
                self.assertTrue(support.same_json(held, self.arguments[alias]), name)

    def test_python_names_are_keywords(self):
        params = self.module.Params(
            class__2={"x": 1},
            class_="s",
            datetime__2="d",
            datetime_=3,
            init___2=True,
            init__="i",
            inner={"datetime__2": "e", "datetime_": 4, "my_field": 5},
        )
        self.assertTrue(support.same_json(params.to_arguments(), self.arguments))

    def test_python_names_are_no_json_keys(self):
        for arguments in ({"class__2": {"x": 1}}, {"inner": {"my_field": 5}}, {"init___2": True}):
            with self.subTest(arguments=arguments):
                if jsonschema is not None:
                    self.assertFalse(
                        jsonschema.Draft202012Validator(schema_of("closed_names")).is_valid(
                            arguments
                        )
                    )
                with self.assertRaises(pydantic.ValidationError):
                    self.module.Params.from_arguments(arguments)

    def test_a_property_given_twice_is_refused(self):
        with self.assertRaises(pydantic.ValidationError):
            self.module.Params(**{"class": {"x": 1}, "class__2": {"x": 2}})

    def test_dumps_use_property_names(self):
        params = self.module.Params(class__2={"x": 1}, datetime__2="d")
        if PYDANTIC_V2:
            dumped = params.model_dump(exclude_unset=True)
        else:
            dumped = params.dict(exclude_unset=True)
        self.assertEqual(dumped, {"class": {"x": 1}, "datetime": "d"})


class NfkcTest(unittest.TestCase):
    def test_names_nfkc_folds_together_stay_apart(self):
        module = tool("nfkc_names")
        arguments = {
            "file": 1,
            "\ufb01le": "fi",
            "\uff43\uff4c\uff41\uff53\uff53": 2,
            "cla\u017fs": True,
            "class": "c",
            "\u212a": "kelvin",
            "K": 3,
        }
        params = module.Params(**arguments)
        self.assertTrue(support.same_json(params.to_arguments(), arguments))
        self.assertEqual((params.file, params.file_2, params.K, params.K_2), (1, "fi", 3, "kelvin"))
        for name in fields_of(module.Params):
            self.assertTrue(name.isascii(), name)

    def test_python_folds_a_keyword_written_in_source_but_not_a_key(self):
        module = tool("nfkc_names")
        # Python reads the identifier ﬁle in source as file; a string key stays as it is.
        written = eval("Params(\ufb01le=1)", {"Params": module.Params})  # noqa: S307
        self.assertEqual(written.to_arguments(), {"file": 1})
        self.assertEqual(module.Params(**{"\ufb01le": "x"}).to_arguments(), {"\ufb01le": "x"})


class NfkcTableTest(unittest.TestCase):
    def test_the_generators_table_folds_as_this_python_does(self):
        version, runs = nfkc_ascii.listed()
        self.assertGreater(len(runs), 300)
        for first, last, folded in runs:
            for code in range(first, last + 1):
                expected = folded if first == last else chr(ord(folded) + code - first)
                self.assertEqual(unicodedata.normalize("NFKC", chr(code)), expected, hex(code))
        if version == unicodedata.unidata_version:
            self.assertEqual(runs, nfkc_ascii.runs(), "run native/codegen/tools/nfkc_ascii.py")


class BodyNamesTest(unittest.TestCase):
    def test_constraints_and_annotated_as_names_leave_the_annotations_working(self):
        module = tool("body_names")
        arguments = {
            "_Constraints": {"n": [1, 3]},
            "Constraints": "a",
            "Annotated": {"Annotated": ["ab"]},
            "tags": ["abc"],
        }
        self.assertEqual(module.Params.from_arguments(arguments).to_arguments(), arguments)
        for invalid in (
            {"tags": ["abcd"]},
            {"_Constraints": {"n": [4]}},
            {"Annotated": {"Annotated": ["a"]}},
        ):
            with self.subTest(invalid=invalid), self.assertRaises(pydantic.ValidationError):
                module.Params.from_arguments(invalid)


class PrivateAndEmptyTest(unittest.TestCase):
    def test_underscores_empty_and_non_identifiers_keep_their_values(self):
        module = tool("private_and_empty")
        arguments = {
            "": 1,
            "field": "f",
            "field_2": True,
            "_": 2,
            "__": "u",
            "_private": 3,
            "private": "p",
            "__dict__": 4,
            "dict__": "d",
            "a b": 5,
            "a_b": "ab",
            "match": 6,
            "type": "t",
        }
        params = module.Params(**arguments)
        self.assertTrue(support.same_json(params.to_arguments(), arguments))
        self.assertTrue(
            support.same_json(module.Params.from_arguments(arguments).to_arguments(), arguments)
        )
        output = {"": 1, "field": "f", "__dict__": 2, "field_2": "extra", "dict__": "extra"}
        result = module.Result.from_structured(output)
        self.assertTrue(support.same_json(result.to_arguments(), output))
        self.assertEqual((result.field_2, result.dict__, result.field), (1, 2, "f"))


class DocstringTest(unittest.TestCase):
    def test_every_model_lists_the_property_of_each_attribute_named_otherwise(self):
        for name, module in support.tool_modules("name_sets").items():
            for value in vars(module).values():
                if not (isinstance(value, type) and issubclass(value, ToolModel)):
                    continue
                if value.__module__ != module.__name__:
                    continue
                doc = value.__doc__ or ""
                for attribute, alias in fields_of(value).items():
                    if attribute != alias:
                        with self.subTest(module=name, model=value.__name__, field=attribute):
                            self.assertIn(f"- `{attribute}`: {alias!r}", doc)


if __name__ == "__main__":
    unittest.main()
