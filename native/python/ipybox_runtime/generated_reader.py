"""A fast reader for the tool modules ipybox generates (``mcptools/<server>/<tool>.py``).

The search index needs little of a generated module: its docstring, the fields of its model
classes (name, type, description, required) and the return type of ``run``. Parsing the whole
module with ``ast`` is most of the cost of a first index build, so this reads the regular layout
ipybox writes line by line. It returns ``None`` for anything it does not fully recognise (a
string with escapes or prefixes, a statement it does not know, a hand-edited file), and the
caller then parses the module with ``ast``: the result is the same either way (pinned by
tests/python/test_search.py over every golden module). Standard library only.
"""

from __future__ import annotations

import ast
import inspect
import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

__all__ = ["ClassOutline", "ModuleOutline", "outline_from_ast", "read_generated"]

# (name, annotation as ast.unparse writes it, description, required)
Field = Tuple[str, str, str, bool]


@dataclass
class ClassOutline:
    name: str
    docstring: str
    fields: List[Field] = field(default_factory=list)
    # An enum's members' values, each as repr() writes it ("'size'", "2"), in their order.
    values: List[str] = field(default_factory=list)


@dataclass
class ModuleOutline:
    docstring: str
    classes: List[ClassOutline]
    functions: Dict[str, Optional[str]]  # top-level function -> its return annotation


class _Unrecognised(Exception):
    """Something a generated module would not contain: read it with ast instead."""


_CLASS = re.compile(r"class ([A-Za-z_][A-Za-z0-9_]*)(\(.*\))?:$")
_DEF = re.compile(r"def ([A-Za-z_][A-Za-z0-9_]*)\(.*\)(?: -> (.+))?:$")
_TOP_LEVEL_SKIPPED = re.compile(
    r"(from \S+ import [^()]+|import [^()]+|[A-Z_]+ = .*|rebuild_models\([A-Za-z0-9_, ]*\))$"
)
_MEMBER = re.compile(r"    [A-Za-z_][A-Za-z0-9_]* = ")
_FIELD_START = re.compile(r"    ([A-Za-z_][A-Za-z0-9_]*): ")
_PLACEHOLDER = re.compile(r"\x00(\d+)\x00")


def _docstring(lines: List[str], start: int, indent: str) -> Tuple[str, int]:
    """The triple-quoted docstring opening at ``lines[start]``; returns it and the next line."""
    first = lines[start][len(indent) + 3 :]
    text_lines = []
    index = start
    current = first
    while True:
        end = current.find('"""')
        if end >= 0:
            if current[end + 3 :].strip():
                raise _Unrecognised
            text_lines.append(current[:end])
            break
        text_lines.append(current)
        index += 1
        if index >= len(lines):
            raise _Unrecognised
        current = lines[index]
    text = "\n".join(text_lines)
    if "\\" in text or text.endswith('"'):
        raise _Unrecognised
    return inspect.cleandoc(text), index + 1


# A single-line string literal, or a comment's start outside one.
_LITERAL_OR_COMMENT = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|#")
_SPLIT_TOKENS = {
    separator: re.compile(r"[()\[\]{}]|" + re.escape(separator)) for separator in (" = ", ",")
}


def _lex(statement: str) -> Tuple[str, List[str]]:
    """The statement with each string literal replaced by ``\\x00<n>\\x00``, and the literals."""
    if "'''" in statement or '"""' in statement:
        raise _Unrecognised
    literals: List[str] = []

    def replace(match: "re.Match[str]") -> str:
        text = match.group()
        start = match.start()
        before = statement[start - 1] if start else " "
        if text == "#" or before.isalnum() or before == "_":
            raise _Unrecognised  # a comment, or a prefixed literal (r'', b'', f'')
        literals.append(text)
        return f"\x00{len(literals) - 1}\x00"

    skeleton = _LITERAL_OR_COMMENT.sub(replace, statement)
    if "'" in skeleton or '"' in skeleton:
        raise _Unrecognised  # a literal that does not end on its line
    return skeleton, literals


def _split_top(skeleton: str, separator: str) -> List[str]:
    """``skeleton`` split at ``separator`` where no bracket is open."""
    parts, depth, start = [], 0, 0
    for match in _SPLIT_TOKENS[separator].finditer(skeleton):
        token = match.group()
        if token in "([{":
            depth += 1
        elif token in ")]}":
            depth -= 1
        elif depth == 0:
            parts.append(skeleton[start : match.start()])
            start = match.end()
    parts.append(skeleton[start:])
    return parts


def _value(literal: str) -> str:
    if "\\" not in literal:
        return literal[1:-1]
    return ast.literal_eval(literal)


def _annotation(skeleton: str, literals: List[str]) -> str:
    """The annotation as ``ast.unparse`` writes it; only plain single-quoted strings in it."""
    if "\n" in skeleton or "  " in skeleton:
        raise _Unrecognised

    def restore(match: "re.Match[str]") -> str:
        literal = literals[int(match.group(1))]
        if literal[0] != "'" or "\\" in literal:
            raise _Unrecognised
        return literal

    return _PLACEHOLDER.sub(restore, skeleton)


def _description(skeleton: str, literals: List[str]) -> str:
    text = skeleton.strip()
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]  # implicit concatenation over several lines
    pieces = text.split()
    if not pieces or not all(_PLACEHOLDER.fullmatch(piece) for piece in pieces):
        raise _Unrecognised
    return "".join(_value(literals[int(piece.strip("\x00"))]) for piece in pieces)


def _field(statement: str) -> Field:
    match = _FIELD_START.match(statement)
    if not match:
        raise _Unrecognised
    skeleton, literals = _lex(statement[match.end() :])
    parts = _split_top(skeleton, " = ")
    if len(parts) > 2:
        raise _Unrecognised
    annotation = _annotation(parts[0], literals)
    if len(parts) == 1:
        return match.group(1), annotation, "", True
    value = parts[1].strip()
    if not (value.startswith("Field(") and value.endswith(")")):
        if "(" in value:
            raise _Unrecognised  # a call: ast would look at its first argument
        return match.group(1), annotation, "", False
    arguments = [argument.strip() for argument in _split_top(value[6:-1], ",")]
    required = bool(arguments) and arguments[0] == "..."
    description = ""
    for argument in arguments:
        if argument.startswith("description="):
            description = _description(argument[len("description=") :], literals)
    return match.group(1), annotation, description, required


def _member_value(statement: str) -> str:
    """repr() of the value of an enum member ``    name = 'value'``: a string or a number."""
    skeleton, literals = _lex(statement.split(" = ", 1)[1])
    value = skeleton.strip()
    match = _PLACEHOLDER.fullmatch(value)
    if match:
        return repr(_value(literals[int(match.group(1))]))
    if re.fullmatch(r"-?\d+(\.\d+)?", value):
        return repr(ast.literal_eval(value))
    raise _Unrecognised  # anything else: as ast reads it


def _class_body(lines: List[str], index: int, outline: ClassOutline) -> int:
    """Reads the class body starting at ``lines[index]``; returns the line after it."""
    while index < len(lines) and not lines[index].strip():
        index += 1
    if index < len(lines) and lines[index].startswith('    """'):
        outline.docstring, index = _docstring(lines, index, "    ")
    while index < len(lines):
        line = lines[index]
        if not line.strip():
            index += 1
            continue
        if not line.startswith("    "):
            break
        if line.startswith("     "):
            raise _Unrecognised  # a continuation without a statement
        statement = [line]
        index += 1
        while index < len(lines) and (
            lines[index].startswith("     ") or lines[index].startswith("    )")
        ):
            statement.append(lines[index])
            index += 1
        if line == "    pass" and len(statement) == 1:
            continue  # an empty body
        if _MEMBER.match(line):
            outline.values.append(_member_value("\n".join(statement)))
            continue
        outline.fields.append(_field("\n".join(statement)))
    return index


def read_generated(text: str) -> Optional[ModuleOutline]:
    """The outline of a module in ipybox's generated layout, or ``None`` to parse it with ast."""
    if not text.startswith('"""') or "\t" in text or "\r" in text:
        return None
    lines = text.split("\n")
    try:
        docstring, index = _docstring(lines, 0, "")
        classes: List[ClassOutline] = []
        functions: Dict[str, Optional[str]] = {}
        while index < len(lines):
            line = lines[index]
            if not line.strip() or _TOP_LEVEL_SKIPPED.match(line):
                index += 1
                continue
            class_match = _CLASS.match(line)
            if class_match:
                outline = ClassOutline(class_match.group(1), "")
                index = _class_body(lines, index + 1, outline)
                classes.append(outline)
                continue
            def_match = _DEF.match(line)
            if def_match and "'" not in line and '"' not in line:
                functions[def_match.group(1)] = def_match.group(2)
                index += 1
                while index < len(lines) and (
                    not lines[index].strip() or lines[index].startswith("    ")
                ):
                    index += 1
                continue
            return None
        return ModuleOutline(docstring, classes, functions)
    except (_Unrecognised, ValueError, SyntaxError):
        return None


def outline_from_ast(tree: ast.Module) -> ModuleOutline:
    """The same outline, from a parsed module (any layout)."""
    classes = []
    functions: Dict[str, Optional[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            classes.append(
                ClassOutline(node.name, ast.get_docstring(node) or "", _fields(node), _values(node))
            )
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, ast.unparse(node.returns) if node.returns else None)
    return ModuleOutline(ast.get_docstring(tree) or "", classes, functions)


def _string_keyword(call: ast.expr, name: str) -> str:
    if isinstance(call, ast.Call):
        for keyword in call.keywords:
            if keyword.arg == name and isinstance(keyword.value, ast.Constant):
                return str(keyword.value.value)
    return ""


def _required(value: Optional[ast.expr]) -> bool:
    if value is None:
        return True
    if isinstance(value, ast.Call) and value.args:
        first = value.args[0]
        return isinstance(first, ast.Constant) and first.value is Ellipsis
    return False


def _values(node: ast.ClassDef) -> List[str]:
    """repr() of each ``name = <constant>`` in a class body: an enum's members' values."""
    found = []
    for item in node.body:
        if (
            isinstance(item, ast.Assign)
            and len(item.targets) == 1
            and isinstance(item.targets[0], ast.Name)
        ):
            value = item.value
            if (
                isinstance(value, ast.UnaryOp)
                and isinstance(value.op, ast.USub)
                and isinstance(value.operand, ast.Constant)
            ):
                found.append(repr(-value.operand.value))
            elif isinstance(value, ast.Constant) and isinstance(value.value, (str, int, float)):
                found.append(repr(value.value))
    return found


def _fields(node: ast.ClassDef) -> List[Field]:
    """(name, type, description, required) of the annotated fields of a model class."""
    found = []
    for item in node.body:
        if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            annotation = ast.unparse(item.annotation)
            description = _string_keyword(item.value, "description") if item.value else ""
            found.append((item.target.id, annotation, description, _required(item.value)))
    return found
