"""The golden package schema_defects: one tool per defect class of issue 12, on both pydantics.

Each test names the rule it pins; the minimal schemas are in
tests/golden/codegen/schema_defects/tools.json.
"""

from __future__ import annotations

import ast
import importlib
import json
import sys
import unittest
from pathlib import Path

import pydantic
import support

from ipybox_runtime.models import ToolModel

SOURCE_DIR = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(SOURCE_DIR / "native" / "codegen" / "tools"))

import model_attribute_names  # noqa: E402 - the generator's list of reserved attribute names


def tool(name: str):
    return importlib.import_module(f"schema_defects.{name}")


class ClassNamesTest(unittest.TestCase):
    def test_nested_classes_named_like_keywords_get_a_suffix(self):
        module = tool("class_names")
        params = module.Params(none={"a": "x"}, flag="b", other={"b": 1})
        self.assertIsInstance(params.none, module.NoneModel)
        self.assertEqual(params.flag, module.TrueChoice.b)
        self.assertEqual(
            params.to_arguments(), {"none": {"a": "x"}, "flag": "b", "other": {"b": 1}}
        )


class ModelAttributesTest(unittest.TestCase):
    def test_properties_named_like_model_machinery_import_and_round_trip(self):
        module = tool("model_attributes")
        arguments = {"mro": "m", "register": "r", "copy": 1, "model_validate_strings": True}
        arguments["from_arguments"] = "f"
        self.assertEqual(module.Params.from_arguments(arguments).to_arguments(), arguments)
        self.assertEqual(module.Params(mro_="m").to_arguments(), {"mro": "m"})
        result = module.Result.from_structured({"mro": "x", "register": 2})
        self.assertEqual(result.to_arguments(), {"mro": "x", "register": 2})

    def test_reserved_list_covers_every_public_model_attribute_of_this_pydantic(self):
        missing = model_attribute_names.surface() - model_attribute_names.listed()
        self.assertEqual(
            missing,
            set(),
            f"pydantic {pydantic.VERSION} has model attributes the generator does not avoid; "
            "run native/codegen/tools/model_attribute_names.py --update",
        )


class PydanticSelfTest(unittest.TestCase):
    def test_property_named_pydantic_self_works_in_and_out(self):
        module = tool("pydantic_self")
        arguments = {"__pydantic_self__": "s", "b": 1}
        self.assertEqual(module.Params(**arguments).to_arguments(), arguments)
        self.assertEqual(module.Params.from_arguments(arguments).to_arguments(), arguments)
        self.assertEqual(
            module.Params(pydantic_self__="s").to_arguments(), {"__pydantic_self__": "s"}
        )
        result = module.Result.from_structured({"__pydantic_self__": "out"})
        self.assertEqual(result.pydantic_self__, "out")

    def test_run_parses_output_with_a_pydantic_self_key(self):
        module = tool("pydantic_self")
        answer = support.ok_result(structured={"__pydantic_self__": "out"})
        with support.fake_tool_server(lambda request: answer):
            self.assertEqual(module.run(module.Params(pydantic_self__="s")).pydantic_self__, "out")


class NullTest(unittest.TestCase):
    def test_explicit_null_is_sent_where_the_schema_admits_it(self):
        module = tool("nullable")
        params = module.Params(n=None, m=None, d=None, anything=None)
        self.assertEqual(params.to_arguments(), {"n": None, "m": None, "d": None, "anything": None})

    def test_a_list_of_nulls_takes_nulls_and_none(self):
        module = tool("nullable")
        self.assertEqual(module.Params(nulls=[None]).to_arguments(), {"nulls": [None]})
        self.assertEqual(module.Params(nulls=None).to_arguments(), {})
        with self.assertRaises(pydantic.ValidationError):
            module.Params(nulls=[None, 1])
        self.assertNotIn("Params.nulls: ", module.__doc__)

    def test_none_on_a_field_that_does_not_admit_null_means_not_given(self):
        module = tool("nullable")
        self.assertEqual(module.Params(plain=None).to_arguments(), {})
        self.assertEqual(module.Params().to_arguments(), {})


class DatesTest(unittest.TestCase):
    def test_date_and_time_values_go_out_exactly_as_written(self):
        module = tool("dates")
        for when in (
            "2024-01-02T03:04:05Z",
            "2024-01-02t03:04:05z",
            "1990-12-31T23:59:60Z",
            "2024-01-02T03:04:05.123456789+05:30",
        ):
            arguments = {"when": when, "day": "2024-02-29", "at": "23:59:60Z"}
            if when.endswith("Z"):
                arguments["utc"] = when
            self.assertEqual(module.Params(**arguments).to_arguments(), arguments)
        self.assertEqual(
            module.Result.from_structured({"when": "2024-01-02T03:04:05Z"}).when,
            "2024-01-02T03:04:05Z",
        )

    def test_pattern_beside_a_format_is_kept(self):
        module = tool("dates")
        with self.assertRaises(pydantic.ValidationError):
            module.Params(utc="2024-01-02T03:04:05+00:00")


class MixedEnumTest(unittest.TestCase):
    def test_integers_and_booleans_of_one_enum_keep_their_type(self):
        module = tool("mixed_enum")
        for arguments in (
            {"a": 1},
            {"a": True},
            {"b": 0},
            {"b": False},
            {"b": "x"},
            {"c": 2},
            {"c": True},
        ):
            sent = module.Params(**arguments).to_arguments()
            self.assertEqual(json.dumps(sent), json.dumps(arguments))

    def test_values_outside_the_enum_are_refused_though_python_has_1_equal_true(self):
        module = tool("mixed_enum")
        for arguments in ({"a": 2}, {"a": "1"}, {"a": False}, {"b": 1}, {"b": True}, {"c": 1}):
            with self.assertRaises(pydantic.ValidationError, msg=repr(arguments)):
                module.Params.from_arguments(arguments)
        self.assertNotIn("Typed more loosely", module.__doc__)
        self.assertNotIn("Checked by the server only", module.__doc__)


class UnionTest(unittest.TestCase):
    def test_union_members_keep_the_written_alternative(self):
        module = tool("unions")
        for arguments in (
            {"ids": ["1", "2"]},
            {"ids": [1, 2]},
            {"shape": {"x": "3"}},
            {"shape": {"x": 3}},
        ):
            sent = module.Params.from_arguments(arguments).to_arguments()
            self.assertEqual(json.dumps(sent), json.dumps(arguments))
            self.assertEqual(
                json.dumps(module.Params(**arguments).to_arguments()), json.dumps(arguments)
            )

    def test_result_keeps_the_written_alternative(self):
        module = tool("unions")
        self.assertEqual(module.Result.from_structured({"ids": ["1", "2"]}).ids, ["1", "2"])


class OpenModelTest(unittest.TestCase):
    def test_an_extra_key_equal_to_a_fields_python_name_stays_an_extra(self):
        module = tool("open_extras")
        arguments = {"my_field": 5}
        self.assertEqual(module.Params.from_arguments(arguments).to_arguments(), arguments)
        both = {"my-field": 1, "my_field": 2}
        self.assertEqual(module.Params.from_arguments(both).to_arguments(), both)
        result = module.Result.from_structured({"my_field": 5})
        self.assertIsNone(result.my_field)
        self.assertEqual(result.to_arguments(), {"my_field": 5})

    def test_a_keyword_spelled_like_a_python_name_is_a_key_of_its_own(self):
        # Issue 36: a model that keeps undeclared keys cannot tell `my_field=` meant as the
        # field from `my_field` meant as a key (an agent passing **arguments), so keys go by
        # property name only; a warning says how to set the field.
        module = tool("open_extras")
        with self.assertWarnsRegex(UserWarning, r"pass \*\*\{'my-field': \.\.\.\}"):
            params = module.Params(my_field=5)
        self.assertEqual(params.to_arguments(), {"my_field": 5})
        self.assertIsNone(params.my_field)
        self.assertEqual(module.Params(**{"my-field": 5}).to_arguments(), {"my-field": 5})
        self.assertEqual(module.Params(**{"my-field": 5}).my_field, 5)

    def test_an_extra_key_named_like_a_method_does_not_replace_it(self):
        module = tool("open_extras")
        arguments = {"to_arguments": 1, "from_structured": 2, "copy": 3, "my-field": 4}
        params = module.Params.from_arguments(arguments)
        self.assertEqual(params.to_arguments(), arguments)
        self.assertEqual(module.Params(**arguments).to_arguments(), arguments)
        answer = support.ok_result(structured={"to_arguments": "x", "my-field": 1})
        with support.fake_tool_server(lambda request: answer) as server:
            result = module.run(params)
            self.assertEqual(json.loads(server.requests[0]["raw"])["tool_args"], arguments)
        self.assertEqual(result.to_arguments(), {"to_arguments": "x", "my-field": 1})


class ConstTest(unittest.TestCase):
    def test_only_required_constants_are_sent_unset(self):
        module = tool("consts")
        self.assertEqual(module.Params().to_arguments(), {"kind": "a"})
        self.assertEqual(module.Params(optional="b").to_arguments(), {"kind": "a", "optional": "b"})

    def test_a_default_that_contradicts_the_const_is_dropped(self):
        module = tool("consts")
        self.assertIsNone(module.Params().contradicted)
        self.assertEqual(module.Params(contradicted="c").to_arguments()["contradicted"], "c")


class NestedCountsTest(unittest.TestCase):
    def test_outer_item_counts_do_not_constrain_inner_arrays(self):
        module = tool("nested_counts")
        self.assertEqual(module.Params(grid=[[1, 2]]).to_arguments(), {"grid": [[1, 2]]})
        self.assertEqual(module.Result.from_structured({"rows": [[1], [2]]}).rows, [[1], [2]])

    def test_item_counts_of_flat_arrays_still_apply(self):
        module = tool("nested_counts")
        with self.assertRaises(pydantic.ValidationError):
            module.Params(flat=[1, 2])


class GeneratedSourceTest(unittest.TestCase):
    def test_every_module_of_the_package_parses_and_subclasses_tool_model(self):
        package = support.import_package("schema_defects")
        for name in package.TOOLS:
            module = tool(name)
            ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
            self.assertTrue(issubclass(module.Params, ToolModel))


if __name__ == "__main__":
    unittest.main()
