"""Constraints that a generated annotation carries where ``Field()`` cannot put them.

Pydantic applies ``Field(ge=..., max_length=..., pattern=...)`` only to a field's own value,
not to a member of a union, the items of a list or the values of a map. There the generated
code writes ``Annotated[str, Constraints(max_length=3)]``: the annotation says what is
accepted, neither pydantic version acts on the marker, and ``json_values.kind_checker`` checks
it with JSON Schema's rules before pydantic sees the value (numbers compared exactly, patterns
searched anywhere in the text, lengths in code points).
"""

from __future__ import annotations

import fractions
import math
import re
import typing
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

__all__ = ["Constraints", "bound_numbers", "pydantic_1_view", "then_check"]

Failure = Optional[Tuple[Tuple[Union[str, int], ...], str]]
Check = Callable[[Any], Failure]

_NUMBER_TESTS: Dict[str, Tuple[Callable[[Any, Any], bool], str]] = {
    "ge": (lambda value, bound: value >= bound, "greater than or equal to"),
    "gt": (lambda value, bound: value > bound, "greater than"),
    "le": (lambda value, bound: value <= bound, "less than or equal to"),
    "lt": (lambda value, bound: value < bound, "less than"),
    "multiple_of": (
        lambda value, bound: bound == 0 or (value / bound).denominator == 1,
        "a multiple of",
    ),
}


class Constraints:
    """The validation keywords of one JSON Schema value, spelled as ``Field()`` spells them:
    ``ge``/``gt``/``le``/``lt``/``multiple_of`` for numbers, ``min_length``/``max_length``/
    ``pattern`` for strings, ``min_items``/``max_items`` for lists. Each applies only to values
    of its kind, as in JSON Schema."""

    def __init__(
        self,
        *,
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
    ) -> None:
        numbers = {"ge": ge, "gt": gt, "le": le, "lt": lt, "multiple_of": multiple_of}
        self.numbers = {name: bound for name, bound in numbers.items() if bound is not None}
        self.min_length = min_length
        self.max_length = max_length
        self.pattern = pattern
        self.min_items = min_items
        self.max_items = max_items
        self._searcher = _compiled(pattern)

    def __repr__(self) -> str:
        return f"Constraints({self.summary()})"

    def summary(self) -> str:
        """The constraints as keyword arguments: ``max_length=3, pattern='^a'``."""
        given = dict(self.numbers)
        for name in ("min_length", "max_length", "pattern", "min_items", "max_items"):
            if getattr(self, name) is not None:
                given[name] = getattr(self, name)
        return ", ".join(f"{key}={value!r}" for key, value in given.items())

    def check(self, value: Any) -> Failure:
        """None when ``value`` keeps every constraint of its kind, else ((), a message)."""
        if isinstance(value, str):
            return self._check_text(value)
        if isinstance(value, (list, tuple)):
            return _check_count(len(value), self.min_items, self.max_items, "items")
        if self.numbers:
            return bound_numbers(self.numbers)(value)
        return None

    def _check_text(self, value: str) -> Failure:
        failure = _check_count(len(value), self.min_length, self.max_length, "characters")
        if failure is None and self._searcher is not None and not self._searcher(value):
            failure = (), f"expected a string matching {self.pattern!r}, got {value!r}"
        return failure


def bound_numbers(bounds: Dict[str, Any]) -> Check:
    """A check of numbers against ``ge``/``gt``/``le``/``lt``/``multiple_of``, exact: pydantic
    compares a float field's bound as floats, so 2**60 + 1 would pass ``le=2**60``. Values that
    are not finite numbers pass (their kind is checked elsewhere)."""
    exact_bounds = [(name, bound, fractions.Fraction(bound)) for name, bound in bounds.items()]

    def check(value: Any) -> Failure:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        if isinstance(value, float) and not math.isfinite(value):
            return None
        exact = fractions.Fraction(value)
        for name, bound, exact_bound in exact_bounds:
            test, words = _NUMBER_TESTS[name]
            if not test(exact, exact_bound):
                return (), f"expected a number {words} {bound}, got {value!r}"
        return None

    return check


def _check_count(count: int, low: Optional[int], high: Optional[int], unit: str) -> Failure:
    if low is not None and count < low:
        return (), f"expected at least {low} {unit}, got {count}"
    if high is not None and count > high:
        return (), f"expected at most {high} {unit}, got {count}"
    return None


def _compiled(pattern: Optional[str]) -> Optional[Callable[[str], Any]]:
    """``re.search`` of the pattern; None (not checked, the server still is) for a pattern
    Python cannot compile."""
    if pattern is None:
        return None
    try:
        return re.compile(pattern).search
    except (re.error, TypeError, ValueError, OverflowError, RecursionError):
        return None


def then_check(first: Optional[Check], more: List[Check]) -> Optional[Check]:
    """``first`` (None: nothing to check) followed by each of ``more``; the first failure wins."""
    if not more:
        return first
    if first is None and len(more) == 1:
        return more[0]

    def checked(value: Any) -> Failure:
        failure = first(value) if first is not None else None
        if failure is not None:
            return failure
        for check in more:
            failure = check(value)
            if failure is not None:
                return failure
        return None

    return checked


def pydantic_1_view(annotation: Any) -> Any:
    """The annotation as pydantic 1 should see it: without ``Annotated`` (its smart union takes
    no member of that form for an exact match, and would turn ``[]`` into ``{}`` for
    ``Union[Dict[str, int], Annotated[List[str], ...]]``), and with ``Optional[_Null]`` for the
    items of a list or map of nulls (``List[None]`` makes pydantic 1 refuse ``None`` for
    ``Optional[List[None]]``; ``Any`` would let a union take ``{"a": "0"}`` for a map of nulls).
    The annotation as written stays the one ``kind_checker`` checks."""
    origin = typing.get_origin(annotation)
    arguments = typing.get_args(annotation)
    if origin is typing.Annotated:
        return pydantic_1_view(arguments[0])
    if origin is Union:
        return Union[tuple(pydantic_1_view(argument) for argument in arguments)]
    if origin is list and len(arguments) == 1:
        return List[_item_view(arguments[0])]  # type: ignore[misc]
    if origin is dict and len(arguments) == 2:
        return Dict[arguments[0], _item_view(arguments[1])]  # type: ignore[misc,valid-type]
    return annotation


_NONE_TYPE = type(None)


class _Null:
    """Pydantic 1's item type for a list or map of nulls: ``Optional[_Null]`` takes ``None``
    and refuses everything else."""

    @classmethod
    def __get_validators__(cls) -> Any:
        yield cls._refuse

    @staticmethod
    def _refuse(value: Any) -> Any:
        raise ValueError(f"expected null, got {value!r}")


def _item_view(item: Any) -> Any:
    return Optional[_Null] if item is _NONE_TYPE else pydantic_1_view(item)
