"""Base class and ``Field()`` for the models of generated tool modules.

Generated code imports only ``ToolModel``, ``Field``, ``Constraints`` and ``rebuild_models``
from here, and this module hides the differences between pydantic 1.10 and 2.x, so the same
generated files work on both:

* keys go by property name (the alias) only: JSON (``from_arguments``, ``from_structured``)
  and keyword arguments alike, so a key is never taken for another property; a keyword may
  also be the Python name of a field (``Params(my_field=1)`` as well as
  ``Params(**{"my-field": 1})``) where the model refuses undeclared keys, and only there: in a
  model that keeps them, ``my_field`` is an undeclared key of its own;
* ``model_dump()``/``dict()`` and their JSON forms use property names by default, as
  ``to_arguments()`` does;
* ``Field()`` takes one spelling (``pattern=``, ``min_items=``/``max_items=`` for lists) and
  translates it for the installed version; ``Constraints()`` in ``Annotated[...]`` takes the
  same spelling where ``Field()`` cannot reach (union members, items, map values), and the
  runtime checks it (see ``constraints``);
* ``to_arguments()`` builds the JSON arguments of a tool call the same way on both versions,
  from the values exactly as they were written (see ``json_values``);
* ``from_arguments()``/``from_structured()`` read JSON: keys are the schema's property names.
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import re
import sys
import typing
import warnings
from typing import Any, Dict, Iterator, List, Mapping, Optional, Tuple, Type, TypeVar

import pydantic

from .constraints import Constraints, bound_numbers, pydantic_1_view, then_check
from .errors import ToolRunnerError
from .json_values import KindCheck, describe, exact_value, kind_checker, to_json

__all__ = ["PYDANTIC_V2", "Constraints", "Field", "ToolModel", "rebuild_models"]

PYDANTIC_V2 = int(pydantic.VERSION.split(".")[0]) >= 2

if PYDANTIC_V2:
    from pydantic_core import PydanticCustomError
else:
    from pydantic.error_wrappers import ErrorWrapper
    from pydantic.errors import ExtraError
    from pydantic.main import validate_model

# Set while from_arguments() reads JSON, down through nested models: keys are property names.
_READING_JSON: contextvars.ContextVar[bool] = contextvars.ContextVar("_READING_JSON", default=False)

# Set while a model validates what it was given, so that the models validated inside it (the
# dicts of a keyword's value, union alternatives tried) know they are values, not keywords: a
# None there is JSON null, never "not given".
_INSIDE_MODEL: contextvars.ContextVar[bool] = contextvars.ContextVar("_INSIDE_MODEL", default=False)


@contextlib.contextmanager
def _inside_model() -> Iterator[bool]:
    """Marks what is validated from here on as values inside a model (_INSIDE_MODEL), and yields
    whether a ``None`` given to the model validated now is JSON null: in JSON being read, or in
    a model that is itself a value; not for the keywords of the model being built."""
    none_is_null = _READING_JSON.get() or _INSIDE_MODEL.get()
    token = _INSIDE_MODEL.set(True)
    try:
        yield none_is_null
    finally:
        _INSIDE_MODEL.reset(token)


# Markers that Field() records on a field for to_arguments().
_FLAG_PREFIX = "ipybox_"

_Model = TypeVar("_Model", bound="ToolModel")

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
    nullable: bool = False,
    constant: bool = False,
) -> Any:
    """``pydantic.Field`` with one spelling for both pydantic versions.

    ``min_length``/``max_length``/``pattern`` constrain strings; ``min_items``/``max_items``
    constrain lists (pydantic 2 calls both ``min_length``/``max_length``). An invalid
    ``pattern`` is ignored (see ``_usable_pattern``). ``nullable=True``: the schema admits
    null, so a ``None`` the caller sets is sent. ``constant=True``: a constant the schema
    requires, sent even when the caller leaves it out.
    """
    # Pydantic 1 refuses both bounds of one side; the stricter one is enough.
    if ge is not None and gt is not None:
        ge, gt = (None, gt) if gt >= ge else (ge, None)
    if le is not None and lt is not None:
        le, lt = (None, lt) if lt <= le else (le, None)
    bounds = {"ge": ge, "gt": gt, "le": le, "lt": lt, "multiple_of": multiple_of}
    bounds = {key: value for key, value in bounds.items() if value is not None}
    # The kind check applies the bounds exactly (_numeric_bounds). Pydantic 2 gets them too,
    # but not multiple_of, which it tests in floats (2**60 + 5 would be no multiple of 5);
    # pydantic 1 gets none: it also compares a rounded float with the exact bound.
    exact_only = ("multiple_of",) if PYDANTIC_V2 else tuple(bounds)
    options: Dict[str, Any] = {
        "alias": alias,
        "description": description,
        "title": title,
        **{key: value for key, value in bounds.items() if key not in exact_only},
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
    flags: Dict[str, Any] = {
        _FLAG_PREFIX + "nullable": nullable,
        _FLAG_PREFIX + "constant": constant,
    }
    flags = {key: True for key, value in flags.items() if value}
    if bounds:
        flags[_FLAG_PREFIX + "bounds"] = bounds
    if flags:
        if PYDANTIC_V2:
            options["json_schema_extra"] = flags
        else:
            options.update(flags)
    if default_factory is not None:
        return pydantic.Field(default_factory=default_factory, **options)
    return pydantic.Field(default, **options)


def _config_v2() -> Any:
    known = getattr(pydantic.ConfigDict, "__annotations__", {})
    # Pydantic reads keys by alias only: a Python name a caller passes as a keyword is turned
    # into the property name before pydantic sees it (_keywords_to_properties), where that
    # cannot take a key meant for something else.
    config: Dict[str, Any] = {"extra": "forbid", "protected_namespaces": ()}
    if "validate_by_name" in known:
        config.update(validate_by_name=False, validate_by_alias=True)
    else:
        config["populate_by_name"] = False
    if "regex_engine" in known:
        config["regex_engine"] = "python-re"  # lookarounds and backreferences, as in v1
    return pydantic.ConfigDict(**config)


class _ModelMetaclass(type(pydantic.BaseModel)):  # type: ignore[misc]
    """Pydantic 1: pydantic sees the annotations as ``constraints.pydantic_1_view`` gives them;
    those written in the class body are kept in ``__ipybox_annotations__`` for the kind checks.
    """

    def __new__(mcs, name: str, bases: Any, namespace: Dict[str, Any], **kwargs: Any) -> Any:
        written = namespace.get("__annotations__")
        if not PYDANTIC_V2 and written:
            seen = {key: pydantic_1_view(value) for key, value in written.items()}
            if seen != written:
                namespace["__ipybox_annotations__"] = dict(written)
                namespace["__annotations__"] = seen
        return super().__new__(mcs, name, bases, namespace, **kwargs)


class ToolModel(pydantic.BaseModel, metaclass=_ModelMetaclass):
    """Base of every generated model (``Params``, ``Result`` and their nested classes).

    Unknown fields are refused by default: a typo such as ``Params(qeury=...)`` fails in the
    kernel instead of reaching the server, whose error would be less clear. Generated input
    models whose schema allows additional properties, and all output models (so that a server
    adding fields never breaks parsing), are declared with ``extra='allow'``.

    Validation first checks JSON kinds the way JSON Schema does (``json_values.kind_checker``):
    ``"5"`` is no integer, ``1`` no boolean, ``True`` no number, and a wrong kind anywhere
    inside a list, map or union is refused with a ``pydantic.ValidationError`` located at the
    property name, under both pydantic versions. Validation is a check, not a rewrite: after
    it, every field holds the plain JSON value that was given (see
    ``json_values.exact_value``), so what the caller wrote is what the server gets, and what
    the server sent is what ``Result`` holds. Any property name works as a
    keyword, ``__pydantic_self__`` included.

    Keys are property names. A keyword may also be a field's Python name where the model
    refuses undeclared keys (the generator never gives a field the name of another property,
    so that is never ambiguous); in a model that keeps them, such a keyword is an undeclared
    key of its own, and a warning says how to set the field.
    """

    _tool_output: Any = pydantic.PrivateAttr(default=None)

    if PYDANTIC_V2:
        model_config = _config_v2()

        def __init__(self, /, **data: Any) -> None:
            # Pydantic 2 calls an overridden __init__ for nested models and model_validate too;
            # only keywords (not JSON being read) may use Python names.
            if not _READING_JSON.get():
                data = _keywords_to_properties(type(self), data, stacklevel=3)
            super().__init__(**data)

        def model_dump(self, **options: Any) -> Dict[str, Any]:
            """``pydantic.BaseModel.model_dump``, by property name unless ``by_alias=False``."""
            options.setdefault("by_alias", True)
            return super().model_dump(**options)

        def model_dump_json(self, **options: Any) -> str:
            """``pydantic.BaseModel.model_dump_json``, by property name unless
            ``by_alias=False``."""
            options.setdefault("by_alias", True)
            return super().model_dump_json(**options)

        @pydantic.model_validator(mode="wrap")
        @classmethod
        def _keep_written_values(cls, data: Any, handler: Any) -> Any:
            hidden: Dict[str, Any] = {}
            with _inside_model() as none_is_null:
                if isinstance(data, Mapping):
                    _refuse_wrong_kinds(cls, data, none_is_null)
                    if _is_open(cls):
                        # A key equal to a field's Python name is an extra. Pydantic counts
                        # extras in model_fields_set, where it would stand for the field: it
                        # goes into the extras after validation instead.
                        data, hidden = _split_python_names(cls, data)
                model = handler(data)
            if hidden and isinstance(model, ToolModel) and model.__pydantic_extra__ is not None:
                model.__pydantic_extra__.update(hidden)
            if isinstance(data, Mapping) and isinstance(model, ToolModel):
                _restore_written_values(model, data)
            return model

    else:
        _colliding_extra: Dict[str, Any] = pydantic.PrivateAttr(default_factory=dict)

        class Config:
            allow_population_by_field_name = False  # see _keywords_to_properties
            extra = pydantic.Extra.forbid
            smart_union = True  # Union[str, int] keeps 5 an int, as pydantic 2 does

        def __init__(*args: Any, **data: Any) -> None:
            # `self` only positionally: pydantic 1 names it `__pydantic_self__`, which a
            # property may be called too.
            self = args[0]
            _init_v1(self, data)

        @classmethod
        def validate(cls: Type[_Model], value: Any) -> _Model:
            """Pydantic 1 validates nested models here, JSON as JSON and keywords as keywords."""
            if isinstance(value, Mapping) and _READING_JSON.get():
                return cls.from_arguments(value)
            if isinstance(value, Mapping):
                return cls(**value)
            return super().validate(value)  # type: ignore[misc]

        def dict(self, **options: Any) -> Dict[str, Any]:  # type: ignore[override]
            """``pydantic.BaseModel.dict``, by property name unless ``by_alias=False``."""
            options.setdefault("by_alias", True)
            return super().dict(**options)

        def json(self, **options: Any) -> str:  # type: ignore[override]
            """``pydantic.BaseModel.json``, by property name unless ``by_alias=False``."""
            options.setdefault("by_alias", True)
            return super().json(**options)

    def to_arguments(self) -> Dict[str, Any]:
        """The JSON arguments of a tool call built from this model.

        Keys are the original (aliased) property names. A field is sent when the caller set it,
        or when it is a constant the schema requires (``Field(..., constant=True)``). ``None``
        on a field that is not required is sent only when the schema admits null (the field is
        ``Any``, ``None`` or declared ``nullable``); elsewhere it counts as "not given". That
        holds for keywords of a model being built (``Params(limit=None)``); inside a value given
        to it (``Params(date={"label": None})``), ``None`` is JSON null, refused where the schema
        admits none, so it never picks an alternative that would drop it. Values
        are plain JSON: nested models become dicts by the same rules, enums their values, and
        whole-number floats integers (``3`` stays ``3``, never ``3.0``).
        """
        model = type(self)
        fields_set = self.model_fields_set if PYDANTIC_V2 else self.__fields_set__
        arguments: Dict[str, Any] = {}
        for name, field in _model_fields(model).items():
            if name in fields_set:
                value = self.__dict__.get(name)
                if value is None and not _sends_none(field):
                    continue
            elif _field_flag(field, "constant"):
                value = _field_default(field)
            else:
                continue
            arguments[_json_name(name, field)] = to_json(value)
        for key, value in _extra_values(self).items():
            arguments[key] = to_json(value)
        return arguments

    @classmethod
    def from_arguments(cls: Type[_Model], data: Mapping[str, Any]) -> _Model:
        """Validates JSON (keys spelled as the schema spells them) into this model.

        Keys are property names only, at every level: a key equal to a field's Python name
        (``my_field`` next to a property ``my-field``) is an extra key, kept by a model that
        allows them and refused by one that does not.
        """
        token = _READING_JSON.set(True)
        try:
            if PYDANTIC_V2:
                return cls.model_validate(dict(data))
            model = cls.__new__(cls)
            _init_v1(model, dict(data), from_json=True)
            return model
        finally:
            _READING_JSON.reset(token)

    def tool_output(self) -> Any:
        """The whole output of the call this model was parsed from (``Result`` of ``run()``):
        a ``tool_client.ToolOutput`` with ``text``, ``content`` (every content item),
        ``images``, ``audio``, ``resources``, ``resource_links`` and ``structured``; ``None``
        for a model built any other way."""
        return self._tool_output

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
        if not isinstance(content, Mapping):
            model = cls.model_validate(content) if PYDANTIC_V2 else cls.parse_obj(content)
        else:
            model = cls.from_arguments(content)
        if content is not data:
            model._tool_output = data
        return model


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


def _is_open(model: Type[pydantic.BaseModel]) -> bool:
    if PYDANTIC_V2:
        return model.model_config.get("extra") == "allow"
    return model.__config__.extra == pydantic.Extra.allow


def _json_name(name: str, field: Any) -> str:
    return name if field.alias is None else field.alias


def _field_flag(field: Any, flag: str) -> bool:
    if PYDANTIC_V2:
        extra = field.json_schema_extra
        return isinstance(extra, dict) and extra.get(_FLAG_PREFIX + flag) is True
    return field.field_info.extra.get(_FLAG_PREFIX + flag) is True


def _field_default(field: Any) -> Any:
    return field.default


def _annotation(field: Any) -> Any:
    return field.annotation if PYDANTIC_V2 else field.outer_type_


def _sends_none(field: Any) -> bool:
    """A ``None`` the caller set goes out as JSON null where the schema admits null."""
    if _is_required(field) or _field_flag(field, "nullable"):
        return True
    annotation = _annotation(field)
    return any(annotation is kind for kind in (Any, None, type(None)))


def _restore_written_values(model: ToolModel, data: Mapping[str, Any]) -> None:
    fields_set = model.model_fields_set if PYDANTIC_V2 else model.__fields_set__
    for name, field in _model_fields(type(model)).items():
        key = _json_name(name, field)
        if name not in fields_set or key not in data:
            continue
        validated = model.__dict__.get(name)
        written = exact_value(data[key], validated)
        if written is not validated:
            model.__dict__[name] = written


# model class -> [(python name, property name, checker or None, whether JSON null is allowed)],
# built at its first validation, when the module that defines it (and the targets of its forward
# references) is complete.
_KindChecks = List[Tuple[str, str, Optional[KindCheck], bool]]
_KIND_CHECKS: Dict[type, _KindChecks] = {}


def _field_annotation(model: type, name: str) -> Tuple[Any, Mapping[str, Any]]:
    """The annotation as written in the class body, and the namespace to resolve it in."""
    for klass in model.__mro__:
        annotations = klass.__dict__.get("__ipybox_annotations__") or klass.__dict__.get(
            "__annotations__", {}
        )
        if name in annotations:
            module = sys.modules.get(klass.__module__)
            return annotations[name], vars(module) if module is not None else {}
    return Any, {}


def _kind_checks(model: type) -> _KindChecks:
    checks = _KIND_CHECKS.get(model)
    if checks is None:
        checks = []
        for name, field in _model_fields(model).items():
            annotation, namespace = _field_annotation(model, name)
            if isinstance(annotation, str):
                try:
                    annotation = eval(annotation, dict(namespace))  # noqa: S307 - our own classes
                except Exception:  # noqa: BLE001 - unknown names: pydantic alone judges
                    continue
            check = kind_checker(annotation, namespace)
            bounds = _numeric_bounds(field)
            if check is not None and bounds:
                check = then_check(check, [bound_numbers(bounds)])
            if check is not None or not _sends_none(field):
                checks.append((name, _json_name(name, field), check, _sends_none(field)))
        _KIND_CHECKS[model] = checks
    return checks


def _numeric_bounds(field: Any) -> Dict[str, Any]:
    """ge/gt/le/lt/multiple_of of a field (as Field() recorded them), for an exact check of the
    written number: pydantic compares a float field's bound as floats, so 2**60 + 1 would pass
    ``le=2**60``."""
    if PYDANTIC_V2:
        extra = field.json_schema_extra
    else:
        extra = field.field_info.extra
    bounds = extra.get(_FLAG_PREFIX + "bounds") if isinstance(extra, dict) else None
    return dict(bounds) if isinstance(bounds, dict) else {}


def _refuse_wrong_kinds(model: type, data: Mapping[str, Any], none_is_null: bool) -> None:
    """Raises pydantic's ValidationError, located at the property name, for every value whose
    JSON kind (or constraint) the field's annotation does not admit; pydantic would convert
    some of them. Where ``none_is_null`` (JSON being read, or a value inside what a model was
    given), a null where the schema admits none is refused too: only the ``None`` of a keyword
    argument of the model being built means "not given". Inside a value, ``None`` is null, so
    that of two object alternatives differing in whether a property admits null, the one that
    admits it is the one that takes ``{"label": None}``."""
    failures = []
    for _, key, check, null_allowed in _kind_checks(model):
        if key not in data:
            continue
        value = data[key]
        if value is None and not null_allowed and none_is_null:
            failure: Any = (
                (),
                f"expected a value, got {describe(None)}: the schema admits no null",
            )
        else:
            failure = check(value) if check is not None else None
        if failure is not None:
            failures.append(((key,) + failure[0], failure[1], data[key]))
    if not failures:
        return
    if PYDANTIC_V2:
        line_errors = [
            {
                "type": PydanticCustomError("json_kind", "{message}", {"message": message}),
                "loc": location,
                "input": value,
            }
            for location, message, value in failures
        ]
        raise pydantic.ValidationError.from_exception_data(model.__name__, line_errors)
    errors = [ErrorWrapper(ValueError(message), loc=location) for location, message, _ in failures]
    raise pydantic.ValidationError(errors, model)


def _init_v1(model: Any, data: Dict[str, Any], from_json: bool = False) -> None:
    """Pydantic 1 construction without keyword arguments, extras kept apart from methods."""
    with _inside_model() as none_is_null:
        _validate_v1(model, data, from_json, none_is_null)


def _validate_v1(model: Any, data: Dict[str, Any], from_json: bool, none_is_null: bool) -> None:
    cls = type(model)
    fields = cls.__fields__
    if not from_json:
        data = _keywords_to_properties(cls, data, stacklevel=5)
    # Only property names reach pydantic; every other key is an extra, kept apart below (named
    # like a method or a field's Python name it would otherwise hide or replace it) or refused.
    aliases = {_json_name(name, field) for name, field in fields.items()}
    known = {key: value for key, value in data.items() if key in aliases}
    extras = {key: value for key, value in data.items() if key not in known}
    if extras and not _is_open(cls):
        errors = [ErrorWrapper(ExtraError(), loc=key) for key in extras]
        # With what else is wrong, as pydantic 2 reports it: a misspelt field name is most often
        # a required field missing too ("file" for "path"), and the error should say both.
        _, _, invalid = validate_model(cls, known)
        if invalid is not None:
            errors.extend(invalid.raw_errors)
        raise pydantic.ValidationError(errors, cls)
    _refuse_wrong_kinds(cls, known, none_is_null)
    values, fields_set, error = validate_model(cls, known)
    if error is not None:
        raise error
    colliding: Dict[str, Any] = {}
    for key in [key for key in values if key not in fields]:
        extras[key] = values.pop(key)
    for key, value in extras.items():
        if hasattr(cls, key) or key in fields:
            colliding[key] = value
        else:
            values[key] = value
    object.__setattr__(model, "__dict__", values)
    object.__setattr__(model, "__fields_set__", fields_set)
    model._init_private_attributes()
    model._colliding_extra.update(colliding)
    _restore_written_values(model, known)


def _split_python_names(cls: Any, data: Mapping[str, Any]) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """(data without the keys that are only a field's Python name, those keys)."""
    kept = dict(data)
    hidden: Dict[str, Any] = {}
    for name, field in _model_fields(cls).items():
        if field.alias is not None and field.alias != name and name in kept:
            hidden[name] = kept.pop(name)
    return kept, hidden


def _keywords_to_properties(cls: Any, data: Dict[str, Any], stacklevel: int) -> Dict[str, Any]:
    """Keyword arguments with property names as keys.

    In a model that refuses undeclared keys, a field's Python name stands for its property
    (unless the property name is given too: then the Python name is refused as undeclared).
    The generator never gives a field the name of another property, so this cannot take a key
    meant for another field. In a model that keeps undeclared keys, any key may be one, so a
    Python name stays a key of its own; a warning says how to set the field instead.
    """
    renamed = dict(data)
    open_model = _is_open(cls)
    for name, field in _model_fields(cls).items():
        alias = _json_name(name, field)
        if alias == name or name not in renamed or alias in renamed:
            continue
        if not open_model:
            renamed[alias] = renamed.pop(name)
        else:
            warnings.warn(
                f"{cls.__name__}: keyword {name!r} is sent as a property of its own, named "
                f"{name!r}; {cls.__name__} keeps undeclared properties. To set the field "
                f"{name} (property {alias!r}), pass **{{{alias!r}: ...}}.",
                stacklevel=stacklevel,
            )
    return renamed


def _extra_values(model: pydantic.BaseModel) -> Dict[str, Any]:
    if PYDANTIC_V2:
        return dict(model.model_extra or {})
    fields = model.__fields__
    values = {key: value for key, value in model.__dict__.items() if key not in fields}
    values.update(model._colliding_extra)
    return values


def _json_object(text: Any) -> Any:
    if not isinstance(text, str):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
