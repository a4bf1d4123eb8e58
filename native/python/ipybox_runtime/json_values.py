"""JSON values in and out of tool models, kept exactly as they were written.

Pydantic converts what it validates: ``"3"`` becomes ``3`` inside a union of objects under
pydantic 1, ``1`` becomes ``True`` in ``Literal[1, True]``, ``3`` becomes ``3.0`` in a ``float``.
A tool model uses validation as a check only: ``exact_value`` puts back the plain JSON value the
caller (or the server) wrote wherever validation replaced it, and ``to_json`` turns what a model
holds into JSON without rewriting strings or numbers.
"""

from __future__ import annotations

import base64
import datetime
import decimal
import enum
import json
from typing import Any, Mapping

import pydantic

__all__ = ["exact_value", "is_json_scalar", "to_json"]

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
