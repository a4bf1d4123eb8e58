"""ipybox_runtime.search: the index over mcptools, mcpparse and gentools, ranking, refresh."""

from __future__ import annotations

import ast
import json
import os
import pathlib
import random
import shutil
import stat
import tempfile
import unittest
import unittest.mock
from typing import List, Tuple

import support
from ipybox_runtime import library, search_tools
from ipybox_runtime.gentools import catalog
from ipybox_runtime.generated_reader import outline_from_ast, read_generated
from ipybox_runtime.search import ToolIndex
from ipybox_runtime.search_index import describe_tool_module
from test_gentools import GentoolsTestCase
from test_library import write_action

VERBS = "archive list create delete export import merge rename restore share summarize sync tag"
VERBS = (VERBS + " translate upload validate watch download compress schedule").split()
OBJECTS = "invoice contact calendar_event photo spreadsheet ticket repository playlist message"
OBJECTS = (OBJECTS + " recipe shipment payroll lease podcast sensor_reading").split()
SERVICES = "billing crm calendar gallery sheets helpdesk git music chat kitchen logistics".split()

TOOL_MODULE = '''"""{summary}"""

from ipybox_runtime.models import Field, ToolModel
from ipybox_runtime.tool_client import TextResult, call_tool

SERVER_NAME = {server!r}
TOOL_NAME = {tool!r}


class Params(ToolModel):
    {noun}_id: str = Field(..., description={field!r})
    limit: int = Field(10, description='How many items at most')


def run(params: Params) -> TextResult:
    """{summary}"""
    return TextResult.from_output(call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments()))
'''


def synthetic_tools(workspace: pathlib.Path, count: int, seed: int = 14) -> List[Tuple[str, str]]:
    """Writes ``count`` generated tool modules; returns (module, its words) for each."""
    rng = random.Random(seed)
    combinations = [(v, o, s) for s in SERVICES for v in VERBS for o in OBJECTS]
    rng.shuffle(combinations)
    written = []
    for verb, noun, service in combinations[:count]:
        tool = f"{verb}_{noun}"
        directory = workspace / "mcptools" / service
        directory.mkdir(parents=True, exist_ok=True)
        summary = f"{verb.capitalize()} a {noun.replace('_', ' ')} in the {service} service."
        field = f"Identifier of the {noun.replace('_', ' ')} in {service}"
        (directory / f"{tool}.py").write_text(
            TOOL_MODULE.format(
                summary=summary, server=service, tool=tool, noun=noun.split("_")[0], field=field
            ),
            encoding="utf-8",
        )
        written.append((f"mcptools.{service}.{tool}", f"{verb} {noun} {service}"))
    return written


class SearchTestCase(GentoolsTestCase):
    def setUp(self) -> None:
        super().setUp()
        self.index = ToolIndex(self.workspace, use_cache=False)


class RankingTest(SearchTestCase):
    def test_finds_the_right_tool_among_2000_in_the_top_3(self):
        tools = synthetic_tools(self.workspace, 2000)
        shutil.copytree(
            support.GOLDEN_DIR / "everything" / "expected" / "everything",
            self.workspace / "mcptools" / "everything",
        )
        rng = random.Random(7)
        targets = rng.sample(tools, 40)
        queries = [
            (
                module,
                f"{words.split()[0]} {words.split()[1].replace('_', ' ')}s on {words.split()[2]}",
            )
            for module, words in targets
        ]
        queries.append(("mcptools.everything.echo", "echo back my message"))
        queries.append(("mcptools.everything.getstructuredcontent", "weather humidity in Chicago"))
        misses = []
        for module, query in queries:
            names = [hit.name for hit in self.index.search(query, limit=3)]
            if module not in names:
                misses.append((query, module, names))
        self.assertEqual(misses, [])
        self.assertEqual(len(self.index), 2000 + 9)

    def test_names_count_more_than_descriptions(self):
        directory = self.workspace / "mcptools" / "notes"
        directory.mkdir(parents=True)
        (directory / "rename_note.py").write_text('"""Changes the title of a note."""\n')
        (directory / "edit_note.py").write_text(
            '"""Edits the text of a note, not to rename it."""\n'
        )
        hits = self.index.search("rename")
        self.assertEqual([hit.name for hit in hits][0], "mcptools.notes.rename_note")

    def _notes_server(self, tools):
        directory = self.workspace / "mcptools" / "notes"
        directory.mkdir(parents=True)
        for name, docstring in tools.items():
            (directory / f"{name}.py").write_text(f'"""{docstring}"""\n')

    def test_a_tools_own_name_outweighs_a_long_description(self):
        words = " ".join(f"word{i}" for i in range(300))
        self._notes_server(
            {
                "notes_scrape": f"Fetches a page and turns it into notes. {words}",
                "notes_fetch": "Fetches a page to scrape: scrape, scrape.",
                "notes_list": "Lists notes.",
                "notes_tag": "Tags notes.",
            }
        )
        # "notes" is the server's and every tool's prefix: it says nothing of what a tool does.
        names = [hit.name for hit in self.index.search("scrape notes")]
        self.assertEqual(names[0], "mcptools.notes.notes_scrape")

    def test_tools_that_take_away_rank_after_the_others_unless_asked_for(self):
        self._notes_server(
            {
                "delete_note": "Deletes a note from memory.",
                "add_note": "Adds a note to the memory of the notebook, with its tags.",
            }
        )
        self.assertEqual(self.index.search("memory")[0].name, "mcptools.notes.add_note")
        self.assertEqual(self.index.search("delete memory")[0].name, "mcptools.notes.delete_note")

    def test_hit_shows_kind_import_line_summary_and_signature(self):
        shutil.copytree(
            support.GOLDEN_DIR / "everything" / "expected" / "everything",
            self.workspace / "mcptools" / "everything",
        )
        hit = self.index.search("echo", limit=1)[0]
        self.assertEqual(hit.kind, "mcptool")
        self.assertEqual(hit.import_line, "from mcptools.everything import echo")
        self.assertEqual(hit.summary, "Echoes back the input")
        self.assertEqual(hit.signature, "echo.run(echo.Params(message: str)) -> TextResult")
        self.assertIn("1. mcptools.everything.echo  [mcptool]", str(self.index.search("echo")))

    def _tool_with_models(self, server: str, tool: str, models: str, typing: str) -> None:
        """A generated-looking module of ``tool`` whose model classes are ``models``."""
        module = TOOL_MODULE.format(
            summary="A tool.", server=server, tool=tool, noun="x", field="f"
        )
        module = module.replace(
            "class Params(ToolModel):\n    x_id: str = Field(..., description='f')\n", models
        ).replace(
            "from ipybox_runtime.models",
            f"from typing import {typing}\n\nfrom ipybox_runtime.models",
        )
        directory = self.workspace / "mcptools" / server
        directory.mkdir(parents=True)
        (directory / f"{tool}.py").write_text(module, encoding="utf-8")

    def test_required_parameters_come_first_as_in_a_python_signature(self):
        # The schema's order, optional first (server-filesystem's read_text_file has head, path).
        self._tool_with_models(
            "files",
            "read",
            "class Params(ToolModel):\n"
            "    head: Optional[int] = Field(None, description='First lines')\n"
            "    path: str = Field(..., description='The file')\n",
            "Optional",
        )
        hit = self.index.search("read", limit=1)[0]
        self.assertEqual(
            hit.signature,
            "read.run(read.Params(path: str, head: Optional[int] = ..., limit: int = ...))"
            " -> TextResult",
        )

    def test_a_model_the_parameters_name_is_spelled_out_after_the_call(self):
        self._tool_with_models(
            "memory",
            "create",
            "class Entity(ToolModel):\n"
            "    observations: List[str] = Field(None, description='Facts')\n"
            "    name: str = Field(..., description='Its name')\n\n\n"
            "class Unused(ToolModel):\n    z: int = Field(..., description='z')\n\n\n"
            "class Params(ToolModel):\n"
            "    entities: List[Entity] = Field(..., description='e')\n",
            "List",
        )
        hit = self.index.search("create", limit=1)[0]
        self.assertEqual(
            hit.signature,
            "create.run(create.Params(entities: List[Entity], limit: int = ...)) -> TextResult"
            "; Entity(name: str, observations: List[str] = ...)",
        )

    def test_an_enum_the_parameters_name_has_its_values_spelled_out(self):
        # server-filesystem's sortBy: an agent had to guess 'size'.
        self._tool_with_models(
            "files",
            "listing",
            "class SortBy(str, Enum):\n    name_ = 'name'\n    size = 'size'\n"
            "    quote = 'it\\'s'\n\n\n"
            "class Level(Enum):\n    minus = -1\n    one = 1\n    long = '" + "x" * 60 + "'\n\n\n"
            "class Params(ToolModel):\n"
            "    sortBy: SortBy = Field(SortBy.name_, description='Order')\n"
            "    level: Optional[Level] = None\n",
            "Optional",
        )
        module = self.workspace / "mcptools" / "files" / "listing.py"
        text = module.read_text(encoding="utf-8").replace(
            "from typing", "from enum import Enum\nfrom typing"
        )
        module.write_text(text, encoding="utf-8")
        self.assertEqual(read_generated(text), outline_from_ast(ast.parse(text)))
        hit = self.index.search("listing", limit=1)[0]
        self.assertEqual(
            hit.signature,
            "listing.run(listing.Params(sortBy: SortBy = ..., level: Optional[Level] = ..., "
            "limit: int = ...)) -> TextResult; SortBy = 'name' | 'size' | \"it's\"; Level = -1 | 1 "
            + "| '"
            + "x" * 36
            + "...",  # a value of 40 characters at most
        )

    def test_a_server_is_described_one_line_a_tool_within_a_budget(self):
        from ipybox_runtime.search import describe_server

        shutil.copytree(
            support.GOLDEN_DIR / "everything" / "expected" / "everything",
            self.workspace / "mcptools" / "everything",
        )
        lines = describe_server("everything", self.workspace).split("\n")
        self.assertTrue(lines[0].startswith("mcptools.everything: 9 tools; call one as"))
        # The result most tools share is named once, and only the others' on their lines.
        self.assertTrue(
            lines[0].endswith("; each returns TextResult (the text, a str) unless shown"), lines[0]
        )
        self.assertIn("echo", lines)  # the module's name on a line of its own, as the reference
        self.assertIn("  Params(message: str)  # Echoes back the input", lines)
        self.assertEqual(len(lines), 19)
        short = describe_server("everything", self.workspace, budget=200).split("\n")
        self.assertLessEqual(sum(len(line) + 1 for line in short[:-1]), 200)
        self.assertRegex(short[-1], r"^\.\.\. \d+ more: search_tools")

    def test_a_call_splits_into_arguments_result_and_models_at_the_top_level_only(self):
        from ipybox_runtime.search import _call_parts

        cases = {
            "t(a: int) -> Result(x: str)": ("(a: int)", "Result(x: str)", ""),
            "t(e: List[E]) -> Result(n: Dict[str, Tuple[int, int]]); E(a: str; b)": (
                "(e: List[E])",
                "Result(n: Dict[str, Tuple[int, int]])",
                "; E(a: str; b)",
            ),
            "t(e: List[E]); E(a: str)": ("(e: List[E])", "", "; E(a: str)"),
            "t()": ("()", "", ""),
            "t": ("t", "", ""),
        }
        for call, parts in cases.items():
            self.assertEqual(_call_parts(call), parts, call)

    def test_a_shared_result_is_named_once_only_when_that_is_shorter(self):
        from ipybox_runtime.search import _common_result

        self.assertEqual(_common_result(["TextResult"] * 3 + ["Result(a: int)"]), "TextResult")
        # Two lines of a short result save less than the header's words cost: repeated instead.
        self.assertEqual(_common_result(["R", "R", "Result(a: int)"]), "")
        self.assertEqual(_common_result(["Result(content: str)"]), "")  # one tool: nothing shared
        self.assertEqual(_common_result(["", ""]), "")
        # A tie goes to the shorter result: deterministic whatever the tools' order.
        tie = ["Result(a: int, b: int)"] * 3 + ["Result(c: str)"] * 3
        self.assertEqual(_common_result(tie), _common_result(list(reversed(tie))))

    def test_no_match_and_bad_arguments(self):
        self.assertEqual(str(search_tools("anything")), "no matching tools")
        with self.assertRaises(ValueError):
            search_tools("x", limit=0)
        with self.assertRaisesRegex(ValueError, "unknown kinds"):
            search_tools("x", kinds=["tool"])


class LibraryTest(SearchTestCase):
    def test_saved_actions_of_every_root_with_origin_calls_and_kinds(self):
        action = write_action(self.user_library, "files", "largest", "Largest files of a folder")
        (action / "impl.py").write_text(
            "from mcptools.fs import list_directory\nimport mcptools.fs.get_file_info\n"
        )
        parsers = self.workspace / "mcpparse" / "fs"
        parsers.mkdir(parents=True)
        (parsers / "list_directory.py").write_text(
            '"""Parses directory listings of files."""\n\ndef parse(text: str) -> list:\n    ...\n'
        )
        hits = search_tools("largest files", kinds=["gentool"])
        self.assertEqual(len(hits), 1)
        self.assertEqual(
            (hits[0].name, hits[0].origin, hits[0].signature, hits[0].calls),
            (
                "gentools.files.largest",
                "user",
                "run()",
                ("fs.get_file_info", "fs.list_directory"),
            ),
        )
        parser = search_tools("directory listings", kinds="parser")[0]
        self.assertEqual(parser.signature, "list_directory.parse(text: str) -> list")

    def test_actions_calling_a_changed_tool_are_marked(self):
        action = write_action(self.workspace / "gentools", "chat", "shout", "Shouts a message")
        (action / "impl.py").write_text("from mcptools.everything import echo\n")
        self.assertEqual(search_tools("shout")[0].changed, ())
        flags = {"gentools.chat.shout": {"tools": ["everything.echo"]}}
        flags["gentools.chat.shout"]["stamp"] = library.action_stamp(action)
        with unittest.mock.patch.dict(
            os.environ, {library.CHANGED_TOOLS_VARIABLE: json.dumps(flags)}
        ):
            hit = search_tools("shout")[0]
            self.assertEqual(hit.changed, ("everything.echo",))
            self.assertIn("schema changed: everything.echo", str(hit))
            self.assertIn("[calls changed tools: everything.echo]", catalog())
            # Editing the action (after checking it) clears the flag.
            (action / "impl.py").write_text("from mcptools.everything import echo  # checked\n")
            self.assertEqual(search_tools("shout")[0].changed, ())


def regenerate(server: pathlib.Path, module: str, text: str) -> None:
    """Rewrites one server's package as ipybox does: a new folder replaces the old one."""
    staging = server.with_name(server.name + ".new")
    shutil.copytree(server, staging)
    (staging / module).write_text(text, encoding="utf-8")
    shutil.rmtree(server)
    staging.rename(server)


class PlantedFilesTest(SearchTestCase):
    def test_a_fifo_or_a_link_to_dev_zero_is_left_out_not_waited_on(self):
        servers = self.workspace / "mcptools" / "everything"
        servers.mkdir(parents=True)
        (servers / "echo.py").write_text('"""Echoes a message back."""\n')
        os.mkfifo(servers / "fifo.py")
        os.symlink("/dev/zero", servers / "zero.py")
        action = write_action(self.workspace / "gentools", "text", "shout", "Shouts a text")
        os.mkfifo(action / "impl.py")
        # Returning at all is the point: open() waits for a FIFO's writer, read() of /dev/zero
        # never ends.
        self.assertEqual([hit.name for hit in search_tools("echoes")], ["mcptools.everything.echo"])
        self.assertIn("mcptools.everything.echo", catalog())
        self.assertIn("(cannot be read", catalog())
        # Control: the FIFO is one, and the link reads without end.
        self.assertTrue(stat.S_ISFIFO(os.stat(servers / "fifo.py").st_mode))
        with open(servers / "zero.py", "rb") as endless:
            self.assertEqual(len(endless.read(1 << 20)), 1 << 20)


class RefreshTest(SearchTestCase):
    def test_reads_only_new_and_changed_files(self):
        synthetic_tools(self.workspace, 50)
        self.index.search("x")
        self.assertEqual(self.index.reads, 50)
        self.assertFalse(self.index.refresh())
        self.assertEqual(self.index.reads, 50)

        changed = next((self.workspace / "mcptools").glob("*/*.py"))
        regenerate(changed.parent, changed.name, '"""Launches a zeppelin."""\n')
        # A workspace file is shown relative to the workspace.
        self.assertEqual(
            self.index.search("zeppelin")[0].path, str(changed.relative_to(self.workspace))
        )
        self.assertEqual(self.index.reads, 51)  # the other modules of that server are unchanged

        changed.unlink()
        os.utime(changed.parent, ns=(1, 1))  # a different stamp even on coarse clocks
        self.assertEqual(list(self.index.search("zeppelin")), [])
        write_action(self.workspace / "gentools", "air", "balloon", "Launches a balloon")
        self.assertEqual(self.index.search("balloon")[0].name, "gentools.air.balloon")
        self.assertEqual(self.index.reads, 52)
        self.assertEqual(len(self.index), 50)

    def test_files_edited_in_place_are_read_again(self):
        parser = self.workspace / "mcpparse" / "fs" / "listing.py"
        parser.parent.mkdir(parents=True)
        parser.write_text('"""Parses a listing."""\n', encoding="utf-8")
        action = write_action(self.workspace / "gentools", "air", "balloon", "Launches a balloon")
        self.assertEqual(len(self.index.search("listing balloon")), 2)
        parser.write_text('"""Parses a zeppelin manifest."""\n', encoding="utf-8")
        (action / "api.py").write_text('"""Launches a blimp."""\n', encoding="utf-8")
        for path in (parser, action / "api.py"):
            os.utime(path, ns=(1, 1))
        self.assertEqual(
            [hit.name for hit in self.index.search("zeppelin blimp")],
            ["gentools.air.balloon", "mcpparse.fs.listing"],
        )

    def test_a_new_index_reads_only_what_changed_since_the_cached_one(self):
        synthetic_tools(self.workspace, 30)
        first = ToolIndex(self.workspace)
        first.search("x")
        self.assertEqual(first.reads, 30)
        write_action(self.workspace / "gentools", "air", "balloon", "Launches a balloon")
        second = ToolIndex(self.workspace)
        self.assertEqual(second.search("balloon")[0].name, "gentools.air.balloon")
        self.assertEqual((second.reads, len(second)), (1, 31))
        (self.workspace / ".ipybox" / "search-index.json").write_text("{not json")
        third = ToolIndex(self.workspace)
        self.assertEqual(len(third.search("balloon")), 1)
        self.assertEqual(third.reads, 31)


class GeneratedReaderTest(unittest.TestCase):
    """The fast reader of generated modules agrees with ast wherever it answers."""

    def test_agrees_with_ast_on_every_golden_module_and_reads_most_itself(self):
        modules = sorted(support.GOLDEN_DIR.glob("*/expected/*/*.py"))
        modules = [path for path in modules if path.name != "__init__.py"]
        self.assertGreater(len(modules), 30)
        fast = 0
        for path in modules:
            text = path.read_text(encoding="utf-8")
            with self.subTest(module=str(path.relative_to(support.GOLDEN_DIR))):
                outline = read_generated(text)
                if outline is not None:
                    fast += 1
                    self.assertEqual(outline, outline_from_ast(ast.parse(text)))
        # Most generated modules are read without ast; the hostile ones fall back to it.
        self.assertGreater(fast, len(modules) * 0.7, f"{fast} of {len(modules)}")

    def test_agrees_with_ast_on_the_synthetic_modules(self):
        workspace = pathlib.Path(tempfile.mkdtemp(prefix="ipybox-reader-"))
        self.addCleanup(shutil.rmtree, workspace, ignore_errors=True)
        synthetic_tools(workspace, 50)
        for path in sorted(workspace.glob("mcptools/*/*.py")):
            text = path.read_text(encoding="utf-8")
            outline = read_generated(text)
            self.assertIsNotNone(outline, path)
            self.assertEqual(outline, outline_from_ast(ast.parse(text)))

    def test_falls_back_for_what_it_does_not_recognise(self):
        for text in (
            "x = 1\n",
            '"""Doc."""\n\n@decorator\ndef run(): pass\n',
            '"""Doc \\" escaped."""\n',
            '"""Doc."""\n\n\nclass Params(ToolModel):\n    a: str = f(...)\n',
            '"""Doc."""\n\n\nclass Params(ToolModel):\n    a: str = Field(..., description=r"x")\n',
            '"""Doc."""\n\n\nclass Params(ToolModel):\n    a: Literal["x"] = None\n',
            '"""Doc."""\n\n\nclass Params(ToolModel):\n    a: str  # comment\n',
            '"""Doc."""\n\nasync def run(params: Params) -> str:\n    pass\n',
        ):
            with self.subTest(text=text):
                self.assertIsNone(read_generated(text))

    def test_a_module_the_reader_declines_is_still_indexed_through_ast(self):
        workspace = pathlib.Path(tempfile.mkdtemp(prefix="ipybox-reader-"))
        self.addCleanup(shutil.rmtree, workspace, ignore_errors=True)
        module = workspace / "mcptools" / "odd" / "thing.py"
        module.parent.mkdir(parents=True)
        module.write_text(
            '"""Finds odd things."""\n\nfrom x import (a,\n  b)\n\n\nclass Params(ToolModel):\n'
            '    size: int = Field(..., description="How \\"odd\\" it is")  # note\n\n\n'
            "def run(params: Params) -> str:\n    return ''\n",
            encoding="utf-8",
        )
        document = describe_tool_module(module, "mcptools")
        self.assertEqual(document.summary, "Finds odd things.")
        self.assertEqual(document.signature, "thing.run(thing.Params(size: int)) -> str")
        self.assertIn("odd", document.terms)
