"""Random MCP tools with hostile JSON Schemas, and random valid values for those schemas.

``SchemaFuzzer(seed).tool(i)`` gives one ``tools/list`` entry: nesting, ``$ref``/``$defs``
(recursion included), anyOf/oneOf/allOf, nullable type lists, const, enums of mixed types,
string formats, bounds, patterns, additionalProperties in all three forms, and names, titles,
descriptions and enum values taken from a pool of strings that break naive code generators.

``ValueMaker(root, rng).value(schema)`` builds a value meant to be valid; the caller checks it
with a real JSON Schema validator and discards what is not (the maker is a heuristic, the
validator is the judge). Deterministic for a given seed; standard library only.
"""

from __future__ import annotations

import copy
import random
from typing import Any, Callable, Dict, List, Optional, Tuple

from name_sets import NameSets, shadows

# Names and texts that have broken code generators: keywords, model machinery of both pydantic
# majors, dunders, typing names, module-level names of generated code, non-ASCII, quotes and
# line breaks, and names that collide once sanitised.
HOSTILE_NAMES = [
    "None",
    "True",
    "False",
    "none",
    "true",
    "class",
    "def",
    "import",
    "lambda",
    "self",
    "cls",
    "mro",
    "register",
    "copy",
    "dict",
    "json",
    "schema",
    "fields",
    "construct",
    "validate",
    "Config",
    "model_config",
    "model_dump",
    "model_fields",
    "model_validate_strings",
    "to_arguments",
    "from_arguments",
    "from_structured",
    "__pydantic_self__",
    "__init__",
    "__class__",
    "__dict__",
    "__fields_set__",
    "_private",
    "__",
    "_",
    "Any",
    "List",
    "Optional",
    "Union",
    "Literal",
    "Field",
    "Enum",
    "str",
    "int",
    "float",
    "bool",
    "date",
    "datetime",
    "Params",
    "Result",
    "ToolModel",
    "run",
    "call_tool",
    "SERVER_NAME",
    "TOOL_NAME",
    "my-field",
    "my_field",
    "my field",
    "a.b",
    "a/b",
    "1st",
    "2fa",
    "",
    " ",
    "naïve",
    "名前",
    "émoji🙂",
    'quo"te',
    "apo'strophe",
    "back\\slash",
    "new\nline",
    "tab\there",
    "sep\u2028x",
    "bidi\u202eevil",
    "nul\x00byte",
    '"""',
    "'''",
    "x'); import os; os.system('touch PWNED');#",
    "name",
    "value",
    "items",
    "keys",
    "upper",
    "type",
    "id",
    "count",
    "index",
]
HOSTILE_TEXTS = HOSTILE_NAMES + [
    "plain text",
    "line one\nline two",
    '"""; import os  #',
    "\\N{BULLET}",
    "{0}{1}",
    "%s%d",
    "\r\n\r\n",
    "ends with backslash\\",
    "a" * 130,
]
# (pattern, strings it matches with re.search): Python and ECMAScript agree on these.
PATTERNS: List[Tuple[str, List[str]]] = [
    ("^[a-z]+$", ["abc", "zz"]),
    ("Z$", ["2024-01-02T03:04:05Z", "Z"]),
    ("^\\d{3}-\\d{4}$", ["555-1234"]),
    ("a|b", ["xa", "b", "cab"]),
    ("^(?:[A-Z]{2})$", ["AB", "ZZ"]),
    ("^[^\\s]*$", ["", "no-space"]),
    ("\\.", ["a.b", "."]),
    ("^$|^x", ["", "xyz"]),
]
FORMATS: Dict[str, List[str]] = {
    "date-time": [
        "2024-01-02T03:04:05Z",
        "2024-01-02t03:04:05z",
        "1990-12-31T23:59:60Z",
        "2024-01-02T03:04:05.123456789+05:30",
        "2024-01-02T03:04:05.1-00:00",
    ],
    "date": ["2024-02-29", "0001-01-01"],
    "time": ["23:59:60Z", "03:04:05.5+01:00", "00:00:00z"],
    "uri": ["https://example.com/a?b=c#d", "urn:isbn:0451450523", "HTTP://EXAMPLE.COM:80/"],
    "email": ["a@b.c", "first.last+tag@example.org"],
    "uuid": ["123e4567-e89b-12d3-a456-426614174000"],
}
SCALAR_POOL: List[Any] = [0, 1, -1, 2, 7, 2**53 + 1, 2.5, -0.5, 1e20, True, False, None]


class SchemaFuzzer:
    """Random tools; ``max_depth`` bounds nesting. One object in four takes its property names
    from ``name_sets.NameSets`` (families of names that collide once mangled)."""

    name_set_rate = 0.25

    def __init__(self, seed: int, max_depth: int = 4) -> None:
        self.rng = random.Random(seed)
        self.max_depth = max_depth
        self._defs: Dict[str, Any] = {}
        self.name_sets = NameSets(self.rng)

    def tool(self, index: int) -> Dict[str, Any]:
        rng = self.rng
        name = rng.choice(HOSTILE_NAMES) if rng.random() < 0.4 else f"tool-{index}"
        tool: Dict[str, Any] = {"name": name, "inputSchema": self.root()}
        if rng.random() < 0.6:
            tool["description"] = rng.choice(HOSTILE_TEXTS)
        if rng.random() < 0.5:
            tool["outputSchema"] = self.root()
        return tool

    def root(self) -> Dict[str, Any]:
        self._defs = {}
        schema = self.object_schema(0)
        if self._defs:
            schema["$defs"] = self._defs
        return schema

    def name(self) -> str:
        rng = self.rng
        return rng.choice(HOSTILE_NAMES) if rng.random() < 0.6 else f"p{rng.randrange(50)}"

    def text(self) -> str:
        return self.rng.choice(HOSTILE_TEXTS)

    def decorate(self, schema: Dict[str, Any]) -> Dict[str, Any]:
        rng = self.rng
        if rng.random() < 0.2:
            schema["title"] = self.text()
        if rng.random() < 0.3:
            schema["description"] = self.text()
        return schema

    def kinds(self, depth: int) -> List[Tuple[Callable[[], Any], int]]:
        """What a property's schema may be, with weights."""
        rng = self.rng
        return [
            (self.scalar, 30),
            (lambda: self.object_schema(depth + 1), 10),
            (lambda: self.array(depth + 1), 10),
            (lambda: self.alternatives(depth + 1), 10),
            (lambda: self.all_of(depth + 1), 3),
            (self.enum, 8),
            (self.const, 5),
            (self.type_list, 8),
            (lambda: self.reference(depth + 1), 8),
            (lambda: rng.choice([{}, True, {"description": self.text()}]), 3),
        ]

    def schema(self, depth: int) -> Any:
        rng = self.rng
        if depth >= self.max_depth:
            return self.scalar()
        kinds = self.kinds(depth)
        make = rng.choices([k for k, _ in kinds], [w for _, w in kinds])[0]
        schema = make()
        if isinstance(schema, dict) and rng.random() < 0.05 and "type" in schema:
            schema["nullable"] = True
        return schema

    def scalar(self) -> Dict[str, Any]:
        rng = self.rng
        kind = rng.choice(["string", "string", "integer", "number", "boolean", "null"])
        schema: Dict[str, Any] = {"type": kind}
        if kind == "string":
            roll = rng.random()
            if roll < 0.25:
                schema["format"] = rng.choice(list(FORMATS))
                if schema["format"] == "date-time" and rng.random() < 0.3:
                    schema["pattern"] = "Z$|z$"
            elif roll < 0.45:
                schema["pattern"] = rng.choice(PATTERNS)[0]
            elif roll < 0.6:
                schema["minLength"] = rng.randrange(0, 3)
                schema["maxLength"] = schema["minLength"] + rng.randrange(0, 10)
        elif kind in ("integer", "number"):
            if rng.random() < 0.3:
                schema["minimum"] = rng.choice([-5, 0, 1])
            if rng.random() < 0.3:
                schema["maximum"] = rng.choice([10, 100, 2**60])
            if rng.random() < 0.1:
                schema["exclusiveMinimum"] = -10
            if kind == "integer" and rng.random() < 0.1:
                schema["multipleOf"] = rng.choice([2, 5])
        return self.decorate(schema)

    def type_list(self) -> Dict[str, Any]:
        types = self.rng.sample(["string", "integer", "number", "boolean", "null", "array"], 2)
        schema: Dict[str, Any] = {"type": types}
        if "array" in types:
            schema["items"] = self.scalar()
        return self.decorate(schema)

    def enum(self) -> Dict[str, Any]:
        rng = self.rng
        pool = [rng.choice(HOSTILE_TEXTS) for _ in range(4)] + rng.sample(SCALAR_POOL, 4)
        if rng.random() < 0.5:
            pool = [value for value in pool if isinstance(value, str)]
        values: List[Any] = []
        for value in rng.sample(pool, rng.randrange(1, len(pool) + 1)):
            if not any(_same_json(value, seen) for seen in values):
                values.append(value)
        return self.decorate({"enum": values or ["only"]})

    def const(self) -> Dict[str, Any]:
        return self.decorate({"const": self.rng.choice(SCALAR_POOL + HOSTILE_TEXTS[:10])})

    def property_names(self, depth: int) -> List[str]:
        rng = self.rng
        if rng.random() < self.name_set_rate:
            return self.name_sets.name_set()
        return [self.name() for _ in range(rng.randrange(0 if depth else 1, 5))]

    def other_keys(self, depth: int) -> Any:
        """additionalProperties of an object, or None to leave it out."""
        roll = self.rng.random()
        if roll < 0.2:
            return True
        if roll < 0.4:
            return False
        return self.scalar() if roll < 0.5 else None

    def object_schema(self, depth: int) -> Dict[str, Any]:
        rng = self.rng
        properties: Dict[str, Any] = {}
        for name in self.property_names(depth):
            properties[name] = self.schema(depth + 1)
        schema: Dict[str, Any] = {"type": "object", "properties": properties}
        names = list(properties)
        schema["required"] = [n for n in names if rng.random() < 0.4]
        other_keys = self.other_keys(depth)
        if other_keys is not None:
            schema["additionalProperties"] = other_keys
        for name, property_schema in properties.items():
            if isinstance(property_schema, dict) and rng.random() < 0.1:
                if "const" in property_schema or "type" in property_schema:
                    property_schema.setdefault("default", _default_for(property_schema, rng))
        return self.decorate(schema)

    def array(self, depth: int) -> Dict[str, Any]:
        rng = self.rng
        schema: Dict[str, Any] = {"type": "array", "items": self.schema(depth + 1)}
        if rng.random() < 0.3:
            schema["minItems"] = rng.randrange(0, 3)
        if rng.random() < 0.3:
            schema["maxItems"] = schema.get("minItems", 0) + rng.randrange(0, 3)
        return self.decorate(schema)

    def alternatives(self, depth: int) -> Dict[str, Any]:
        rng = self.rng
        members = [self.schema(depth + 1) for _ in range(rng.randrange(2, 4))]
        if rng.random() < 0.3:
            members.append({"type": "null"})
        return self.decorate({rng.choice(["anyOf", "anyOf", "oneOf"]): members})

    def all_of(self, depth: int) -> Dict[str, Any]:
        first = self.reference(depth + 1, object_only=True)
        return {"allOf": [first, self.object_schema(depth + 1)]}

    def reference(self, depth: int, object_only: bool = False) -> Dict[str, Any]:
        rng = self.rng
        if self._defs and rng.random() < 0.4:
            name = rng.choice(list(self._defs))
            if not object_only or self._defs[name].get("type") == "object":
                return {"$ref": "#/$defs/" + _escape_pointer(name)}
        name = self.name() or "def"
        if rng.random() < 0.3:
            # A recursive definition: a node whose children are nodes (optional, so it ends).
            node = {"type": "object", "properties": {"label": self.scalar()}}
            self._defs[name] = node
            reference = {"$ref": "#/$defs/" + _escape_pointer(name)}
            node["properties"]["children"] = {"type": "array", "items": reference, "maxItems": 2}
            return dict(reference)
        self._defs[name] = {}  # placeholder: a nested definition may refer to this one
        target = self.object_schema(depth) if object_only else self.schema(depth)
        self._defs[name] = target if isinstance(target, dict) else {}
        return {"$ref": "#/$defs/" + _escape_pointer(name)}


class NameSetFuzzer(SchemaFuzzer):
    """Tools made for the property-name tier: every object takes a hostile name set, and
    objects sit at every level, directly, in arrays, as map values, as union members and as
    ``$defs`` (recursive ones too), in input and output schemas alike."""

    name_set_rate = 1.0

    def property_names(self, depth: int) -> List[str]:
        # Fewer properties further down: a tool stays a few dozen classes.
        return self.name_sets.name_set(most=max(2, 7 - depth))

    def kinds(self, depth: int) -> List[Tuple[Callable[[], Any], int]]:
        return [
            (self.scalar, 25),
            (lambda: self.object_schema(depth + 1), 20),
            (lambda: self.array_of_objects(depth + 1), 12),
            (lambda: self.map_of_objects(depth + 1), 8),
            (lambda: self.union_of_objects(depth + 1), 10),
            (lambda: self.reference(depth + 1, object_only=True), 10),
            (lambda: self.all_of(depth + 1), 3),
            (self.enum, 4),
        ]

    def other_keys(self, depth: int) -> Any:
        roll = self.rng.random()
        if roll < 0.35:
            return False
        if roll < 0.55:
            return True
        if roll < 0.65 and depth + 1 < self.max_depth:
            return self.object_schema(depth + 1)
        return self.scalar() if roll < 0.75 else None

    def array_of_objects(self, depth: int) -> Dict[str, Any]:
        return {"type": "array", "items": self.object_schema(depth + 1)}

    def map_of_objects(self, depth: int) -> Dict[str, Any]:
        return {"type": "object", "additionalProperties": self.object_schema(depth + 1)}

    def union_of_objects(self, depth: int) -> Dict[str, Any]:
        rng = self.rng
        members: List[Any] = [self.object_schema(depth + 1) for _ in range(rng.randrange(2, 4))]
        if rng.random() < 0.3:
            members.append({"type": "null"})
        return {rng.choice(["anyOf", "oneOf"]): members}

    def name(self) -> str:
        return self.rng.choice(self.name_sets.name_set(1) + [super().name()])


def _escape_pointer(name: str) -> str:
    from urllib.parse import quote

    return quote(name.replace("~", "~0").replace("/", "~1"), safe="")


def _default_for(schema: Dict[str, Any], rng: random.Random) -> Any:
    if "const" in schema:
        return schema["const"] if rng.random() < 0.7 else "other"
    return {"string": "d", "integer": 3, "number": 1.5, "boolean": True, "null": None}.get(
        schema.get("type") if isinstance(schema.get("type"), str) else "", None
    )


def _same_json(a: Any, b: Any) -> bool:
    return type(a) is type(b) and a == b


class Unresolvable(Exception):
    pass


class ValueMaker:
    """Builds values meant to satisfy a schema; ``root`` resolves ``$ref``."""

    def __init__(
        self, root: Any, rng: random.Random, max_depth: int = 8, open_by_default: bool = True
    ) -> None:
        self.root = root
        self.rng = rng
        self.max_depth = max_depth
        # Generated input models refuse keys the schema does not declare unless it says
        # additionalProperties (a typo guard); output models take them. Valid arguments for an
        # input schema therefore add undeclared keys only where the schema allows them.
        self.open_by_default = open_by_default

    def resolve(self, reference: str) -> Any:
        from urllib.parse import unquote

        if not reference.startswith("#"):
            raise Unresolvable(reference)
        node = self.root
        for part in [p for p in reference[1:].split("/") if p != ""]:
            part = unquote(part).replace("~1", "/").replace("~0", "~")
            if not isinstance(node, dict) or part not in node:
                raise Unresolvable(reference)
            node = node[part]
        return node

    def value(self, schema: Any, depth: int = 0) -> Any:
        rng = self.rng
        if schema is True or schema == {} or not isinstance(schema, dict):
            return self.any_value(depth)
        if "$ref" in schema:
            return self.value(self.resolve(schema["$ref"]), depth + 1)
        if "const" in schema:
            return copy.deepcopy(schema["const"])
        if "enum" in schema:
            return copy.deepcopy(rng.choice(schema["enum"]))
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self.value(rng.choice(schema[key]), depth + 1)
        if "allOf" in schema:
            return self.value(self.merge(schema["allOf"]), depth + 1)
        types = schema.get("type")
        if isinstance(types, list):
            types = rng.choice(types) if types else None
        if schema.get("nullable") is True and rng.random() < 0.2:
            return None
        if types is None:
            if "properties" in schema:
                types = "object"
            elif "items" in schema:
                types = "array"
            else:
                return self.any_value(depth)
        return getattr(self, "make_" + types, self.make_unknown)(schema, depth)

    def merge(self, members: List[Any]) -> Dict[str, Any]:
        merged: Dict[str, Any] = {"type": "object", "properties": {}, "required": []}
        for member in members:
            if isinstance(member, dict) and "$ref" in member:
                member = self.resolve(member["$ref"])
            if not isinstance(member, dict):
                continue
            merged["properties"].update(member.get("properties", {}))
            merged["required"] += member.get("required", [])
            if member.get("additionalProperties") is False:
                merged["additionalProperties"] = False
        return merged

    def any_value(self, depth: int) -> Any:
        rng = self.rng
        if depth < self.max_depth and rng.random() < 0.2:
            return {rng.choice(HOSTILE_NAMES): self.any_value(depth + 1)}
        if depth < self.max_depth and rng.random() < 0.2:
            return [self.any_value(depth + 1) for _ in range(rng.randrange(3))]
        return copy.deepcopy(rng.choice(SCALAR_POOL + HOSTILE_TEXTS[:20]))

    def make_unknown(self, schema: Dict[str, Any], depth: int) -> Any:
        return self.any_value(depth)

    def make_null(self, schema: Dict[str, Any], depth: int) -> Any:
        return None

    def make_boolean(self, schema: Dict[str, Any], depth: int) -> Any:
        return self.rng.random() < 0.5

    def make_integer(self, schema: Dict[str, Any], depth: int) -> Any:
        low = schema.get("minimum", -20)
        high = schema.get("maximum", 2**62 if self.rng.random() < 0.1 else 20)
        if isinstance(schema.get("exclusiveMinimum"), (int, float)):
            low = max(low, int(schema["exclusiveMinimum"]) + 1)
        value = self.rng.randint(int(low), int(max(low, high)))
        step = schema.get("multipleOf")
        if isinstance(step, int) and step > 0:
            value -= value % step
            if value < low:
                value += step
        return value

    def make_number(self, schema: Dict[str, Any], depth: int) -> Any:
        if self.rng.random() < 0.4:
            return self.make_integer(schema, depth)
        low = schema.get("minimum", -20)
        high = schema.get("maximum", 20)
        return round(self.rng.uniform(low, max(low, high)), 3)

    def make_string(self, schema: Dict[str, Any], depth: int) -> Any:
        rng = self.rng
        pattern = schema.get("pattern")
        if pattern is not None:
            for known, examples in PATTERNS:
                if known == pattern:
                    return rng.choice(examples)
        fmt = schema.get("format")
        if fmt in FORMATS:
            candidates = FORMATS[fmt]
            if pattern is not None:
                candidates = [c for c in candidates if c.lower().endswith("z")] or candidates
            return rng.choice(candidates)
        text = rng.choice(HOSTILE_TEXTS)
        low = schema.get("minLength", 0)
        high = schema.get("maxLength", 10**6)
        if len(text) < low:
            text += "x" * (low - len(text))
        return text[:high]

    def make_array(self, schema: Dict[str, Any], depth: int) -> Any:
        low = schema.get("minItems", 0)
        high = schema.get("maxItems", low + 3)
        if depth >= self.max_depth:
            high = low
        items = schema.get("items", True)
        return [self.value(items, depth + 1) for _ in range(self.rng.randint(low, max(low, high)))]

    def make_object(self, schema: Dict[str, Any], depth: int) -> Any:
        rng = self.rng
        if "allOf" in schema:
            schema = self.merge([schema] + list(schema["allOf"]))
        properties = schema.get("properties", {})
        required = set(schema.get("required", []))
        result: Dict[str, Any] = {}
        for name, property_schema in properties.items():
            if name in required or (depth < self.max_depth and rng.random() < 0.6):
                result[name] = self.value(property_schema, depth + 1)
        extra = schema.get("additionalProperties", self.open_by_default)
        if extra is not False and rng.random() < 0.3:
            # Keys spelled like a declared property's Python name are the ones a model could
            # take for that property.
            pool = [key for name in properties for key in shadows(name)]
            for name in rng.sample(HOSTILE_NAMES, 2) + rng.sample(pool, min(len(pool), 2)):
                if name not in properties and name not in result:
                    result[name] = self.value(extra, depth + 1)
        return result


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: booleans are not numbers, 1 equals 1.0, key order does not matter."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def first_difference(a: Any, b: Any, path: str = "$") -> Optional[str]:
    """Where two JSON values differ, for a failure message."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=repr):
            if key not in a or key not in b:
                return (
                    f"{path}[{key!r}]: {a.get(key, '<missing>')!r} vs {b.get(key, '<missing>')!r}"
                )
            found = first_difference(a[key], b[key], f"{path}[{key!r}]")
            if found:
                return found
        return None
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for index, (x, y) in enumerate(zip(a, b)):
            found = first_difference(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    return None if json_equal(a, b) else f"{path}: {a!r} vs {b!r}"
