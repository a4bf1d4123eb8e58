"""The golden generated packages: import safety, data round-trips and behaviour.

Runs once per pydantic major version (see launch.py). The whole module works inside a scratch
directory: the hostile schemas' payloads would create a file named PWNED there.
"""

from __future__ import annotations

import importlib
import os
import tempfile
import typing
import unittest
import warnings
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple
from urllib.parse import unquote

import pydantic

import support
from generated_audit import audit_module
from ipybox_runtime.errors import ToolRunnerError
from ipybox_runtime.models import PYDANTIC_V2
from ipybox_runtime.tool_client import TextResult

# Where a model's docstring lists the fields whose Python name differs from the property name.
RENAMED_FIELDS = "Fields whose Python name differs from the property name"

_scratch = tempfile.TemporaryDirectory(prefix="ipybox-generated-")
_previous_cwd = os.getcwd()
_import_warnings: List[str] = []


def setUpModule() -> None:
    os.chdir(_scratch.name)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for case in support.golden_cases():
            server_name, _ = support.load_case(case)
            support.tool_modules(server_name)
    _import_warnings.extend(str(warning.message) for warning in caught)


def tearDownModule() -> None:
    os.chdir(_previous_cwd)
    _scratch.cleanup()


def marker() -> Path:
    return Path(_scratch.name) / "PWNED"


def generated_files() -> Iterator[Tuple[Path, Path]]:
    for case in support.golden_cases():
        for path in sorted((case / "expected").rglob("*.py")):
            yield case, path


# --- schema walking (reachable parts only, following local $refs) -----------------------------


def resolve(root: Any, ref: str) -> Any:
    if not ref.startswith("#"):
        return None
    node = root
    for raw in [part for part in ref[1:].split("/") if part]:
        part = unquote(raw).replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def preserved_strings(root: Any) -> Tuple[List[str], List[str]]:
    """(strings that must appear verbatim, texts that must appear as docstrings)."""
    exact: List[str] = []
    documents: List[str] = []
    seen = set()

    def default_strings(value: Any) -> None:
        if isinstance(value, str):
            exact.append(value)
        elif isinstance(value, list):
            for item in value:
                default_strings(item)
        elif isinstance(value, dict):
            for key, item in value.items():
                exact.append(key)
                default_strings(item)

    def walk(schema: Any, depth: int, as_property: bool, allowed: Any = None) -> None:
        if not isinstance(schema, dict) or depth > 20 or id(schema) in seen:
            return
        seen.add(id(schema))
        if isinstance(schema.get("$ref"), str):
            target = resolve(root, schema["$ref"])
            if isinstance(target, dict) and target.get("properties"):
                if isinstance(target.get("description"), str):
                    documents.append(target["description"])
            walk(target, depth + 1, False, allowed)
        if isinstance(schema.get("description"), str) and as_property:
            exact.append(schema["description"])
        enum = schema.get("enum") if isinstance(schema.get("enum"), list) else []
        exact.extend(value for value in enum if isinstance(value, str))
        if isinstance(schema.get("const"), str):
            exact.append(schema["const"])
        if isinstance(schema.get("pattern"), str):
            exact.append(schema["pattern"])
        required = schema.get("required") if isinstance(schema.get("required"), list) else []
        for name, prop in (schema.get("properties") or {}).items():
            if allowed is not None and name not in allowed:
                continue  # another allOf member closes the object to it: no field for it
            exact.append(name)
            if isinstance(prop, dict) and "default" in prop and name not in required:
                if prop.get("const", prop["default"]) == prop["default"]:  # else dropped
                    default_strings(prop["default"])
            walk(prop, depth + 1, True)
        for key in ("items", "additionalProperties"):
            walk(schema.get(key), depth + 1, False)
        for key in ("anyOf", "oneOf"):
            for alternative in schema.get(key) or []:
                walk(alternative, depth + 1, False)
        members = schema.get("allOf") or []
        closed = closed_names(root, [schema] + members)
        for member in members:
            walk(member, depth + 1, False, allowed if closed is None else closed)

    if isinstance(root, dict):
        if isinstance(root.get("description"), str) and root.get("properties"):
            documents.append(root["description"])
        if not root.get("properties") and ("anyOf" in root or "oneOf" in root):
            return exact, documents  # a union at the root is typed as "any arguments"
        walk(root, 0, False)
    return exact, documents


def closed_names(root: Any, parts: List[Any]) -> Any:
    """The property names every closed part of an allOf declares (None: no part closes)."""
    names = None
    for part in parts:
        if isinstance(part, dict) and isinstance(part.get("$ref"), str):
            part = resolve(root, part["$ref"])
        if isinstance(part, dict) and part.get("additionalProperties") is False:
            own = set(part.get("properties") or {})
            names = own if names is None else names & own
    return names


def module_summary(module: Any) -> str:
    """The module docstring without its notes on loosely typed fields and unchecked keywords."""
    summary = module.__doc__.split("\n\nTyped more loosely than the schema")[0]
    summary = summary.split("\n\nChecked by the server only")[0]
    return summary.split("\n\n`run()` returns")[0]


def field_table(model: Any) -> Dict[str, Dict[str, Any]]:
    """alias -> {name, description, default, required, annotation} for a model class."""
    table = {}
    if PYDANTIC_V2:
        for name, field in model.model_fields.items():
            alias = name if field.alias is None else field.alias
            table[alias] = dict(
                name=name,
                description=field.description,
                default=field.default,
                required=field.is_required(),
                annotation=field.annotation,
            )
    else:
        for name, field in model.__fields__.items():
            table[field.alias] = dict(
                name=name,
                description=field.field_info.description,
                default=field.default,
                required=field.required is True,
                annotation=field.annotation,
            )
    return table


def unwrap_optional(annotation: Any) -> Any:
    if typing.get_origin(annotation) is typing.Union:
        none_type = type(None)
        members = [arg for arg in typing.get_args(annotation) if arg is not none_type]
        if len(members) == 1:
            return members[0]
    return annotation


# --- tests -------------------------------------------------------------------------------------


class ImportSafetyTest(unittest.TestCase):
    def test_importing_every_generated_module_runs_no_payload(self):
        self.assertFalse(marker().exists(), "a payload in a schema ran on import")

    def test_imports_raise_no_warnings(self):
        self.assertEqual(_import_warnings, [])

    def test_generated_source_compiles_without_warnings(self):
        for _, path in generated_files():
            with self.subTest(path=path.name), warnings.catch_warnings():
                warnings.simplefilter("error")
                compile(path.read_text(encoding="utf-8"), str(path), "exec")

    def test_every_generated_module_passes_the_structure_audit(self):
        for _, path in generated_files():
            with self.subTest(path=str(path.relative_to(support.GOLDEN_DIR))):
                audit_module(path.read_text(encoding="utf-8"), str(path))


class RoundTripTest(unittest.TestCase):
    """Whatever the server sent comes back out of the generated literals unchanged."""

    def test_tool_names_map_to_modules_exactly(self):
        for case in support.golden_cases():
            server_name, tools = support.load_case(case)
            with self.subTest(case=case.name):
                package = support.import_package(server_name)
                self.assertEqual(package.SERVER_NAME, server_name)
                self.assertEqual(list(package.TOOLS.values()), [tool["name"] for tool in tools])
                self.assertEqual(list(package.TOOLS), package.__all__)
                self.assertNotIn("__init__", package.TOOLS)
                for module_name, tool_name in package.TOOLS.items():
                    module = importlib.import_module(f"{server_name}.{module_name}")
                    self.assertTrue(module_name.isidentifier())
                    self.assertEqual(module.TOOL_NAME, tool_name)
                    self.assertEqual(module.SERVER_NAME, server_name)

    def test_descriptions_survive_as_docstrings(self):
        for case in support.golden_cases():
            server_name, tools = support.load_case(case)
            modules = list(support.tool_modules(server_name).values())
            for tool, module in zip(tools, modules):
                text = tool.get("description") or tool.get("title") or ""
                if not text.split():
                    continue
                with self.subTest(case=case.name, tool=tool["name"]):
                    self.assertEqual(module_summary(module).split(), text.split())
                    self.assertEqual(module.run.__doc__.split(), text.split())

    def test_schema_strings_appear_verbatim_in_the_module(self):
        for case in support.golden_cases():
            server_name, tools = support.load_case(case)
            modules = support.tool_modules(server_name)
            for tool, (module_name, module) in zip(tools, modules.items()):
                path = case / "expected" / server_name / f"{module_name}.py"
                strings = audit_module(path.read_text(encoding="utf-8"), str(path))
                # A class docstring may go on with the list of fields named otherwise.
                described = [s.split(RENAMED_FIELDS)[0] for s in strings]
                normalised = {" ".join(s.split()) for s in strings + described}
                for schema in (tool.get("inputSchema"), tool.get("outputSchema")):
                    exact, documents = preserved_strings(schema)
                    with self.subTest(case=case.name, tool=tool["name"]):
                        missing = [s for s in exact if s not in strings]
                        self.assertEqual(missing, [])
                        lost = [d for d in documents if " ".join(d.split()) not in normalised]
                        self.assertEqual(lost, [])

    def test_params_fields_keep_names_descriptions_and_defaults(self):
        for case in support.golden_cases():
            server_name, tools = support.load_case(case)
            for tool, module in zip(tools, support.tool_modules(server_name).values()):
                schema = tool.get("inputSchema") or {}
                properties = schema.get("properties") or {}
                required = schema.get("required") or []
                table = field_table(module.Params)
                with self.subTest(case=case.name, tool=tool["name"]):
                    self.assertEqual(sorted(table), sorted(properties))
                    for name, prop in properties.items():
                        entry = table[name]
                        if "description" in prop:
                            self.assertEqual(entry["description"], prop["description"])
                        if name in required and "const" not in prop:
                            self.assertTrue(entry["required"], name)
                        contradicted = prop.get("const", prop.get("default")) != prop.get("default")
                        if (
                            name not in required
                            and prop.get("default") is not None
                            and not contradicted
                        ):
                            default = entry["default"]
                            self.assertEqual(getattr(default, "value", default), prop["default"])
                        values = [v for v in prop.get("enum", []) if v is not None]
                        if values and all(isinstance(v, str) for v in values):
                            enum_class = unwrap_optional(entry["annotation"])
                            members = [member.value for member in enum_class]
                            self.assertEqual(members, list(dict.fromkeys(values)))


class KitchenSinkTest(unittest.TestCase):
    def setUp(self):
        self.search = importlib.import_module("kitchen_sink.search")

    def required(self, **extra):
        values = dict(query="q", my_field="m", from_="f", required_nullable=None)
        values.update(extra)
        return self.search.Params(**values)

    def test_fields_populate_by_attribute_name_and_by_original_name(self):
        by_name = self.required(class_=4, field_2fa=True)
        by_alias = self.search.Params(
            **{
                "query": "q",
                "my-field": "m",
                "from": "f",
                "required_nullable": None,
                "class": 4,
                "2fa": True,
            }
        )
        self.assertEqual(by_name.to_arguments(), by_alias.to_arguments())
        self.assertEqual(by_alias.my_field, "m")

    def test_arguments_use_original_names_and_omit_unset_fields(self):
        self.assertEqual(
            self.required().to_arguments(),
            {"query": "q", "my-field": "m", "from": "f", "required_nullable": None, "mode": "fast"},
        )

    def test_arguments_keep_integers_and_urls(self):
        arguments = self.required(
            count=3,
            per_page=3,
            ratio=0.5,
            url="https://example.com",
            when="2024-01-15t10:30:00.123456789z",
            sort="help-wanted-issues",
            nested={"a": 1},
            items=[{"id": 7}],
            choice=5,
        ).to_arguments()
        self.assertEqual(repr(arguments["count"]), "3")
        self.assertEqual(repr(arguments["per_page"]), "3")
        self.assertEqual(arguments["ratio"], 0.5)
        self.assertEqual(arguments["url"], "https://example.com")
        self.assertEqual(arguments["when"], "2024-01-15t10:30:00.123456789z")
        self.assertEqual(arguments["sort"], "help-wanted-issues")
        self.assertEqual(arguments["nested"], {"a": 1})
        self.assertEqual(arguments["items"], [{"id": 7}])
        self.assertEqual(repr(arguments["choice"]), "5")

    def test_constraints_from_the_schema_are_enforced(self):
        bad_values = (
            dict(count=0),
            dict(count=101),
            dict(name="ab1"),
            dict(tags=[]),
            dict(ratio=0),
            dict(odd=3),
        )
        for bad in bad_values:
            with self.subTest(**{k: repr(v) for k, v in bad.items()}):
                with self.assertRaises(pydantic.ValidationError):
                    self.required(**bad)

    def test_unknown_parameters_are_refused(self):
        with self.assertRaises(pydantic.ValidationError):
            self.required(qeury="typo")

    def test_string_enum_members_are_sanitised_and_keep_values(self):
        Sort = self.search.Sort
        self.assertEqual(Sort.help_wanted_issues.value, "help-wanted-issues")
        self.assertEqual(Sort.class_.value, "class")
        self.assertEqual(Sort.value_123abc.value, "123abc")

    def test_result_parses_structured_output_and_tolerates_new_fields(self):
        result = self.search.Result.from_structured(
            {
                "total": 2,
                "items": [{"id": 1, "score": 0.5, "url": "https://x.org"}],
                "sort": "forks",
                "generated_at": "2024-01-15T10:30:00Z",
                "new_field": True,
            }
        )
        self.assertEqual(result.items[0].url, "https://x.org")
        self.assertIs(result.sort, self.search.Sort2.forks)
        self.assertEqual(result.generated_at, "2024-01-15T10:30:00Z")

    def test_input_and_output_models_with_the_same_name_do_not_shadow(self):
        self.assertIsNot(self.search.Item, self.search.Item2)
        self.assertIn("label", field_table(self.search.Item))
        self.assertIn("score", field_table(self.search.Item2))


class SchemasTest(unittest.TestCase):
    def test_recursive_models_validate(self):
        tree = importlib.import_module("refs.tree")
        params = tree.Params(
            root={"name": "a", "children": [{"name": "b"}]}, parent={"root": {"name": "p"}}
        )
        self.assertEqual(params.root.children[0].name, "b")
        self.assertEqual(
            params.to_arguments(),
            {"root": {"name": "a", "children": [{"name": "b"}]}, "parent": {"root": {"name": "p"}}},
        )
        result = tree.Result.from_structured(
            {"node": {"name": "n"}, "next": {"node": {"name": "m"}}}
        )
        self.assertEqual(result.next.node.name, "m")

    def test_refs_compose_and_enums_default_to_members(self):
        issue = importlib.import_module("refs.create_issue")
        params = issue.Params(
            repo={"owner": {"login": "o"}, "name": "r"},
            priority="high",
            composed={"owner": {"login": "o"}, "name": "r", "extra": True},
            literals=2,
        )
        self.assertIs(params.fallback_priority, issue.Priority.low)
        arguments = params.to_arguments()
        self.assertEqual(arguments["priority"], "high")
        self.assertNotIn("fallback_priority", arguments)
        self.assertEqual(arguments["composed"]["extra"], True)

    def test_non_object_input_schema_accepts_any_arguments(self):
        module = importlib.import_module("empty_schemas.not_an_object")
        self.assertEqual(module.Params(x=1, y="z").to_arguments(), {"x": 1, "y": "z"})

    def test_empty_and_absent_schemas_give_argumentless_params(self):
        for name in ("no_input_schema", "empty_input_schema", "bare_object"):
            module = importlib.import_module(f"empty_schemas.{name}")
            self.assertEqual(module.Params().to_arguments(), {})

    def test_empty_output_schemas_return_text_results(self):
        for name in ("output_empty", "output_bare_object", "output_null"):
            module = importlib.import_module(f"empty_schemas.{name}")
            self.assertFalse(hasattr(module, "Result"))
            self.assertIs(typing.get_type_hints(module.run)["return"], TextResult)

    def test_fields_named_like_pydantic_or_typing_names_work(self):
        fields = importlib.import_module("names.fields")
        arguments = {
            "from": "a",
            "class": "b",
            "json": "j",
            "Field": "F",
            "model_config": "m",
            "List": "l",
            "": "empty",
            "_private": "p",
        }
        self.assertEqual(fields.Params(**arguments).to_arguments(), arguments)


class RunTest(unittest.TestCase):
    """run() end to end against the fake tool server."""

    def test_text_tool_returns_text_result(self):
        echo = importlib.import_module("everything.echo")

        def answer(request):
            return support.ok_result("Echo: " + request["tool_args"]["message"])

        with support.fake_tool_server(answer) as server:
            result = echo.run(echo.Params(message="hi"))
        self.assertIsInstance(result, TextResult)
        self.assertEqual(result, "Echo: hi")
        body = support.json.loads(server.requests[0]["raw"])
        self.assertEqual(
            body, {"server_name": "everything", "tool_name": "echo", "tool_args": {"message": "hi"}}
        )

    def test_structured_tool_returns_result_model(self):
        tool_3 = importlib.import_module("everything.tool_3")
        structured = {"status": "ok", "inner": {"code": 200, "details": "d"}, "count": 4}
        with support.fake_tool_server(lambda r: support.ok_result("{}", structured)):
            result = tool_3.run(tool_3.Params(name="n", level=1))
        self.assertEqual((result.count, result.inner.code, result.inner.details), (4, 200, "d"))

    def test_structured_tool_without_structured_content_raises_tool_runner_error(self):
        tool_3 = importlib.import_module("everything.tool_3")
        with support.fake_tool_server(lambda r: support.ok_result("just text")):
            with self.assertRaises(ToolRunnerError):
                tool_3.run(tool_3.Params(name="n", level=1))

    def test_hyphenated_tool_sends_its_original_name(self):
        tool_1 = importlib.import_module("everything.tool_1")
        with support.fake_tool_server(lambda r: support.ok_result(r["tool_name"])):
            self.assertEqual(tool_1.run(tool_1.Params(s="x")), "tool-1")

    def test_hostile_tool_is_called_by_its_exact_name_and_runs_no_payload(self):
        package = support.import_package("hostile")
        for module_name, tool_name in package.TOOLS.items():
            module = importlib.import_module(f"hostile.{module_name}")
            params = module.Params(q="x") if "q" in field_table(module.Params) else module.Params()
            hostile_key = 'out"""+__import__("pathlib").Path("PWNED").touch()+"""'
            answer = support.ok_result("ok", {hostile_key: "v"})
            with support.fake_tool_server(lambda r: answer) as server:
                module.run(params)
            body = support.json.loads(server.requests[0]["raw"])
            self.assertEqual(body["tool_name"], tool_name)
        self.assertFalse(marker().exists())


if __name__ == "__main__":
    unittest.main()
