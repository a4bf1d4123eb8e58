"""Base class and ``Field()`` for the models of generated tool modules.

Generated code imports only ``ToolModel``, ``Field`` and ``rebuild_models`` from here, and this
module hides the differences between pydantic 1.10 and 2.x, so the same generated files work on
both:

* population by field name *and* by alias (``Params(my_field=1)`` as well as
  ``Params(**{"my-field": 1})``);
* ``Field()`` takes one spelling (``pattern=``, ``min_items=``/``max_items=`` for lists) and
  translates it for the installed version;
* ``to_arguments()`` builds the JSON arguments of a tool call the same way on both versions.
"""

from __future__ import annotations

import base64
import datetime as _datetime
import decimal
import enum
import json
import re
import typing
from typing import Any, Dict, Mapping, Optional, Type, TypeVar

import pydantic

from .errors import ToolRunnerError

__all__ = ["PYDANTIC_V2", "Field", "ToolModel", "rebuild_models"]

PYDANTIC_V2 = int(pydantic.VERSION.split(".")[0]) >= 2

_Model = TypeVar("_Model", bound="ToolModel")

# Above this magnitude a float cannot hold every integer exactly; such values stay floats.
_EXACT_INTEGER_LIMIT = 2**53

_GLOBAL_FLAGS = re.compile(r"^\(\?[aiLmsux]+\)")


def _usable_pattern(pattern: str) -> Optional[str]:
    """The pattern in a form the installed pydantic applies with JSON Schema semantics.

    JSON Schema patterns match anywhere in the string (``re.search``); pydantic 1 anchors them
    at the start (``re.match``), so there the pattern is prefixed to skip ahead. Patterns Python
    cannot compile (ECMAScript-only syntax) are dropped rather than breaking the import: the
    server still validates its own input.
    """
    try:
        re.compile(pattern)
    except (re.error, TypeError, ValueError, OverflowError, RecursionError):
        return None
    if PYDANTIC_V2:
        return pattern
    flags = _GLOBAL_FLAGS.match(pattern)
    prefix = flags.group(0) if flags else ""
    searching = f"{prefix}(?s:.*?)(?:{pattern[len(prefix):]})"
    try:
        re.compile(searching)
    except (re.error, RecursionError):
        return None
    return searching


def Field(  # noqa: N802 - mirrors pydantic.Field
    default: Any = ...,
    *,
    alias: Optional[str] = None,
    description: Optional[str] = None,
    title: Optional[str] = None,
    default_factory: Optional[typing.Callable[[], Any]] = None,
    ge: Any = None,
    gt: Any = None,
    le: Any = None,
    lt: Any = None,
    multiple_of: Any = None,
    min_length: Optional[int] = None,
    max_length: Optional[int] = None,
    pattern: Optional[str] = None,
    min_items: Optional[int] = None,
    max_items: Optional[int] = None,
) -> Any:
    """``pydantic.Field`` with one spelling for both pydantic versions.

    ``min_length``/``max_length``/``pattern`` constrain strings; ``min_items``/``max_items``
    constrain lists (pydantic 2 calls both ``min_length``/``max_length``). An invalid
    ``pattern`` is ignored (see ``_usable_pattern``).
    """
    options: Dict[str, Any] = {
        "alias": alias,
        "description": description,
        "title": title,
        "ge": ge,
        "gt": gt,
        "le": le,
        "lt": lt,
        "multiple_of": multiple_of,
        "min_length": min_length if min_length is not None else min_items,
        "max_length": max_length if max_length is not None else max_items,
    }
    if not PYDANTIC_V2:
        options.update(min_length=min_length, max_length=max_length)
        options.update(min_items=min_items, max_items=max_items)
    if pattern is not None:
        usable = _usable_pattern(pattern)
        if usable is not None:
            options["pattern" if PYDANTIC_V2 else "regex"] = usable
    options = {key: value for key, value in options.items() if value is not None}
    if default_factory is not None:
        return pydantic.Field(default_factory=default_factory, **options)
    return pydantic.Field(default, **options)


def _config_v2() -> Any:
    known = getattr(pydantic.ConfigDict, "__annotations__", {})
    config: Dict[str, Any] = {"extra": "forbid", "protected_namespaces": ()}
    if "validate_by_name" in known:
        config.update(validate_by_name=True, validate_by_alias=True)
    else:
        config["populate_by_name"] = True
    if "regex_engine" in known:
        config["regex_engine"] = "python-re"  # lookarounds and backreferences, as in v1
    return pydantic.ConfigDict(**config)


class ToolModel(pydantic.BaseModel):
    """Base of every generated model (``Params``, ``Result`` and their nested classes).

    Unknown fields are refused by default: a typo such as ``Params(qeury=...)`` fails in the
    kernel instead of reaching the server, whose error would be less clear. Generated input
    models whose schema allows additional properties, and all output models (so that a server
    adding fields never breaks parsing), are declared with ``extra='allow'``.
    """

    if PYDANTIC_V2:
        model_config = _config_v2()
    else:

        class Config:
            allow_population_by_field_name = True
            extra = pydantic.Extra.forbid
            smart_union = True  # Union[str, int] keeps 5 an int, as pydantic 2 does

    def to_arguments(self) -> Dict[str, Any]:
        """The JSON arguments of a tool call built from this model.

        Keys are the original (aliased) property names. A field is sent when the caller set it,
        or when it is a constant (``Literal`` with one value) the schema defines. ``None`` on a
        field that is not required counts as "not given" and is left out. Values are plain JSON:
        nested models become dicts by the same rules, enums their values, dates ISO strings, and
        whole-number floats integers (``3`` stays ``3``, never ``3.0``).
        """
        model = type(self)
        fields_set = self.model_fields_set if PYDANTIC_V2 else self.__fields_set__
        arguments: Dict[str, Any] = {}
        for name, field in _model_fields(model).items():
            value = getattr(self, name)
            if name in fields_set:
                if value is None and not _is_required(field):
                    continue
            elif value is None or not _is_constant(field):
                continue
            alias = field.alias
            arguments[name if alias is None else alias] = _to_json(value)
        for key, value in _extra_values(self).items():
            arguments[key] = _to_json(value)
        return arguments

    @classmethod
    def from_structured(cls: Type[_Model], data: Any) -> _Model:
        """Parses a tool's structured result into this model.

        ``data`` is a mapping, or the ``ToolOutput`` of ``call_tool``: its ``structured`` content,
        else its text when that holds a JSON object (servers are asked to send both).
        Raises ``ToolRunnerError`` when there is no structured content at all, and pydantic's
        ``ValidationError`` when the content does not fit the model.
        """
        content = data
        if not isinstance(data, Mapping) and hasattr(data, "structured"):
            content = data.structured
            if content is None:
                content = _json_object(getattr(data, "text", None))
        if content is None:
            raise ToolRunnerError(
                f"the tool returned no structured content to parse into {cls.__name__}"
            )
        if PYDANTIC_V2:
            return cls.model_validate(content)
        return cls.parse_obj(content)


def rebuild_models(*models: Type[ToolModel]) -> None:
    """Resolves forward references of recursive models once the module defines every class."""
    for model in models:
        if PYDANTIC_V2:
            model.model_rebuild(force=True)
        else:
            model.update_forward_refs()


def _model_fields(model: Type[pydantic.BaseModel]) -> Mapping[str, Any]:
    return model.model_fields if PYDANTIC_V2 else model.__fields__


def _is_required(field: Any) -> bool:
    return bool(field.is_required()) if PYDANTIC_V2 else field.required is True


def _is_constant(field: Any) -> bool:
    annotation = field.annotation
    return typing.get_origin(annotation) is typing.Literal and len(typing.get_args(annotation)) == 1


def _extra_values(model: pydantic.BaseModel) -> Dict[str, Any]:
    if PYDANTIC_V2:
        return dict(model.model_extra or {})
    fields = model.__fields__
    return {key: value for key, value in model.__dict__.items() if key not in fields}


def _json_object(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _to_json(value: Any) -> Any:
    if isinstance(value, ToolModel):
        return value.to_arguments()
    if isinstance(value, pydantic.BaseModel):
        if PYDANTIC_V2:
            return value.model_dump(mode="json", by_alias=True, exclude_unset=True)
        return json.loads(value.json(by_alias=True, exclude_unset=True))
    if isinstance(value, enum.Enum):
        return _to_json(value.value)
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
    if isinstance(value, (_datetime.datetime, _datetime.date, _datetime.time)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(key): _to_json(item) for key, item in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_to_json(item) for item in value]
    if isinstance(value, (bytes, bytearray)):
        return base64.b64encode(bytes(value)).decode("ascii")
    return str(value)  # URLs, paths, UUIDs: their text, never normalised
