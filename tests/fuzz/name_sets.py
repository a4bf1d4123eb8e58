"""Hostile sets of property names for one object, and the keys that shadow them.

``NameSets(rng).name_set()`` gives the property names of one object: a few stems, each with a
family of variants that a naive JSON-name-to-Python-name mapping sends onto each other or onto
names Python or pydantic give meaning to. Stems: Python keywords and soft keywords, the names
the code generator keeps from models (``model_attribute_names.inc`` and the names class bodies
evaluate), dunders and sunders, typing and module-level names of generated code, names that are
no identifier at all. Variants: the stem, its ``_``-suffixed and numbered forms (the forms a
mangler gives), leading underscores, case changes, and spellings that Python's NFKC
normalisation folds onto the stem (``ﬁle``, ``ｃｌａｓｓ``, ``claſs``).

``shadows(name)`` lists keys an attribute name of ``name`` might be spelled as: extra keys of
an open object, or undeclared keys of a closed one, that a model must never take for ``name``.
Deterministic for a given random generator; standard library only.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import List, Set

SOURCE_DIR = Path(__file__).resolve().parents[2]
ATTRIBUTE_LIST = SOURCE_DIR / "native" / "codegen" / "src" / "model_attribute_names.inc"

# fmt: off
KEYWORDS = [
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global",
    "if", "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return",
    "try", "while", "with", "yield",
]
SOFT_KEYWORDS = ["match", "case", "type", "_"]
DUNDERS = [
    "__init__", "__fields__", "__class__", "__dict__", "__slots__", "__pydantic_self__",
    "__root__", "__annotations__", "__module__", "__doc__", "__getattr__", "__setattr__",
    "__pydantic_fields_set__", "__private_attributes__", "__config__", "__validators__",
]
SUNDERS = ["_private", "_missing_", "_tool_output", "_colliding_extra", "__", "___", "_abc_impl"]
MODULE_NAMES = [
    "Any", "Dict", "List", "Literal", "Optional", "Union", "Annotated", "Field", "Enum",
    "Constraints", "date", "datetime", "str", "int", "float", "bool", "ToolModel", "Params",
    "Result", "TextResult", "call_tool", "run", "rebuild_models", "SERVER_NAME", "TOOL_NAME",
    "self", "cls", "field", "fields",
]
# fmt: on
PLAIN = ["name", "file", "value", "a_b", "x", "items", "id", "flag"]
NOT_IDENTIFIERS = ["", " ", "a b", "a-b", "a.b", "1st", "2fa", "-", "名前", "naïve", "new\nline"]

# Spellings NFKC folds to ASCII: fullwidth letters, ligatures, the long s, the Kelvin sign.
LIGATURES = {"ffi": "\ufb03", "ffl": "\ufb04", "ff": "\ufb00", "fi": "\ufb01", "fl": "\ufb02"}


def reserved_by_models() -> List[str]:
    """The names the generator lists as taken on every model (one JSON string per line)."""
    names = []
    for line in ATTRIBUTE_LIST.read_text(encoding="utf-8").splitlines():
        line = line.strip().rstrip(",")
        if line.startswith('"'):
            names.append(json.loads(line))
    return names


def nfkc_spellings(stem: str) -> List[str]:
    """Non-ASCII spellings of an ASCII stem that NFKC folds back to it."""
    found = []
    for plain, ligature in LIGATURES.items():
        if plain in stem:
            found.append(stem.replace(plain, ligature, 1))
            break
    letters = [i for i, c in enumerate(stem) if c.isascii() and c.isalpha()]
    if letters:
        found.append("".join(chr(ord(c) + 0xFEE0) if c.isalnum() else c for c in stem))
        at = letters[-1]
        found.append(stem[:at] + chr(ord(stem[at]) + 0xFEE0) + stem[at + 1 :])
    if "s" in stem:
        found.append(stem.replace("s", "\u017f", 1))
    if "K" in stem:
        found.append(stem.replace("K", "\u212a", 1))
    return found


def ascii_base(name: str) -> str:
    """The generator's base attribute name, roughly: ASCII word characters kept, the rest `_`,
    leading `_` dropped, a leading digit prefixed."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", name).lstrip("_")
    if not base:
        return "field"
    return "field_" + base if base[0].isdigit() else base


def variants(stem: str) -> List[str]:
    """Names that a mangler may send onto `stem` or `stem` onto them."""
    base = ascii_base(stem)
    found = [stem, stem + "_", stem + "__", stem + "_2", stem + "__2", stem + "__3"]
    found += ["_" + stem, "__" + stem, "__" + stem + "__", stem + "_" * 3]
    found += [stem.upper(), stem.lower(), stem.capitalize(), stem.swapcase()]
    found += [base, base + "_", base + "__2", "field_" + base, stem + " ", stem.replace("_", "-")]
    found += nfkc_spellings(stem) + nfkc_spellings(base)
    return [name for name in dict.fromkeys(found)]


def shadows(name: str) -> List[str]:
    """Keys that might be spelled like `name`'s Python attribute, other than `name` itself."""
    base = ascii_base(name)
    found = [base, base + "_", base + "__2", base + "_2", base + "__3", "field_" + base]
    found += [name + "_", name.lstrip("_")]
    return [key for key in dict.fromkeys(found) if key != name]


class NameSets:
    """Hostile property-name sets, drawn from `rng`."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.stems = (
            KEYWORDS
            + SOFT_KEYWORDS
            + DUNDERS
            + SUNDERS
            + MODULE_NAMES
            + PLAIN
            + NOT_IDENTIFIERS
            + reserved_by_models()
        )

    def name_set(self, most: int = 8) -> List[str]:
        """1 to `most` distinct names: families of variants of 1 to 3 stems, with strays."""
        rng = self.rng
        names: Set[str] = set()
        ordered: List[str] = []
        for _ in range(rng.randrange(1, 4)):
            family = variants(rng.choice(self.stems))
            for name in rng.sample(family, min(len(family), rng.randrange(1, 5))):
                if name not in names:
                    names.add(name)
                    ordered.append(name)
        if rng.random() < 0.3:
            stray = rng.choice(self.stems)
            if stray not in names:
                ordered.append(stray)
        rng.shuffle(ordered)
        return ordered[:most]
