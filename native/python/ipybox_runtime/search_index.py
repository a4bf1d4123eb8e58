"""What the search index knows about one tool: read from its file, never imported.

``describe_tool_module`` reads a generated ``mcptools/<server>/<tool>.py`` or a parser
``mcpparse/<server>/<tool>.py``; ``describe_action`` reads a saved action's ``api.py`` (and the
imports of its ``impl.py``). Each gives a ``ToolDocument``: what a search result shows (import
line, one-line summary, call signature) and the weighted text that is ranked. Standard library
only.
"""

from __future__ import annotations

import ast
import pathlib
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Set

from .files import read_text
from .generated_reader import ModuleOutline, outline_from_ast, read_generated
from .requirements import recorded

# How much more a word counts in a tool's name, and in its one-line summary, than in the rest.
NAME_WEIGHT = 3
SUMMARY_WEIGHT = 2

_STOPWORDS = frozenset(
    "a an and are as at be by for from in into is it its of on or that the this to with".split()
)


@dataclass
class ToolDocument:
    name: str  # the module to import: mcptools.github.search_repositories
    kind: str  # "mcptool", "parser" or "gentool"
    origin: str  # "mcptools" or "mcpparse"; the library root's origin for gentools
    import_line: str
    summary: str
    signature: str
    path: pathlib.Path
    calls: List[str] = field(default_factory=list)  # "server.tool" of the mcptools it imports
    # Weighted token counts for ranking (a name's words count NAME_WEIGHT times, ...).
    terms: Dict[str, int] = field(default_factory=dict)
    requires: Optional[Dict[str, object]] = None  # a saved action's REQUIRES (requirements.py)


# Words of identifiers and prose: "readTextFile" and "read_text_file" both give read, text, file.
_WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")


def tokens(text: str) -> List[str]:
    """Lower-case word stems of ``text``: camelCase and snake_case split, stop words dropped."""
    stems = _stems
    found = []
    for word in _WORD.findall(text):
        stem = stems.get(word)
        if stem is None:
            stem = stems[word] = _stem(word.lower())
        if stem:
            found.append(stem)
    return found


_stems: Dict[
    str, str
] = {}  # word as written -> stem ("" for a stop word); grows with the vocabulary


def _stem(word: str) -> str:
    # Deliberately light: enough that "files" finds "file" and "searching" finds "search".
    if word in _STOPWORDS:
        return ""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 5 and word.endswith("ing"):
        return word[:-3]
    if len(word) > 4 and word.endswith("ed"):
        return word[:-2]
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes", "oes")):
        return word[:-2]  # echoes -> echo, searches -> search
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _first_line(docstring: Optional[str]) -> str:
    """The first full sentence of the docstring's first paragraph (which may span lines)."""
    text = (docstring or "").strip()
    if not text:
        return "(no docstring)"
    paragraph = " ".join(line.strip() for line in text.split("\n\n")[0].splitlines())
    end = re.search(r"[.!?](\s|$)", paragraph)
    return paragraph[: end.start() + 1] if end else paragraph


def _parse(path: pathlib.Path) -> Optional[ast.Module]:
    try:
        return ast.parse(read_text(path), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None


def _model_text(outline: ModuleOutline) -> List[str]:
    """Field names and descriptions (and class docstrings) of every class in the module."""
    parts = []
    for model in outline.classes:
        parts.append(model.docstring)
        for name, _, description, _ in model.fields:
            parts.extend((name, description))
    return parts


def _read_tool_module(path: pathlib.Path) -> Optional[ModuleOutline]:
    """The module's outline: by the fast reader where it can, else from its syntax tree."""
    try:
        text = read_text(path)
    except (OSError, ValueError):
        return None
    outline = read_generated(text)
    if outline is not None:
        return outline
    try:
        return outline_from_ast(ast.parse(text, filename=str(path)))
    except (SyntaxError, ValueError):
        return None


def _function(tree: ast.Module, name: str) -> Optional[ast.FunctionDef]:
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return node  # type: ignore[return-value]
    return None


def _body(docstring: str) -> str:
    """A docstring without its first line (which counts as the summary)."""
    return "\n".join(docstring.strip().splitlines()[1:])


def _weighted(name_text: str, summary: str, rest: Iterable[str]) -> Dict[str, int]:
    terms = tokens(name_text) * NAME_WEIGHT + tokens(summary) * SUMMARY_WEIGHT
    terms.extend(tokens("\n".join(rest)))  # one pass over the rest: words never span parts
    return dict(Counter(terms))


def describe_tool_module(path: pathlib.Path, root_name: str) -> ToolDocument:
    """A generated tool module (``root_name`` "mcptools") or an output parser ("mcpparse")."""
    server, tool = path.parent.name, path.stem
    name = f"{root_name}.{server}.{tool}"
    kind = "mcptool" if root_name == "mcptools" else "parser"
    if kind == "mcptool":
        outline = _read_tool_module(path)
        tree = None
    else:
        tree = _parse(path)  # a parser's signature needs its functions' arguments
        outline = outline_from_ast(tree) if tree is not None else None
    if outline is None:
        return ToolDocument(name, kind, root_name, "", "(cannot be read)", "", path)
    docstring = outline.docstring
    summary = _first_line(docstring)
    signature = ""
    if kind == "mcptool":
        params = next((model for model in outline.classes if model.name == "Params"), None)
        # Required parameters first, as a Python signature lists them (the generated model keeps
        # the schema's order, in which an optional one may come first).
        arguments = _fields_text(params.fields if params else [])
        has_run = "run" in outline.functions
        returns = outline.functions.get("run")
        returns_text = f" -> {returns}" if has_run and returns else ""
        result = next((model for model in outline.classes if model.name == "Result"), None)
        if returns == "Result" and result is not None and result.fields:
            shown = [
                f"{field_name}: {annotation}" for field_name, annotation, _, _ in result.fields
            ]
            more = ", ..." if len(shown) > 6 else ""
            returns_text = f" -> Result({', '.join(shown[:6])}{more})"
        signature = f"{tool}.run({tool}.Params({arguments})){returns_text}"
        signature += _nested_models(outline.classes, arguments)
        if "run_parsed" in outline.functions:
            signature += f"; {tool}.run_parsed(...)"
    elif tree is not None:
        public = [
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef) and not node.name.startswith("_")
        ]
        if public:
            signature = _signature(tool, public[0])
    import_line = f"from {root_name}.{server} import {tool}"
    rest = [_body(docstring)] + _model_text(outline)
    terms = _weighted(f"{tool} {server}", summary, rest)
    return ToolDocument(name, kind, root_name, import_line, summary, signature, path, [], terms)


def _fields_text(fields: Iterable[Any]) -> str:
    """``a: int, b: str = ...``: required fields first, as a Python signature lists them (a
    generated model keeps the schema's order, in which an optional one may come first)."""
    ordered = sorted(fields, key=lambda field: not field[3])
    return ", ".join(
        f"{name}: {annotation}" + ("" if required else " = ...")
        for name, annotation, _, required in ordered
    )


def _nested_models(classes: Iterable[Any], arguments: str, at_most: int = 2) -> str:
    """``; Entity(name: str, ...)`` for the module's models that the parameters' types name
    (``entities: List[Entity]``), and ``; SortBy = 'name' | 'size'`` for their enums, so that the
    signature says what to build without a read."""
    shown = []
    for model in classes:
        if model.name in ("Params", "Result") or not (model.fields or model.values):
            continue
        if re.search(rf"\b{re.escape(model.name)}\b", arguments) and len(shown) < at_most:
            if model.values:
                # At most 8 values of at most 40 characters each: a schema's enum may be long.
                values = " | ".join(
                    value if len(value) <= 40 else value[:37] + "..." for value in model.values[:8]
                ) + (" | ..." if len(model.values) > 8 else "")
                shown.append(f"; {model.name} = {values}")
            else:
                shown.append(f"; {model.name}({_fields_text(model.fields)})")
    return "".join(shown)


def _signature(owner: str, function: ast.FunctionDef) -> str:
    returns = f" -> {ast.unparse(function.returns)}" if function.returns else ""
    return f"{owner}.{function.name}({ast.unparse(function.args)}){returns}"


def mcptools_imports(tree: Optional[ast.Module]) -> Set[str]:
    """``"server.tool"`` for every ``mcptools`` tool module the code imports (read, not run)."""
    found: Set[str] = set()
    if tree is None:
        return found
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] != "mcptools" or len(parts) < 2:
                continue
            if len(parts) >= 3:
                found.add(f"{parts[1]}.{parts[2]}")
            else:
                found.update(
                    f"{parts[1]}.{alias.name}" for alias in node.names if alias.name != "*"
                )
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "mcptools" and len(parts) >= 3:
                    found.add(f"{parts[1]}.{parts[2]}")
    return found


def describe_action(directory: pathlib.Path, module: str, origin: str) -> ToolDocument:
    """A saved action ``gentools.<category>.<name>`` from its ``api.py`` and ``impl.py``."""
    category, name = directory.parent.name, directory.name
    api_path = directory / "api.py"
    tree = _parse(api_path)
    import_line = f"from {module} import run"
    if tree is None:
        return ToolDocument(
            module, "gentool", origin, import_line, "(cannot be read)", "", api_path
        )
    docstring = ast.get_docstring(tree) or ""
    summary = _first_line(docstring)
    run = _function(tree, "run")
    signature = _signature("", run).lstrip(".") if run else "(no run function)"
    rest = [_body(docstring)] + _model_text(outline_from_ast(tree))
    if run is not None:
        rest.append(ast.get_docstring(run) or "")
        rest.extend(arg.arg for arg in run.args.args)
    calls = mcptools_imports(tree) | mcptools_imports(_parse(directory / "impl.py"))
    terms = _weighted(f"{name} {category}", summary, rest)
    return ToolDocument(
        module,
        "gentool",
        origin,
        import_line,
        summary,
        signature,
        api_path,
        sorted(calls),
        terms,
        recorded(directory),
    )
