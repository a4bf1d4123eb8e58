"""Ranked search over every tool an agent can use: ``mcptools/``, ``mcpparse/`` and gentools.

    from ipybox_runtime import search_tools
    print(search_tools("largest files in a directory", limit=5))

Each hit has the module's name, its kind (``"mcptool"``, ``"parser"``, ``"gentool"``), where it
comes from (``"mcptools"``, ``"mcpparse"``, or the gentools root's origin: ``"project"``,
``"user"``, ``"library"``), the import line and the file, the first sentence of its docstring,
the call signature and, for a saved action, whether it runs here (what is missing otherwise)
and whether it shadows a copy in a later root (the project's copy wins). Ranking is BM25 over
tool and server names (weighted most), the summary, docstrings and the names and descriptions
of model fields. Files are read, never imported.

The index lives in this process and is brought up to date at every search: only files whose
modification time or size changed are read again. The host's ``search_tools`` MCP tool calls
``format_search`` in the kernel. Standard library only.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
from collections import Counter
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional, Set, Tuple, Union

from . import library, requirements
from .files import read_text
from .search_index import ToolDocument, describe_action, describe_tool_module, tokens

__all__ = [
    "SearchHit",
    "SearchResults",
    "ToolIndex",
    "describe_server",
    "format_search",
    "search_tools",
]

KINDS = ("mcptool", "parser", "gentool")
_K1 = 1.2
_B = 0.75
# What a word of the query earns when it is a word of a tool's own name (not its server's, nor a
# prefix most of its server's tools share: "browser_", "slack_", "API-"), in units of that word's
# rarity among names: a long description should not outweigh the name that says what a tool does.
_NAME_BONUS = 1.0
# Tools that take something away rank lower unless the query asks for that: an agent looking for
# "memory" wants to store and recall before it wants to delete.
_DESTRUCTIVE = frozenset(
    tokens("delete remove destroy drop purge erase clear uninstall revoke kill terminate unset")
)
_DESTRUCTIVE_FACTOR = 0.7


@dataclass(frozen=True)
class SearchHit:
    name: str
    kind: str
    origin: str
    import_line: str
    summary: str
    signature: str
    path: str
    score: float
    calls: Tuple[str, ...] = ()
    changed: Tuple[str, ...] = ()  # tools it calls whose schema changed since it was pinned
    missing: Tuple[str, ...] = ()  # what a saved action lacks here, with the call that adds it
    shadows: str = ""  # the file of a copy in a later root that this one hides

    @property
    def usable(self) -> bool:
        """A saved action runs here: nothing it needs is missing, no tool changed under it."""
        return not self.missing and not self.changed

    def __str__(self) -> str:
        where = self.kind
        if self.kind == "gentool":
            where += f", {self.origin}" + ("" if self.usable else ", NOT usable here")
            if self.shadows:
                where += f", shadows {self.shadows}"
        lines = [
            f"{self.name}  [{where}]  {self.summary}",
            f"    {self.import_line}  # {self.path}",
        ]
        if self.signature:
            lines.append(f"    {self.signature}")
        if self.changed:
            lines.append(
                "    ! calls tools whose schema changed: "
                + ", ".join(self.changed)
                + " (check and update it)"
            )
        lines.extend(f"    ! {line}" for line in self.missing)
        return "\n".join(lines)


class SearchResults(List[SearchHit]):
    """A list of hits, best first, that prints as the model should read it."""

    def __str__(self) -> str:
        if not self:
            return "no matching tools"
        return "\n".join(f"{index}. {hit}" for index, hit in enumerate(self, 1))

    __repr__ = __str__


# (path, modification time in ns, size) of each file a document was read from.
_Stamp = Tuple[Tuple[str, int, int], ...]


def _stamp(paths: Iterable[str]) -> _Stamp:
    stamps = []
    for path in paths:
        try:
            info = os.stat(path)
            stamps.append((path, info.st_mtime_ns, info.st_size))
        except OSError:
            stamps.append((path, -1, -1))
    return tuple(stamps)


def _server_modules(server: pathlib.Path) -> List[Tuple[str, _Stamp]]:
    """(path, stamp) of every tool module in one server's folder (plain strings: this runs
    before searches, where pathlib would cost more than the stat calls)."""
    found = []
    try:
        entries = list(os.scandir(server))
    except OSError:
        return found
    for entry in entries:
        if entry.name.endswith(".py") and entry.name != "__init__.py":
            try:
                info = entry.stat()
            except OSError:
                continue
            found.append((entry.path, ((entry.path, info.st_mtime_ns, info.st_size),)))
    found.sort()
    return found


class ToolIndex:
    """The documents of one workspace and their BM25 statistics, refreshed incrementally.

    Not thread-safe: one kernel runs one cell at a time.
    """

    def __init__(
        self, workspace: Union[str, "os.PathLike[str]", None] = None, *, use_cache: bool = True
    ) -> None:
        self.workspace = library.workspace_path(workspace)
        # What was read in an earlier kernel, so that a new kernel's first search reads only
        # what changed since. Data only (JSON), and a stale or damaged cache costs a re-read.
        self.cache_file = self.workspace / ".ipybox" / "search-index.json" if use_cache else None
        self._documents: Dict[str, Tuple[_Stamp, ToolDocument]] = (
            _load_cache(self.cache_file) if self.cache_file else {}
        )
        self._ordered: List[ToolDocument] = []
        self._postings: Dict[str, List[Tuple[int, int]]] = {}
        self._name_postings: Dict[str, List[int]] = {}  # distinctive name words (_name_words)
        self._destructive: List[bool] = []
        self._lengths: List[int] = []
        self._average_length = 1.0
        self.reads = 0  # documents read from files since the index was made (for tests)
        # mcptools/<server>/ folder -> ((inode, mtime), its modules): ipybox writes a server's
        # generated package as a whole new folder, so an unchanged folder needs no stat calls
        # for its files. mcpparse/ and gentools are edited in place and are stat'ed file by file.
        self._generated: Dict[str, Tuple[Tuple[int, int], List[Tuple[str, _Stamp]]]] = {}

    def refresh(self) -> bool:
        """Reads new and changed files, forgets removed ones; True when anything changed."""
        fresh: Dict[str, Tuple[_Stamp, ToolDocument]] = {}
        changed = False
        for root_name in ("mcptools", "mcpparse"):
            for key, stamp in self._modules(root_name):
                known = self._documents.get(key)
                if known is None or known[0] != stamp:
                    known = (stamp, describe_tool_module(pathlib.Path(key), root_name))
                    self.reads += 1
                    changed = True
                fresh[key] = known
        for action in library.actions(self.workspace):
            key = str(action.directory)
            folder = str(action.directory)
            stamp = _stamp([os.path.join(folder, "api.py"), os.path.join(folder, "impl.py")])
            known = self._documents.get(key)
            if known is None or known[0] != stamp or known[1].origin != action.root.origin:
                known = (
                    stamp,
                    describe_action(action.directory, action.module, action.root.origin),
                )
                self.reads += 1
                changed = True
            fresh[key] = known
        changed = changed or fresh.keys() != self._documents.keys()
        self._documents = fresh
        if changed or not self._ordered and fresh:
            self._rebuild()
            if changed and self.cache_file:
                _save_cache(self.cache_file, fresh)
        return changed

    def _modules(self, root_name: str) -> List[Tuple[str, _Stamp]]:
        found: List[Tuple[str, _Stamp]] = []
        generated = root_name == "mcptools"
        seen = {}
        for server in library._identifier_dirs(self.workspace / root_name):
            key = str(server)
            if not generated:
                found.extend(_server_modules(server))
                continue
            try:
                info = os.stat(key)
            except OSError:
                continue
            folder_stamp = (info.st_ino, info.st_mtime_ns)
            known = self._generated.get(key)
            if known is None or known[0] != folder_stamp:
                known = (folder_stamp, _server_modules(server))
            seen[key] = known
            found.extend(known[1])
        if generated:
            self._generated = seen
        return found

    def _rebuild(self) -> None:
        self._ordered = [document for _, document in self._documents.values()]
        self._postings = {}
        self._lengths = []
        for index, document in enumerate(self._ordered):
            self._lengths.append(sum(document.terms.values()))
            for term, count in document.terms.items():
                self._postings.setdefault(term, []).append((index, count))
        self._average_length = sum(self._lengths) / len(self._lengths) if self._lengths else 1.0
        words = _name_words(self._ordered)
        self._name_postings = {}
        for index, own in enumerate(words):
            for word in own:
                self._name_postings.setdefault(word, []).append(index)
        self._destructive = [bool(own & _DESTRUCTIVE) for own in words]

    def __len__(self) -> int:
        return len(self._ordered)

    def search(
        self, query: str, limit: int = 10, kinds: Optional[Iterable[str]] = None
    ) -> SearchResults:
        """The best ``limit`` documents for ``query`` (after a refresh), best first."""
        self.refresh()
        wanted = _check_kinds(kinds)
        total = len(self._ordered)
        scores: Dict[int, float] = {}
        terms = set(tokens(query))
        for term in terms:
            postings = self._postings.get(term)
            if not postings:
                continue
            idf = math.log(1 + (total - len(postings) + 0.5) / (len(postings) + 0.5))
            for index, count in postings:
                norm = _K1 * (1 - _B + _B * self._lengths[index] / self._average_length)
                scores[index] = scores.get(index, 0.0) + idf * count * (_K1 + 1) / (count + norm)
            named = self._name_postings.get(term, ())
            rarity = math.log(1 + (total - len(named) + 0.5) / (len(named) + 0.5))
            for index in named:
                scores[index] += _NAME_BONUS * rarity
        if not terms & _DESTRUCTIVE:
            for index in scores:
                if self._destructive[index]:
                    scores[index] *= _DESTRUCTIVE_FACTOR
        ranked = sorted(scores.items(), key=lambda item: (-item[1], self._ordered[item[0]].name))
        results = SearchResults()
        for index, score in ranked:
            document = self._ordered[index]
            if document.kind not in wanted:
                continue
            results.append(_hit(document, score, self.workspace))
            if len(results) >= limit:
                break
        return results


_CACHE_VERSION = 3
# The cache of a large library (thousands of tools) is a few megabytes.
_CACHE_LIMIT = 64 * 1024 * 1024


def _name_words(documents: List[ToolDocument]) -> List[Set[str]]:
    """The words of each document's own name (the module's, not its server's or category's),
    without those most of its server's tools share: a prefix such as "browser_" or "API-" says
    which server, not what the tool does."""
    own = [set(tokens(document.name.rsplit(".", 1)[-1])) for document in documents]
    groups: Dict[str, List[int]] = {}
    for index, document in enumerate(documents):
        groups.setdefault(document.name.rsplit(".", 1)[0], []).append(index)
    for members in groups.values():
        if len(members) < 4:
            continue
        shared = Counter(word for index in members for word in own[index])
        common = {word for word, count in shared.items() if count * 2 > len(members)}
        for index in members:
            own[index] -= common
    return own


def _load_cache(path: pathlib.Path) -> Dict[str, Tuple[_Stamp, ToolDocument]]:
    try:
        data = json.loads(read_text(path, limit=_CACHE_LIMIT))
        if data.get("version") != _CACHE_VERSION:
            return {}
        loaded = {}
        for key, stamp, fields in data["documents"]:
            fields["path"] = pathlib.Path(fields["path"])
            document = ToolDocument(**fields)
            loaded[key] = (tuple((str(p), int(m), int(z)) for p, m, z in stamp), document)
        return loaded
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return {}


def _save_cache(path: pathlib.Path, documents: Dict[str, Tuple[_Stamp, ToolDocument]]) -> None:
    rows = []
    for key, (stamp, document) in documents.items():
        fields = dict(document.__dict__, path=str(document.path))
        rows.append([key, stamp, fields])
    temporary = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps({"version": _CACHE_VERSION, "documents": rows}))
        os.replace(temporary, path)
    except OSError:
        pass  # a read-only workspace: the next kernel reads the files again


def _check_kinds(kinds: Optional[Iterable[str]]) -> Tuple[str, ...]:
    if kinds is None:
        return KINDS
    if isinstance(kinds, str):
        kinds = [kinds]
    chosen = tuple(kinds)
    unknown = [kind for kind in chosen if kind not in KINDS]
    if unknown:
        raise ValueError(f"unknown kinds {unknown}; choose from {list(KINDS)}")
    return chosen


def _hit(document: ToolDocument, score: float, workspace: pathlib.Path) -> SearchHit:
    changed: Tuple[str, ...] = ()
    missing: Tuple[str, ...] = ()
    shadows = ""
    path = str(document.path)
    if document.kind == "gentool":
        requires = document.requires or {}
        folder = document.path.parent
        changed = tuple(
            sorted(
                set(library.changed_tools(document.name, folder))
                | set(requirements.changed_tools(requires, workspace))
            )
        )
        missing = tuple(requirements.missing(requires, workspace, document.calls, document.origin))
        if missing and requirements.addable(requires, workspace):
            missing += (
                "or, once the user approves, all at once: from ipybox_runtime.requirements "
                f"import add_dependencies; print(add_dependencies({document.name!r}))",
            )
        places = library.clashes(workspace).get(document.name, [])
        shadows = ", ".join(places[1:])
    try:
        path = str(document.path.relative_to(workspace))
    except ValueError:
        pass
    return SearchHit(
        name=document.name,
        kind=document.kind,
        origin=document.origin,
        import_line=document.import_line,
        summary=document.summary,
        signature=document.signature,
        path=path,
        score=round(score, 3),
        calls=tuple(document.calls),
        changed=changed,
        missing=missing,
        shadows=shadows,
    )


_indexes: Dict[Tuple[str, str], ToolIndex] = {}


def _index_for(workspace: Union[str, "os.PathLike[str]", None]) -> ToolIndex:
    path = library.workspace_path(workspace)
    key = (str(path), os.environ.get(library.ROOTS_VARIABLE, ""))
    if key not in _indexes:
        _indexes[key] = ToolIndex(path)
    return _indexes[key]


def search_tools(
    query: str,
    limit: int = 10,
    kinds: Optional[Iterable[str]] = None,
    *,
    workspace: Union[str, "os.PathLike[str]", None] = None,
) -> SearchResults:
    """Tools, parsers and saved actions that match ``query``, best first (at most ``limit``).

    ``kinds`` keeps only some of ``"mcptool"``, ``"parser"`` and ``"gentool"``. ``workspace``
    defaults to ``$IPYBOX_WORKSPACE``, else the current directory. The result prints as a
    numbered list; each hit also has its fields (``name``, ``import_line``, ``signature``, ...).
    """
    if not isinstance(query, str):
        raise ValueError(f"the query must be a string, not {type(query).__name__}")
    if not isinstance(limit, int) or limit < 1:
        raise ValueError("limit must be a positive integer")
    return _index_for(workspace).search(query, limit, kinds)


def describe_server(
    server: str,
    workspace: Union[str, "os.PathLike[str]", None] = None,
    budget: int = 20_000,
) -> str:
    """One line per tool of ``mcptools.<server>``: how to call it (the parameters with their
    types, the result's fields) and its one-line summary, so that an agent can use a server
    right after registering it without reading each module. Lines are cut at 300 characters, the
    whole at ``budget`` characters (the rest are counted and left to ``search_tools``)."""
    folder = library.workspace_path(workspace) / "mcptools" / server
    modules = sorted(
        path for path in folder.glob("*.py") if path.name != "__init__.py" and path.is_file()
    )
    calls = []
    for path in modules:
        document = describe_tool_module(path, "mcptools")
        arguments, returns, models = _call_parts(_short_signature(path.stem, document.signature))
        calls.append((path.stem, arguments, returns, models, document.summary))
    common = _common_result([returns for _, _, returns, _, _ in calls])
    count = f"{len(modules)} tool" + ("" if len(modules) == 1 else "s")
    lines = [
        f"mcptools.{server}: {count}; call one as <tool>.run(<tool>.Params(...)) after "
        f"from mcptools.{server} import <tool>"
        + (f"; each returns {_named_result(common)} unless shown" if common else "")
    ]
    used = len(lines[0])
    for shown, (name, arguments, returns, models, summary) in enumerate(calls):
        if len(summary) > 72:
            summary = summary[:69] + "..."
        # The module's name alone on its line first, as the reference answers (one name a line),
        # then what run() takes and returns, and the summary, indented beneath it. "Params(...)",
        # not "(...)": an agent read "() -> Result" as run() taking nothing.
        call = f"Params{arguments}" if arguments.startswith("(") else arguments
        if returns and returns != common:
            call += f" -> {returns}"
        line = f"{name}\n  {call}{models}  # {summary}"
        if len(line) > 300:
            line = line[:297] + "..."
        if used + len(line) + 1 > budget:
            left = len(modules) - shown
            lines.append(
                f"... {left} more: search_tools(...) finds them, "
                f"or read mcptools/{server}/<tool>.py"
            )
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)


def _call_parts(call: str) -> Tuple[str, str, str]:
    """``("(a: int)", "Result(x: str)", "; Model(...)")`` for ``tool(a: int) -> Result(x: str);
    Model(...)``: the arguments, the result, and the models named in them (each part may be
    empty)."""
    opened = call.find("(")
    if opened < 0:
        return call, "", ""
    depth = 0
    for index in range(opened, len(call)):
        depth += {"(": 1, ")": -1}.get(call[index], 0)
        if depth == 0:
            break
    arguments, rest = call[opened : index + 1], call[index + 1 :]
    returns = rest[len(" -> ") :] if rest.startswith(" -> ") else ""
    models = "" if returns else rest
    depth = 0
    for index, character in enumerate(returns):
        depth += {"(": 1, ")": -1, "[": 1, "]": -1}.get(character, 0)
        if depth == 0 and returns.startswith("; ", index):
            returns, models = returns[:index], returns[index:]
            break
    return arguments, returns, models


def _named_result(result: str) -> str:
    """The result as the header names it: ``TextResult``, which no module defines, says what it
    is."""
    return "TextResult (the text, a str)" if result == "TextResult" else result


def _common_result(results: List[str]) -> str:
    """The result most of a server's tools share, when naming it once in the header is shorter
    than repeating it on each of their lines; else ""."""
    counts: Dict[str, int] = {}
    for result in results:
        if result:
            counts[result] = counts.get(result, 0) + 1
    if not counts:
        return ""
    result, count = max(counts.items(), key=lambda item: (item[1], -len(item[0])))
    saved = count * len(f" -> {result}")
    return result if count >= 2 and saved > len(f"; each returns {result} unless shown") else ""


def _short_signature(tool: str, signature: str) -> str:
    """``tool(a: int) -> Result(...)`` for ``tool.run(tool.Params(a: int)) -> Result(...)``."""
    head = f"{tool}.run({tool}.Params("
    if not signature.startswith(head):
        return signature or tool
    arguments, separator, returns = signature[len(head) :].partition(")) -> ")
    if not separator:
        return signature
    return f"{tool}({arguments}) -> {returns}"


def format_search(
    query: str, limit: int = 10, *, workspace: Union[str, "os.PathLike[str]", None] = None
) -> str:
    """``search_tools`` as text (for the MCP tool); when nothing matches, how to list everything."""
    results = search_tools(query, limit, workspace=workspace)
    if not results:
        return (
            f"No tool matches {query!r}. Try other words, or list everything with "
            "`from ipybox_runtime.gentools import catalog; print(catalog())`."
        )
    return str(results)
