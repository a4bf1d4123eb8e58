"""Invalid argument sets for the fuzz tier: a valid set mutated one keyword at a time.

``mutants(root, arguments, rng)`` walks the valid ``arguments`` alongside the input schema
``root`` and, at every value, breaks one keyword of the schema that applies there (``type``,
``enum``, ``const``, bounds, lengths, ``pattern``, item counts, ``required``,
``additionalProperties``), giving ``(keyword, mutated arguments)`` pairs. The caller keeps only
those a real validator refuses. JSON null is a wrong type too: ``Params.from_arguments`` reads
JSON, where (unlike a keyword argument's ``None``) a null the schema does not admit is refused.
"""

from __future__ import annotations

import copy
import random
import re
from typing import Any, Callable, Iterator, List, Set, Tuple

import jsonschema

from name_sets import shadows

# The label of an undeclared key spelled like a declared property's Python name.
PYTHON_NAME_KEY = "additionalProperties (a Python name)"
WRONG_KINDS: List[Any] = ["7", "true", 1.5, True, False, 1, 1234, [], {}, ["1"], None]
PATTERN_PROBES = ["", "!", " ", "0", "A", "zz9", "a b", "\n"]

Path = List[Any]


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    if isinstance(value, dict):
        return "object"
    return "null"


def _type_or_openapi_null(validator: Any, types: Any, instance: Any, schema: Any) -> Any:
    if instance is None and isinstance(schema, dict) and schema.get("nullable") is True:
        return
    yield from _DRAFT_TYPE(validator, types, instance, schema)


_DRAFT_TYPE = jsonschema.Draft202012Validator.VALIDATORS["type"]
# The judge of valid and invalid values: Draft 2020-12, and OpenAPI's `nullable: true` admitting
# null beside a `type`, as the generator reads it (a tolerant reading of a keyword JSON Schema
# does not know; servers that publish it mean it).
Judge = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, {"type": _type_or_openapi_null}
)


def closed_for_inputs(root: Any) -> Any:
    """A copy of an input schema as generated input models read it: an object schema that
    declares properties and says nothing of other keys takes none (the generator's typo guard).
    allOf members stay open; their holder takes no key that no member declares
    (``unevaluatedProperties``), as the merged model does. A member that refers to a definition
    becomes an open copy of it: the definition itself, where something else refers to it, is a
    model of its own and closed (seed 1317234161: a value valid through a definition that was
    also an allOf member, and so left open, was taken for valid)."""
    closed = copy.deepcopy(root)
    members_of_all_of = set()

    def target(node: Any) -> Any:
        for _ in range(8):
            reference = node.get("$ref") if isinstance(node, dict) else None
            if not isinstance(reference, str) or not reference.startswith("#"):
                break
            found = _Walker(closed).resolve({"$ref": reference})
            if found is node or not found:
                break
            node = found
        return node

    def walk(node: Any, visit: Callable[[Any], None]) -> None:
        if isinstance(node, dict):
            visit(node)
            for value in list(node.values()):
                walk(value, visit)
        elif isinstance(node, list):
            for value in node:
                walk(value, visit)

    def inline_members(node: Any) -> None:
        members = node.get("allOf")
        if not isinstance(members, list):
            return
        for index, member in enumerate(members):
            found = target(member)
            if found is member or not isinstance(found, dict):
                continue
            copied = copy.deepcopy(found)
            for key, value in member.items():
                if key != "$ref":
                    copied.setdefault(key, value)
            members[index] = copied

    def collect(node: Any) -> None:
        for member in node.get("allOf") if isinstance(node.get("allOf"), list) else []:
            members_of_all_of.add(id(member))

    def says_other_keys(node: Any) -> bool:
        return "additionalProperties" in node or "unevaluatedProperties" in node

    def close(node: Any) -> None:
        if says_other_keys(node):
            return
        members = node.get("allOf")
        if isinstance(members, list):
            parts = [node] + [target(member) for member in members]
            parts = [part for part in parts if isinstance(part, dict)]
            if any(part.get("properties") for part in parts) and not any(
                says_other_keys(part) for part in parts
            ):
                node["unevaluatedProperties"] = False
        elif node.get("properties") and id(node) not in members_of_all_of:
            node["additionalProperties"] = False

    walk(closed, inline_members)
    walk(closed, collect)
    walk(closed, close)
    return closed


def is_valid_input(root: Any, arguments: Any) -> bool:
    """Whether ``arguments`` are valid for the input schema ``root`` read as the generated input
    models read it (``closed_for_inputs``), the reading valid argument sets are drawn with. The
    schema as written may disagree both ways: a oneOf whose members are open may match twice."""
    return Judge(closed_for_inputs(root)).is_valid(arguments)


def _fits_types(value: Any, types: List[str]) -> bool:
    kind = _kind(value)
    return kind in types or (kind == "integer" and "number" in types)


class _Walker:
    def __init__(self, root: Any) -> None:
        self.root = root
        self.validator = Judge(root)

    def resolve(self, schema: Any) -> Any:
        for _ in range(8):
            if not (isinstance(schema, dict) and isinstance(schema.get("$ref"), str)):
                break
            reference = schema["$ref"]
            if not reference.startswith("#"):
                return {}
            from urllib.parse import unquote

            node = self.root
            for part in [p for p in reference[1:].split("/") if p]:
                part = unquote(part).replace("~1", "/").replace("~0", "~")
                if not isinstance(node, dict) or part not in node:
                    return {}
                node = node[part]
            schema = node
        return schema

    def fits(self, schema: Any, value: Any) -> bool:
        try:
            return self.validator.evolve(schema=schema).is_valid(value)
        except (jsonschema.exceptions.SchemaError, RecursionError, ValueError):
            return False

    def sites(self, schema: Any, value: Any, path: Path, depth: int) -> Iterator[Tuple[Path, Any]]:
        """(path, schema) for every value of the instance and a schema that applies to it."""
        schema = self.resolve(schema)
        if depth > 12 or not isinstance(schema, dict):
            return
        yield path, schema
        for key in ("anyOf", "oneOf"):
            alternatives = schema.get(key)
            if isinstance(alternatives, list):
                fitting = [alt for alt in alternatives if self.fits(alt, value)]
                if len(fitting) == 1:
                    yield from self.sites(fitting[0], value, path, depth + 1)
        if isinstance(schema.get("allOf"), list):
            for member in schema["allOf"]:
                yield from self.sites(member, value, path, depth + 1)
        properties = schema.get("properties")
        if isinstance(value, dict) and isinstance(properties, dict):
            for key, item in value.items():
                if key in properties:
                    yield from self.sites(properties[key], item, path + [key], depth + 1)
        items = schema.get("items")
        if isinstance(value, list) and isinstance(items, dict):
            for index, item in enumerate(value):
                yield from self.sites(items, item, path + [index], depth + 1)


def _breakers(schema: Any, value: Any) -> Iterator[Tuple[str, Callable[[Any], Any]]]:
    """(keyword, function of the value giving a value that breaks it) for one site."""
    types = schema.get("type")
    if isinstance(types, str):
        types = [types]
    if isinstance(types, list) and "enum" not in schema and "const" not in schema:
        for wrong in WRONG_KINDS:
            if not _fits_types(wrong, types):
                yield "type", lambda v, w=wrong: copy.deepcopy(w)
    for keyword in ("enum", "const"):
        allowed = schema.get("enum") if keyword == "enum" else [schema.get("const")]
        if keyword in schema and isinstance(allowed, list):
            for member in allowed[:3]:
                if isinstance(member, bool):
                    yield keyword, lambda v, m=member: int(m)
                elif isinstance(member, (int, float)):
                    yield keyword, lambda v, m=member: True if m == 1 else m + 1000
                    yield keyword, lambda v, m=member: str(m)
                elif isinstance(member, str):
                    yield keyword, lambda v, m=member: m + "x"
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if number:
        for keyword, make in (
            ("minimum", lambda b: b - 1),
            ("maximum", lambda b: b + 1),
            ("exclusiveMinimum", lambda b: b),
            ("exclusiveMaximum", lambda b: b),
        ):
            bound = schema.get(keyword)
            if isinstance(bound, (int, float)) and not isinstance(bound, bool):
                yield keyword, lambda v, b=bound, f=make: f(b)
        step = schema.get("multipleOf")
        if isinstance(step, int) and not isinstance(step, bool) and step > 1:
            yield "multipleOf", lambda v: v + 1
    if isinstance(value, str):
        if isinstance(schema.get("minLength"), int) and schema["minLength"] > 0:
            yield "minLength", lambda v: v[: schema["minLength"] - 1]
        if isinstance(schema.get("maxLength"), int):
            yield "maxLength", lambda v: "x" * (schema["maxLength"] + 1)
        if isinstance(schema.get("pattern"), str):
            for probe in PATTERN_PROBES:
                yield "pattern", lambda v, p=probe: p
    if isinstance(value, list):
        if isinstance(schema.get("minItems"), int) and schema["minItems"] > 0:
            yield "minItems", lambda v: v[: schema["minItems"] - 1]
        if isinstance(schema.get("maxItems"), int) and value:
            yield "maxItems", lambda v: v + [v[0]] * (schema["maxItems"] + 1 - len(v))
    if isinstance(value, dict):
        for name in schema.get("required", []) if isinstance(schema.get("required"), list) else []:
            if name in value:
                yield "required", lambda v, n=name: {k: x for k, x in v.items() if k != n}
        extra = schema.get("additionalProperties")
        if extra is False:
            yield "additionalProperties", lambda v: {**v, "zz_undeclared": 1}
            # An undeclared key spelled like a declared property's Python name, holding that
            # property's value: taken for the property, it would pass.
            properties = schema.get("properties")
            declared = properties if isinstance(properties, dict) else {}
            for name in declared:
                for key in shadows(name):
                    if key not in declared:
                        yield PYTHON_NAME_KEY, lambda v, k=key, n=name: {**v, k: v.get(n, 1)}


def _replace(arguments: Any, path: Path, make: Callable[[Any], Any]) -> Any:
    mutated = copy.deepcopy(arguments)
    if not path:
        return make(mutated)
    node = mutated
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = make(node[path[-1]])
    return mutated


def mutants(
    root: Any, arguments: Any, rng: random.Random, limit: int
) -> List[Tuple[str, Any, List[Any]]]:
    """Up to ``limit`` (keyword, arguments, the validator's errors; see ``_violated``) triples
    that the validator confirms invalid."""
    walker = _Walker(root)
    candidates: List[Tuple[str, Path, Callable[[Any], Any]]] = []
    try:
        for path, schema in walker.sites(root, arguments, [], 0):
            for keyword, make in _breakers(schema, _at(arguments, path)):
                if path or keyword in ("required", "additionalProperties", PYTHON_NAME_KEY):
                    candidates.append((keyword, path, make))  # arguments stay an object
    except (RecursionError, KeyError, IndexError, TypeError, re.error):
        return []
    rng.shuffle(candidates)
    # Round robin over keywords, so that rare keywords are not crowded out by `type`.
    by_keyword: dict = {}
    for candidate in candidates:
        by_keyword.setdefault(candidate[0], []).append(candidate)
    queues = list(by_keyword.values())
    found: List[Tuple[str, Any, List[Any]]] = []
    while queues and len(found) < limit:
        queue = queues.pop(0)
        keyword, path, make = queue.pop(0)
        if queue:
            queues.append(queue)
        try:
            mutated = _replace(arguments, path, make)
            if walker.validator.is_valid(mutated):
                continue
        except (
            RecursionError,
            KeyError,
            IndexError,
            TypeError,
            ValueError,
            re.error,
            jsonschema.exceptions.RefResolutionError,
        ):
            continue
        found.append((keyword, mutated, _violated(walker.validator, mutated)))
        if queue:
            queues.remove(queue)  # one confirmed mutant per keyword and tool is enough
    return found


def _violated(validator: Any, instance: Any) -> List[Any]:
    """Why the validator refuses ``instance``, as a list of errors that each must be mended: a
    keyword (``"pattern"``), or for a failed ``anyOf``/``oneOf`` ``{"keyword": ..., "alternatives":
    [[errors of alternative 0], ...]}``. The mutation may break, say, oneOf's exclusivity rather
    than the keyword it aimed at, or an alternative only through a keyword the module leaves to
    the server (see ``excused``)."""
    return [_error_tree(error) for error in validator.iter_errors(instance)]


# Keywords whose next schema-path segment is a name, not a keyword.
_NAMING_KEYWORDS = {"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"}


def _error_tree(error: Any) -> Any:
    keyword = str(error.validator)
    within = _path_keywords(error.relative_schema_path)
    if keyword not in ("anyOf", "oneOf") or not error.context:
        return {"keyword": keyword, "within": within} if within else keyword
    alternatives: dict = {}
    for inner in error.context:
        index = inner.relative_schema_path[0] if inner.relative_schema_path else 0
        alternatives.setdefault(index, []).append(_error_tree(inner))
    return {
        "keyword": keyword,
        "within": within,
        "alternatives": [alternatives[i] for i in sorted(alternatives)],
    }


def _path_keywords(path: Any) -> List[str]:
    """The keywords a schema path passes through before its last one (``allOf`` in
    ``properties/p/allOf/1/type``), property and definition names left out."""
    segments = list(path)[:-1]
    keywords = []
    for index, segment in enumerate(segments):
        named = index > 0 and segments[index - 1] in _NAMING_KEYWORDS
        if isinstance(segment, str) and not named:
            keywords.append(segment)
    return keywords


def excused(errors: List[Any], server_only: Set[str]) -> bool:
    """Whether a model that checks every keyword but ``server_only`` may accept the instance:
    every error is one of those keywords or lies within one (inside an ``allOf`` the model
    leaves to the server), or a failed ``anyOf``/``oneOf`` has an alternative whose errors all
    are excused (Params takes ``oneOf`` as ``anyOf``)."""
    return all(_excused_error(error, server_only) for error in errors)


def _excused_error(error: Any, server_only: Set[str]) -> bool:
    if isinstance(error, str):
        return error in server_only
    if set(error["within"]) & server_only:
        return True
    if "alternatives" not in error:
        return error["keyword"] in server_only
    return any(excused(alternative, server_only) for alternative in error["alternatives"])


def keywords_of(errors: List[Any]) -> List[str]:
    """The keywords an error list names at its top level, for a failure message."""
    return sorted({error if isinstance(error, str) else error["keyword"] for error in errors})


def _at(value: Any, path: Path) -> Any:
    for key in path:
        value = value[key]
    return value
