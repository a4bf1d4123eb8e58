"""Saving actions (issue 24): drafts checked in the project, their needs recorded, copied to the
user library; a missing dependency named with the call that adds it; check() findings; search
hits that lead to code."""

from __future__ import annotations

import json
import shutil

import support
from ipybox_runtime import requirements
from ipybox_runtime.checks import CheckFailedError, check
from ipybox_runtime.gentools import new_gentool, save_gentool
from ipybox_runtime.search import ToolIndex
from test_gentools import GentoolsTestCase

API = '''"""Lists what the echo tool says, one word a line. Use it to hear things twice.

More text that is not the summary.
"""

__all__ = ["run"]


def run(message: str, times: int = 1) -> str:
    """Echoes message."""
    from . import impl

    return impl.run(message, times=times)
'''

IMPL = """import json

from mcptools.everything import echo


def run(message: str, times: int = 1) -> str:
    return json.dumps([str(echo.run(echo.Params(message=message)))] * times)
"""

REGISTRATION = {"command": "node", "args": ["server.js"], "env": {"TOKEN": "${TOKEN}"}}


class SavingTestCase(GentoolsTestCase):
    def setUp(self) -> None:
        super().setUp()
        shutil.copytree(
            support.GOLDEN_DIR / "everything" / "expected" / "everything",
            self.workspace / "mcptools" / "everything",
        )
        (self.workspace / "mcptools" / "everything" / "registration.json").write_text(
            json.dumps(REGISTRATION), encoding="utf-8"
        )

    def draft(self, api: str = API, impl: str = IMPL, name: str = "hear"):
        package = new_gentool("sound", name)
        (package / "api.py").write_text(api, encoding="utf-8")
        (package / "impl.py").write_text(impl, encoding="utf-8")
        return package


class SaveTest(SavingTestCase):
    def test_a_checked_draft_is_recorded_and_copied_to_the_user_library(self):
        draft = self.draft()
        saved = save_gentool("sound", "hear")
        self.assertEqual(saved, self.user_library / "sound" / "hear")
        self.assertEqual((saved / "impl.py").read_text(), IMPL)
        requires = requirements.recorded(saved)
        self.assertEqual(requires["servers"], {"everything": REGISTRATION})  # placeholder kept
        echo = (self.workspace / "mcptools" / "everything" / "echo.py").read_text()
        self.assertEqual(requires["tools"], {"everything.echo": requirements.module_hash(echo)})
        self.assertEqual(requires["packages"], {})  # json is the standard library's
        self.assertEqual(requirements.recorded(draft), requires)  # the draft stays, the same

    def test_the_answer_says_what_was_recorded_and_a_package_imported_inside_run_counts(self):
        impl = IMPL.replace(
            "    return json.dumps(",
            "    import IPython.display as display  # noqa: F401 - a submodule, inside run()\n"
            "    return json.dumps(",
        )
        self.draft(impl=impl)
        saved = save_gentool("sound", "hear", scope="project")
        self.assertEqual(list(saved.packages), ["IPython"])
        self.assertEqual(saved.placeholders, ["TOKEN"])
        summary = str(saved)
        self.assertIn("server everything: node server.js", summary)
        self.assertIn("tools pinned: everything.echo", summary)
        self.assertIn("packages: IPython (from ", summary)
        self.assertIn("${TOKEN}", summary)
        self.assertTrue(saved.exists())  # still usable as the folder's path
        self.assertEqual(saved.name, "hear")

    def test_a_draft_that_fails_its_check_is_not_copied(self):
        new_gentool("sound", "hear")  # the scaffold, untouched
        with self.assertRaisesRegex(CheckFailedError, "scaffold: api.py still holds"):
            save_gentool("sound", "hear")
        self.assertFalse((self.user_library / "sound" / "hear").exists())

    def test_no_draft_says_how_to_make_one(self):
        with self.assertRaisesRegex(FileNotFoundError, r"new_gentool\('sound', 'hear'\)"):
            save_gentool("sound", "hear")


class MissingDependencyTest(SavingTestCase):
    def test_an_action_used_where_its_server_is_missing_names_the_call_that_adds_it(self):
        self.draft(impl=IMPL.replace("import json", "import json\nimport no_such_pkg_i24"))
        (self.workspace / "gentools" / "sound" / "hear" / "impl.py").write_text(IMPL)
        save_gentool("sound", "hear")
        shutil.rmtree(self.workspace / "gentools")
        shutil.rmtree(self.workspace / "mcptools" / "everything")  # another project, say
        text = self.assertRunsFresh(
            "from ipybox_runtime import library\nlibrary.install()\n"
            "try:\n    import gentools.sound.hear\n"
            "except ImportError as error:\n    print(type(error).__name__, error)\n"
        )
        self.assertIn("MissingDependencyError gentools.sound.hear cannot run in this project", text)
        self.assertIn(
            "MCP server 'everything' is not registered in this project: call register_mcp_server "
            + json.dumps(
                {"server_name": "everything", "server_params": REGISTRATION}, sort_keys=True
            ),
            text,
        )

    def test_a_recorded_path_of_another_project_is_flagged_where_the_server_is_offered(self):
        script = str(support.SOURCE_DIR / "tests" / "fuzz" / "run_fuzz.py")  # a file it runs
        other = {"command": "node", "args": [script, "/home/u/proj1"]}
        mine = {"command": "node", "args": ["server.js", "${IPYBOX_WORKSPACE}"]}
        here = requirements.missing({"servers": {"fs": other}}, self.workspace)
        self.assertEqual(len(here), 1)
        self.assertIn("CHECK FIRST: it names /home/u/proj1, outside this project", here[0])
        self.assertNotIn("run_fuzz.py", here[0].split("CHECK FIRST")[1])  # a program, no folder
        # The control: a registration recorded with the placeholder is offered as it is.
        self.assertNotIn(
            "CHECK FIRST", requirements.missing({"servers": {"fs": mine}}, self.workspace)[0]
        )

    def test_a_path_that_climbs_out_of_the_project_is_flagged(self):
        climbing = str(self.workspace / ".." / "proj1")
        inside = str(self.workspace / "data" / "." / "x")
        flagged = requirements.foreign_paths({"args": [climbing, inside]}, self.workspace)
        self.assertEqual(flagged, [climbing])

    def test_a_parser_the_action_imports_is_recorded_and_named_where_missing(self):
        parser = self.workspace / "mcpparse" / "everything" / "echo.py"
        parser.parent.mkdir(parents=True)
        parser.write_text("def run_parsed(params):\n    return params\n", encoding="utf-8")
        self.draft(
            impl=IMPL.replace(
                "from mcptools.everything import echo",
                "from mcptools.everything import echo\n"
                "from mcpparse.everything.echo import run_parsed",
            )
        )
        requires = requirements.recorded(save_gentool("sound", "hear"))
        self.assertEqual(requires["parsers"], ["everything.echo"])
        self.assertEqual(requirements.missing(requires, self.workspace), [])
        shutil.rmtree(self.workspace / "mcpparse")  # another project, say
        self.assertEqual(
            requirements.missing(requires, self.workspace),
            [
                "parser mcpparse.everything.echo is not in this project: copy "
                "mcpparse/everything/echo.py from the project that saved the action (parsers are "
                "written by hand, never generated)"
            ],
        )

    def test_a_missing_package_is_named_with_install_package(self):
        lines = requirements.missing({"packages": {"no_such_pkg_i24": "No-Such"}})
        self.assertEqual(
            lines,
            [
                "package 'No-Such' (import no_such_pkg_i24) is not installed: call install_package "
                '{"package_name": "No-Such"}'
            ],
        )


class FindingsTest(SavingTestCase):
    def reason(self, name: str) -> str:
        (item,) = check([f"sound.{name}"])
        self.assertFalse(item.ok, str(item))
        return item.reason

    def test_the_scaffold_and_not_implemented_are_findings(self):
        new_gentool("sound", "stub")
        reason = self.reason("stub")
        self.assertIn('scaffold: api.py still holds the scaffold\'s \'"""TODO: one line', reason)
        self.assertIn("not-implemented: run() in impl.py raises NotImplementedError", reason)

    def test_a_signature_mismatch_is_a_finding(self):
        self.draft(impl=IMPL.replace("times: int = 1", "count: int = 1"), name="skew")
        self.assertIn(
            "signature: api.py has run(message, times=1) but impl.py has run(message, count=1)",
            self.reason("skew"),
        )

    def test_a_tool_changed_since_the_save_is_a_finding(self):
        self.draft()
        save_gentool("sound", "hear", scope="project")
        self.assertTrue(check(["sound.hear"]).ok)
        echo = self.workspace / "mcptools" / "everything" / "echo.py"
        echo.write_text(echo.read_text().replace("Echoes", "Repeats"))
        self.assertIn("changed-tool: mcptools.everything.echo changed", self.reason("hear"))

    def test_a_missing_server_is_a_finding(self):
        self.draft()
        shutil.rmtree(self.workspace / "mcptools" / "everything")
        self.assertIn(
            "missing-dependency: MCP server 'everything' is not registered", self.reason("hear")
        )


class SearchHitTest(SavingTestCase):
    def test_a_hit_leads_to_code_and_says_whether_it_runs_here(self):
        self.draft()
        save_gentool("sound", "hear")
        (hit,) = ToolIndex(self.workspace, use_cache=False).search("hear echo", kinds=["gentool"])
        self.assertEqual(hit.origin, "project")
        self.assertEqual(hit.path, "gentools/sound/hear/api.py")
        self.assertEqual(hit.summary, "Lists what the echo tool says, one word a line.")
        self.assertEqual(hit.signature, "run(message: str, times: int=1) -> str")
        self.assertTrue(hit.usable)
        self.assertIn("user (", hit.shadows)
        self.assertIn("[gentool, project, shadows user (", str(hit))

        shutil.rmtree(self.workspace / "gentools")
        shutil.rmtree(self.workspace / "mcptools" / "everything")
        (hit,) = ToolIndex(self.workspace, use_cache=False).search("hear", kinds=["gentool"])
        self.assertEqual((hit.origin, hit.path), ("user", "user-library/sound/hear/api.py"))
        self.assertFalse(hit.usable)
        self.assertIn("[gentool, user, NOT usable here]", str(hit))
        self.assertIn("! MCP server 'everything' is not registered", str(hit))
