"""JSON values in and out of tool models, kept exactly as they were written.

Pydantic converts what it validates: ``"3"`` becomes ``3`` inside a union of objects under
pydantic 1, ``1`` becomes ``True`` in ``Literal[1, True]``, ``3`` becomes ``3.0`` in a ``float``.
A tool model uses validation as a check only: ``exact_value`` puts back the plain JSON value the
caller (or the server) wrote wherever validation replaced it, and ``to_json`` turns what a model
holds into JSON without rewriting strings or numbers.

Because pydantic converts, it also lets through values the schema refuses (``"5"`` for an
integer, ``1`` for a boolean, ``True`` for ``Literal[1]``). ``kind_checker`` compiles an
annotation into a check of JSON kinds with JSON Schema's rules, which ``ToolModel`` runs before
pydantic sees the values; it also checks the ``Constraints`` an ``Annotated`` member carries.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import enum
import json
import math
import numbers
import typing
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Tuple, Union

import pydantic

from .constraints import Constraints, then_check

__all__ = ["describe", "exact_value", "is_json_scalar", "kind_checker", "to_json"]

# Above this magnitude a float cannot hold every integer exactly; such values stay floats.
_EXACT_INTEGER_LIMIT = 2**53

_JSON_SCALARS = (str, int, float, bool, type(None))


def is_json_scalar(value: Any) -> bool:
    """True for a plain ``str``, ``int``, ``float``, ``bool`` or ``None`` (not a subclass)."""
    return type(value) in _JSON_SCALARS


def exact_value(raw: Any, validated: Any) -> Any:
    """``validated`` with every plain JSON scalar of ``raw`` put back where validation changed it.

    Models and enum members stay as validated (a model keeps its own input exact, an enum member
    is its value); lists and mappings are compared item by item; anything else that is not plain
    JSON (a ``datetime`` the caller passed, say) stays as validated.
    """
    if isinstance(validated, (pydantic.BaseModel, enum.Enum)):
        return validated
    if is_json_scalar(raw):
        return raw
    if isinstance(raw, (list, tuple)) and isinstance(validated, list):
        if len(raw) != len(validated):
            return validated
        items = [exact_value(r, v) for r, v in zip(raw, validated)]
        changed = any(item is not value for item, value in zip(items, validated))
        return items if changed else validated
    if isinstance(raw, Mapping) and isinstance(validated, dict):
        if set(raw) != set(validated):
            return validated
        pairs = {key: exact_value(raw[key], value) for key, value in validated.items()}
        changed = any(pairs[key] is not value for key, value in validated.items())
        return pairs if changed else validated
    return validated


def to_json(value: Any) -> Any:
    """What a model holds, as JSON: models by their own rules, enums as values, integral floats
    as integers (``3`` stays ``3``, never ``3.0``), dates as ISO text; strings never change."""
    arguments = getattr(value, "to_arguments", None)
    if isinstance(value, pydantic.BaseModel) and callable(arguments):
        return type(value).to_arguments(value)  # type: ignore[attr-defined]
    if isinstance(value, pydantic.BaseModel):
        if int(pydantic.VERSION.split(".")[0]) >= 2:
            return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return json.loads(value.json(by_alias=True, exclude_unset=True))
    if isinstance(value, enum.Enum):
        return to_json(value.value)
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        if value.is_integer() and abs(value) < _EXACT_INTEGER_LIMIT:
            return int(value)
        return value
    if isinstance(value, decimal.Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(key): to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_json(item) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)  # URLs, paths, UUIDs: their text, never normalised


# What a generated annotation admits, checked before pydantic converts anything: JSON kinds
# as JSON Schema defines them, so "5" is never an integer, True never a number, 1 never a
# boolean, and an integer's 1.0 is one. A checker returns None for a fitting value, else the
# path below the value and a message. Annotations it does not know (datetime, custom types)
# get no checker: pydantic alone judges them.
KindCheck = Callable[[Any], Optional[Tuple[Tuple[Union[str, int], ...], str]]]


def describe(value: Any) -> str:
    """A value and its JSON kind, short enough for an error message."""
    text = repr(value)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{text} ({_kind_name(value)})"


def kind_checker(annotation: Any, namespace: Mapping[str, Any]) -> Optional[KindCheck]:
    """The checker of ``annotation`` (forward references looked up in ``namespace``)."""
    return _compile(annotation, namespace, 0)[0]


def _kind_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float, decimal.Decimal, numbers.Number)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, Mapping):
        return "an object"
    return f"a {type(value).__name__}"


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, numbers.Integral)):
        return True
    return isinstance(value, float) and math.isfinite(value) and value.is_integer()


def _is_number(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, decimal.Decimal)):
        return False
    return math.isfinite(value) if isinstance(value, float) else True


def _same_json(a: Any, b: Any) -> bool:
    if isinstance(a, enum.Enum):
        a = a.value
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if _is_number(a) and _is_number(b):
        return bool(a == b)
    return type(a) is type(b) and a == b


def _scalar(test: Callable[[Any], bool], expected: str) -> KindCheck:
    def check(value: Any) -> Optional[Tuple[Tuple[Union[str, int], ...], str]]:
        return None if test(value) else ((), f"expected {expected}, got {describe(value)}")

    return check


_SCALARS: Dict[Any, Tuple[Callable[[Any], bool], str]] = {
    int: (_is_integer, "an integer"),
    float: (_is_number, "a number"),
    str: (lambda value: isinstance(value, str), "a string"),
    bool: (lambda value: isinstance(value, bool), "a boolean"),
    type(None): (lambda value: value is None, "null"),
}


def _compile(
    annotation: Any, namespace: Mapping[str, Any], depth: int
) -> Tuple[Optional[KindCheck], str]:
    """(checker or None, what the annotation expects, in words)."""
    if depth > 64:
        return None, "a value"
    if isinstance(annotation, typing.ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        annotation = namespace.get(annotation, annotation)
        if isinstance(annotation, str):
            return None, "a value"
    if annotation is None:
        annotation = type(None)
    if annotation in _SCALARS:
        test, expected = _SCALARS[annotation]
        return _scalar(test, expected), expected
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:
        check, expected = _compile(arguments[0], namespace, depth + 1)
        marks = [mark for mark in arguments[1:] if isinstance(mark, Constraints)]
        if marks:
            expected += " with " + ", ".join(mark.summary() for mark in marks)
        return then_check(check, [mark.check for mark in marks]), expected
    if origin is Union:
        return _compile_union(arguments, namespace, depth)
    if origin is Literal:
        return _compile_literal(arguments)
    if origin in (list, List) and len(arguments) == 1:
        return _compile_list(arguments[0], namespace, depth)
    if origin in (dict, Dict) and len(arguments) == 2:
        return _compile_dict(arguments[1], namespace, depth)
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        values = tuple(member.value for member in annotation)
        return _compile_literal(values, annotation)
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        model = annotation
        return (
            _scalar(lambda value: isinstance(value, (Mapping, model)), "an object"),
            "an object",
        )
    return None, "a value"


def _compile_union(
    members: Tuple[Any, ...], namespace: Mapping[str, Any], depth: int
) -> Tuple[Optional[KindCheck], str]:
    compiled = [_compile(member, namespace, depth + 1) for member in members]
    if any(check is None for check, _ in compiled):
        return None, "a value"
    checks = [check for check, _ in compiled]
    # A model checks only that it gets an object, and pydantic validates the rest; but where
    # another member takes objects too, pydantic would fall back to it as it sees it (a map
    # without the constraints of its values), so the model is validated whole here.
    models = [_model_class(member, namespace) for member in members]
    takes_objects = [
        model is not None or typing.get_origin(_resolved(member, namespace)) in (dict, Dict)
        for member, model in zip(members, models)
    ]
    if sum(takes_objects) > 1:
        checks = [
            _whole_model_check(model) if model is not None else check
            for check, model in zip(checks, models)
        ]
    expected = " or ".join(words for _, words in compiled)

    def check(value: Any) -> Optional[Tuple[Tuple[Union[str, int], ...], str]]:
        failures = []
        for member in checks:
            failure = member(value)  # type: ignore[misc]
            if failure is None:
                return None
            failures.append(failure)
        # One alternative of the kind given (an array for List[int] | None): its own error.
        deeper = [failure for failure in failures if failure[0]]
        if len(deeper) == 1:
            return deeper[0]
        return (), f"expected {expected}, got {describe(value)}"

    return check, expected


def _resolved(annotation: Any, namespace: Mapping[str, Any]) -> Any:
    if isinstance(annotation, typing.ForwardRef):
        annotation = annotation.__forward_arg__
    if isinstance(annotation, str):
        annotation = namespace.get(annotation, annotation)
    return annotation


def _model_class(annotation: Any, namespace: Mapping[str, Any]) -> Optional[type]:
    annotation = _resolved(annotation, namespace)
    if isinstance(annotation, type) and issubclass(annotation, pydantic.BaseModel):
        return annotation
    return None


def _whole_model_check(model: Any) -> KindCheck:
    def check(value: Any) -> Optional[Tuple[Tuple[Union[str, int], ...], str]]:
        if isinstance(value, model):
            return None
        if not isinstance(value, Mapping):
            return (), f"expected an object, got {describe(value)}"
        try:
            if int(pydantic.VERSION.split(".")[0]) >= 2:
                model.model_validate(value)
            else:
                model.validate(value)
        except pydantic.ValidationError as error:
            first = error.errors()[0]
            where = ".".join(str(part) for part in first["loc"])
            return (), f"not a {model.__name__} ({where}: {first['msg']})"
        return None

    return check


def _compile_literal(
    values: Tuple[Any, ...], enumeration: Optional[type] = None
) -> Tuple[Optional[KindCheck], str]:
    shown = ", ".join(repr(value) for value in values)
    expected = repr(values[0]) if len(values) == 1 else f"one of {shown}"

    def check(value: Any) -> Optional[Tuple[Tuple[Union[str, int], ...], str]]:
        if enumeration is not None and isinstance(value, enumeration):
            return None
        if any(_same_json(value, allowed) for allowed in values):
            return None
        return (), f"expected {expected}, got {describe(value)}"

    return check, expected


def _compile_list(
    item: Any, namespace: Mapping[str, Any], depth: int
) -> Tuple[Optional[KindCheck], str]:
    item_check, item_words = _compile(item, namespace, depth + 1)

    def check(value: Any) -> Optional[Tuple[Tuple[Union[str, int], ...], str]]:
        if not isinstance(value, (list, tuple)):
            return (), f"expected an array, got {describe(value)}"
        if item_check is not None:
            for index, element in enumerate(value):
                failure = item_check(element)
                if failure is not None:
                    return (index,) + failure[0], failure[1]
        return None

    return check, "an array"


def _compile_dict(
    item: Any, namespace: Mapping[str, Any], depth: int
) -> Tuple[Optional[KindCheck], str]:
    item_check, _ = _compile(item, namespace, depth + 1)

    def check(value: Any) -> Optional[Tuple[Tuple[Union[str, int], ...], str]]:
        if not isinstance(value, Mapping):
            return (), f"expected an object, got {describe(value)}"
        for key, element in value.items():
            if not isinstance(key, str):
                return (), f"expected an object with text keys, got the key {describe(key)}"
            failure = item_check(element) if item_check is not None else None
            if failure is not None:
                return (key,) + failure[0], failure[1]
        return None

    return check, "an object"
