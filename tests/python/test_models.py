"""ipybox_runtime.models: ToolModel and Field behave the same on pydantic 1.10 and 2.x."""

from __future__ import annotations

import datetime
import enum
import json
import unittest
from typing import List, Literal, Optional, Union

import pydantic

from ipybox_runtime.errors import ToolRunnerError
from ipybox_runtime.models import PYDANTIC_V2, Field, ToolModel, rebuild_models
from ipybox_runtime.tool_client import ToolOutput


class Color(str, enum.Enum):
    red = "red"
    dark_blue = "dark-blue"


class Inner(ToolModel):
    the_value: int = Field(..., alias="the-value")
    note: Optional[str] = None


class Sample(ToolModel):
    from_: str = Field(..., alias="from")
    count: Optional[int] = Field(None, ge=1, le=10)
    ratio: Optional[float] = None
    url: Optional[str] = None
    color: Optional[Color] = None
    when: Optional[datetime.datetime] = None
    inner: Optional[Inner] = None
    inners: Optional[List[Inner]] = None
    mode: Literal["fast"] = Field("fast", constant=True)
    maybe: Optional[str] = Field(...)
    choice: Optional[Union[str, int]] = None
    limit: int = 5
    tags: Optional[List[str]] = Field(None, min_items=1, max_items=2)
    word: Optional[str] = Field(None, min_length=2, max_length=4, pattern="b+")
    anchored: Optional[str] = Field(None, pattern="^[a-z]+$")
    ecma: Optional[str] = Field(None, pattern=r"^\p{L}+$")
    flagged: Optional[str] = Field(None, pattern="(?i)abc")


class Open(ToolModel, extra="allow"):
    a: Optional[int] = None


def validation_error():
    return pydantic.ValidationError


class PopulationTest(unittest.TestCase):
    def test_populates_by_field_name_and_by_alias(self):
        by_name = Sample(from_="x", maybe=None)
        by_alias = Sample(**{"from": "x", "maybe": None})
        self.assertEqual(by_name.from_, "x")
        self.assertEqual(by_alias.from_, "x")

    def test_refuses_unknown_fields_by_default(self):
        with self.assertRaises(validation_error()):
            Sample(from_="x", maybe=None, qeury="typo")

    def test_extra_allow_keeps_unknown_fields_and_sends_them(self):
        model = Open(a=1, **{"b-c": [1, 2.0]})
        self.assertEqual(model.to_arguments(), {"a": 1, "b-c": [1, 2]})

    def test_required_nullable_field_is_required_on_both_versions(self):
        with self.assertRaises(validation_error()):
            Sample(from_="x")


class ConstraintTest(unittest.TestCase):
    def test_numeric_bounds_apply(self):
        with self.assertRaises(validation_error()):
            Sample(from_="x", maybe=None, count=11)

    def test_list_length_bounds_apply(self):
        with self.assertRaises(validation_error()):
            Sample(from_="x", maybe=None, tags=[])
        with self.assertRaises(validation_error()):
            Sample(from_="x", maybe=None, tags=["a", "b", "c"])
        Sample(from_="x", maybe=None, tags=["a"])

    def test_string_length_bounds_apply(self):
        with self.assertRaises(validation_error()):
            Sample(from_="x", maybe=None, word="b")

    def test_pattern_matches_anywhere_like_json_schema(self):
        self.assertEqual(Sample(from_="x", maybe=None, word="abbc").word, "abbc")
        with self.assertRaises(validation_error()):
            Sample(from_="x", maybe=None, word="acd")

    def test_anchored_pattern_still_anchors(self):
        Sample(from_="x", maybe=None, anchored="abc")
        with self.assertRaises(validation_error()):
            Sample(from_="x", maybe=None, anchored="ab1")

    def test_leading_inline_flags_keep_working(self):
        Sample(from_="x", maybe=None, flagged="xxABCxx")

    def test_pattern_python_cannot_compile_is_ignored(self):
        self.assertEqual(Sample(from_="x", maybe=None, ecma="123").ecma, "123")


class ToArgumentsTest(unittest.TestCase):
    def test_sends_original_names_and_only_what_was_set(self):
        model = Sample(from_="x", maybe=None)
        self.assertEqual(model.to_arguments(), {"from": "x", "maybe": None, "mode": "fast"})

    def test_keeps_integers_integers(self):
        arguments = Sample(from_="x", maybe="m", count=3, ratio=3, choice=5).to_arguments()
        self.assertEqual(json.dumps(arguments["count"]), "3")
        self.assertEqual(json.dumps(arguments["ratio"]), "3")
        self.assertEqual(json.dumps(arguments["choice"]), "5")
        self.assertEqual(Sample(from_="x", maybe="m", ratio=2.5).to_arguments()["ratio"], 2.5)

    def test_union_keeps_strings_strings(self):
        self.assertEqual(Sample(from_="x", maybe="m", choice="5").to_arguments()["choice"], "5")

    def test_does_not_rewrite_urls(self):
        arguments = Sample(from_="x", maybe=None, url="https://example.com").to_arguments()
        self.assertEqual(arguments["url"], "https://example.com")

    def test_converts_enums_datetimes_and_nested_models(self):
        model = Sample(
            from_="x",
            maybe=None,
            color="dark-blue",
            when=datetime.datetime(2024, 1, 15, 10, 30),
            inner={"the-value": 2},
            inners=[Inner(the_value=3, note="n")],
        )
        self.assertIs(model.color, Color.dark_blue)
        arguments = model.to_arguments()
        self.assertEqual(arguments["color"], "dark-blue")
        self.assertEqual(arguments["when"], "2024-01-15T10:30:00")
        self.assertEqual(arguments["inner"], {"the-value": 2})
        self.assertEqual(arguments["inners"], [{"the-value": 3, "note": "n"}])
        json.dumps(arguments)

    def test_none_on_an_optional_field_means_not_given(self):
        arguments = Sample(from_="x", maybe=None, count=None).to_arguments()
        self.assertNotIn("count", arguments)
        self.assertIn("maybe", arguments)

    def test_explicit_default_value_is_sent_when_set(self):
        self.assertEqual(Sample(from_="x", maybe=None, limit=5).to_arguments()["limit"], 5)
        self.assertNotIn("limit", Sample(from_="x", maybe=None).to_arguments())


class FromStructuredTest(unittest.TestCase):
    def test_parses_a_mapping(self):
        self.assertEqual(Inner.from_structured({"the-value": 1}).the_value, 1)

    def test_parses_tool_output_structured_content(self):
        self.assertEqual(Inner.from_structured(ToolOutput("", {"the-value": 4})).the_value, 4)

    def test_json_keys_are_property_names_only(self):
        # A key spelled like a field's Python name is no property of a model that refuses
        # undeclared keys (issue 36: keys go by property name only).
        with self.assertRaises(validation_error()):
            Inner.from_structured({"the_value": 4})
        with self.assertRaises(validation_error()):
            Sample.from_arguments({"from_": "x", "maybe": None})

    def test_falls_back_to_json_text(self):
        self.assertEqual(Inner.from_structured(ToolOutput('{"the-value": 5}')).the_value, 5)

    def test_no_structured_content_is_a_tool_runner_error(self):
        with self.assertRaisesRegex(ToolRunnerError, "no structured content"):
            Inner.from_structured(ToolOutput("plain text"))

    def test_mismatching_content_is_a_validation_error(self):
        with self.assertRaises(validation_error()):
            Inner.from_structured({"the-value": "not a number"})


class Node(ToolModel):
    name: str
    children: Optional[List["Node"]] = None


rebuild_models(Node)


class RebuildTest(unittest.TestCase):
    def test_recursive_models_validate_after_rebuild(self):
        node = Node(name="a", children=[{"name": "b", "children": [{"name": "c"}]}])
        self.assertEqual(node.children[0].children[0].name, "c")
        expected = {"name": "a", "children": [{"name": "b", "children": [{"name": "c"}]}]}
        self.assertEqual(node.to_arguments(), expected)


class VersionTest(unittest.TestCase):
    def test_flag_matches_installed_pydantic(self):
        self.assertEqual(PYDANTIC_V2, pydantic.VERSION.startswith("2"))


if __name__ == "__main__":
    unittest.main()
