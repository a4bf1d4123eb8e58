"""ipybox_runtime.gentools: the scaffold of saved code actions and its instantiation."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import textwrap
import unittest
import unittest.mock

import support
from ipybox_runtime import gentools
from ipybox_runtime.errors import ApprovalRejectedError, ToolRunnerError
from ipybox_runtime.gentools import catalog, new_gentool, template_dir

SOURCE_TEMPLATE = support.SOURCE_DIR / "gentools-template"

# A filled-in saved action, as an agent would write it after a code action worked: two steps
# composed in impl.py, typed models in api.py.
FILLED_API = '''\
"""Sums numbers and labels the total.

Usage: from gentools.math.labelled_sum import run; run([1, 2, 3], label="total")
"""

from typing import List

from ipybox_runtime.models import Field, ToolModel

__all__ = ["LabelledSum", "run"]


class LabelledSum(ToolModel):
    """A sum and its label."""

    total: int = Field(..., description="The sum of the numbers")
    text: str = Field(..., description="'<label>: <total>'")


def run(numbers: List[int], label: str = "sum") -> LabelledSum:
    """Adds up ``numbers`` and returns the total with ``label``."""
    from . import impl

    return impl.run(numbers=numbers, label=label)
'''

FILLED_IMPL = '''\
"""The work behind gentools.math.labelled_sum."""

from typing import List

from .api import LabelledSum


def run(numbers: List[int], label: str = "sum") -> LabelledSum:
    total = sum(numbers)
    return LabelledSum(total=total, text=f"{label}: {total}")
'''


def run_fresh_python(workspace: pathlib.Path, code: str) -> subprocess.CompletedProcess:
    """Runs ``code`` in a new interpreter whose cwd is the workspace, the runtime importable."""
    environment = dict(os.environ)
    environment["PYTHONPATH"] = str(support.RUNTIME_DIR)
    environment["IPYBOX_WORKSPACE"] = str(workspace)
    environment["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=workspace,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )


def copy_runtime(target: pathlib.Path) -> None:
    """The runtime package as installed, without the tests' bytecode."""
    source = pathlib.Path(gentools.__file__).parent
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))


class GentoolsTestCase(unittest.TestCase):
    def setUp(self) -> None:
        self.workspace = pathlib.Path(tempfile.mkdtemp(prefix="ipybox-gentools-")).resolve()
        self.addCleanup(shutil.rmtree, self.workspace, ignore_errors=True)
        # The user library is a scratch folder too: the tests must never see the real one.
        self.user_library = self.workspace / "user-library"
        patcher = unittest.mock.patch.dict(
            os.environ,
            {
                "IPYBOX_WORKSPACE": str(self.workspace),
                "IPYBOX_LIBRARY_ROOTS": str(self.user_library),
            },
        )
        patcher.start()
        self.addCleanup(patcher.stop)

    def assertRunsFresh(self, code: str) -> str:  # noqa: N802 - unittest naming
        result = run_fresh_python(self.workspace, code)
        self.assertEqual(
            result.returncode, 0, f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
        return result.stdout


class NamesTest(GentoolsTestCase):
    def test_refuses_names_that_are_not_plain_identifiers(self):
        bad = [
            "",
            "has-dash",
            "two words",
            "1st",
            "class",
            "None",
            "_private",
            "__init__",
            "a/b",
            "a\\b",
            "..",
            ".",
            "café",
            "x.y",
        ]
        for value in bad:
            for arguments in ((value, "ok_name"), ("ok_category", value)):
                with self.subTest(arguments=arguments):
                    with self.assertRaises(ValueError) as caught:
                        new_gentool(*arguments)
                    self.assertIn(repr(value), str(caught.exception))
        self.assertEqual(list(self.workspace.iterdir()), [], "a refused name wrote something")

    def test_refuses_non_strings(self):
        for value in (None, 3, pathlib.Path("x")):
            with self.subTest(value=value), self.assertRaises(ValueError):
                new_gentool(value, "name")  # type: ignore[arg-type]

    def test_error_says_which_part_is_wrong(self):
        with self.assertRaisesRegex(ValueError, "category 'a/b'.*the rule: lowercase ASCII"):
            new_gentool("a/b", "x")
        with self.assertRaisesRegex(
            ValueError, "category 'Files': it does not start with a lowercase letter; the rule"
        ):
            new_gentool("Files", "x")
        with self.assertRaisesRegex(ValueError, "name 'topRepos'.*other than lowercase"):
            new_gentool("github", "topRepos")
        with self.assertRaisesRegex(ValueError, "name 'for'.*keyword"):
            new_gentool("loops", "for")
        with self.assertRaisesRegex(ValueError, "name '_x'.*start with a lowercase letter"):
            new_gentool("c", "_x")


class LayoutTest(GentoolsTestCase):
    def test_creates_the_package_and_returns_its_directory(self):
        package = new_gentool("github", "top_repositories")
        self.assertEqual(package, self.workspace / "gentools" / "github" / "top_repositories")
        self.assertTrue(package.is_absolute())
        created = sorted(
            str(path.relative_to(self.workspace)) for path in self.workspace.rglob("*.py")
        )
        self.assertEqual(
            created,
            [
                "gentools/github/__init__.py",
                "gentools/github/top_repositories/__init__.py",
                "gentools/github/top_repositories/api.py",
                "gentools/github/top_repositories/impl.py",
            ],
        )

    def test_fills_in_category_and_name(self):
        package = new_gentool("github", "top_repositories")
        for path in [*package.iterdir(), package.parent / "__init__.py"]:
            text = path.read_text(encoding="utf-8")
            self.assertNotIn("{{", text, path)
            self.assertNotIn("}}", text, path)
        self.assertIn("github.top_repositories", (package / "api.py").read_text(encoding="utf-8"))

    def test_relative_root_is_taken_from_the_workspace_not_the_current_directory(self):
        elsewhere = pathlib.Path(tempfile.mkdtemp(prefix="ipybox-cwd-"))
        self.addCleanup(shutil.rmtree, elsewhere, ignore_errors=True)
        previous = os.getcwd()
        os.chdir(elsewhere)
        try:
            package = new_gentool("c", "n", root="saved")
        finally:
            os.chdir(previous)
        self.assertEqual(package, self.workspace / "saved" / "c" / "n")
        self.assertEqual(list(elsewhere.iterdir()), [])

    def test_absolute_root_is_used_as_given(self):
        root = self.workspace / "other" / "place"
        self.assertEqual(new_gentool("c", "n", root=root), root / "c" / "n")


class OverwriteTest(GentoolsTestCase):
    def test_refuses_to_overwrite_and_writes_nothing(self):
        package = self.workspace / "gentools" / "c" / "n"
        package.mkdir(parents=True)
        (package / "impl.py").write_text("KEEP = 1\n", encoding="utf-8")
        with self.assertRaises(FileExistsError) as caught:
            new_gentool("c", "n")
        self.assertIn(str(package / "impl.py"), str(caught.exception))
        self.assertEqual((package / "impl.py").read_text(encoding="utf-8"), "KEEP = 1\n")
        self.assertEqual(sorted(path.name for path in package.iterdir()), ["impl.py"])
        self.assertFalse((package.parent / "__init__.py").exists())

    def test_second_creation_of_the_same_action_is_refused(self):
        package = new_gentool("c", "n")
        (package / "api.py").write_text("# edited\n", encoding="utf-8")
        with self.assertRaisesRegex(FileExistsError, "overwrite=True"):
            new_gentool("c", "n")
        self.assertEqual((package / "api.py").read_text(encoding="utf-8"), "# edited\n")

    def test_overwrite_replaces_the_action_files(self):
        package = new_gentool("c", "n")
        (package / "api.py").write_text("# edited\n", encoding="utf-8")
        self.assertEqual(new_gentool("c", "n", overwrite=True), package)
        self.assertEqual(
            (package / "api.py").read_text(encoding="utf-8"),
            (SOURCE_TEMPLATE / "category/action/api.py")
            .read_text(encoding="utf-8")
            .replace("{{category}}", "c")
            .replace("{{name}}", "n"),
        )

    def test_existing_category_init_is_kept_even_with_overwrite(self):
        category = self.workspace / "gentools" / "c"
        category.mkdir(parents=True)
        (category / "__init__.py").write_text('"""Mine."""\n', encoding="utf-8")
        new_gentool("c", "first")
        new_gentool("c", "first", overwrite=True)
        new_gentool("c", "second")
        self.assertEqual((category / "__init__.py").read_text(encoding="utf-8"), '"""Mine."""\n')


class FilesTest(GentoolsTestCase):
    def test_given_files_replace_the_scaffold_copies(self):
        package = new_gentool("c", "n", files={"api.py": "# interface\n", "impl.py": "X = 1\n"})
        self.assertEqual((package / "api.py").read_text(encoding="utf-8"), "# interface\n")
        self.assertEqual((package / "impl.py").read_text(encoding="utf-8"), "X = 1\n")
        self.assertIn("api", (package / "__init__.py").read_text(encoding="utf-8"))

    def test_refuses_other_file_names_and_writes_nothing(self):
        for files in ({"../api.py": ""}, {"setup.py": ""}, {"api.py": b"bytes"}, ["api.py"]):
            with self.subTest(files=files), self.assertRaises(ValueError):
                new_gentool("c", "n", files=files)
        self.assertFalse((self.workspace / "gentools").exists())


GENTOOLS = ("/gentools",)


class HostSaveTest(GentoolsTestCase):
    """Under --sandbox (IPYBOX_LIBRARY_SAVE=host) scope="user" goes to the tool server."""

    def setUp(self) -> None:
        super().setUp()
        patcher = unittest.mock.patch.dict(os.environ, {"IPYBOX_LIBRARY_SAVE": "host"})
        patcher.start()
        self.addCleanup(patcher.stop)

    def test_user_scope_posts_the_rendered_files_and_writes_nothing_itself(self):
        answer = (200, {"package": str(self.user_library / "c" / "n")})
        with support.fake_tool_server(lambda request: answer, routes=GENTOOLS) as server:
            package = new_gentool("c", "n", scope="user", files={"impl.py": "X = 1\n"})
        self.assertEqual(package, self.user_library / "c" / "n")
        self.assertFalse(self.user_library.exists())
        request = server.requests[0]
        self.assertEqual(request["path"], "/gentools")
        body = json.loads(request["raw"])
        self.assertEqual((body["category"], body["name"], body["overwrite"]), ("c", "n", False))
        self.assertEqual(sorted(body["files"]), ["__init__.py", "api.py", "impl.py"])
        self.assertEqual(body["files"]["impl.py"], "X = 1\n")
        self.assertNotIn("{{name}}", body["files"]["api.py"])
        self.assertIsInstance(body["category_init"], str)

    def test_host_refusals_become_the_usual_exceptions(self):
        cases = [
            ("exists", FileExistsError),
            ("unsafe_path", PermissionError),
            ("rejected", ApprovalRejectedError),
            ("bad_request", ToolRunnerError),
        ]
        for kind, error in cases:
            answer = support.error_result(kind, f"{kind} said the host")
            with self.subTest(kind=kind), support.fake_tool_server(
                lambda r, a=answer: a, routes=GENTOOLS
            ):
                with self.assertRaisesRegex(error, f"{kind} said the host"):
                    new_gentool("c", "n", scope="user", files={"api.py": '"""N."""'})

    def test_names_are_checked_before_anything_is_sent(self):
        with support.fake_tool_server(lambda request: (200, {})) as server:
            for category in ("../x", "class", "a" * 65):
                with self.subTest(category=category), self.assertRaises(ValueError):
                    new_gentool(category, "n", scope="user")
        self.assertEqual(server.requests, [])

    def test_project_scope_is_still_written_by_the_kernel(self):
        with support.fake_tool_server(lambda request: (500, {})) as server:
            package = new_gentool("c", "n")
        self.assertTrue((package / "api.py").is_file())
        self.assertEqual(server.requests, [])


class TemplateTest(GentoolsTestCase):
    def test_source_tree_template_is_found(self):
        self.assertEqual(template_dir(), SOURCE_TEMPLATE.resolve())

    def test_installed_layout_template_is_found(self):
        # share/ipybox/{python/ipybox_runtime/gentools.py, gentools-template}
        share = self.workspace / "prefix" / "share" / "ipybox"
        runtime = share / "python" / "ipybox_runtime"
        copy_runtime(runtime)
        shutil.copytree(SOURCE_TEMPLATE, share / "gentools-template")
        code = f"""
            import sys
            sys.path.insert(0, {str(share / "python")!r})
            from ipybox_runtime.gentools import catalog, new_gentool, template_dir
            print(template_dir())
            print(new_gentool("c", "n"))
        """
        lines = self.assertRunsFresh(code).splitlines()
        self.assertEqual(
            lines, [str(share / "gentools-template"), str(self.workspace / "gentools" / "c" / "n")]
        )

    def test_missing_template_is_reported_with_the_places_looked_at(self):
        runtime = self.workspace / "lonely" / "python" / "ipybox_runtime"
        copy_runtime(runtime)
        code = f"""
            import sys
            sys.path.insert(0, {str(runtime.parent)!r})
            from ipybox_runtime.gentools import new_gentool
            try:
                new_gentool("c", "n")
            except FileNotFoundError as error:
                print(error)
        """
        output = self.assertRunsFresh(code)
        self.assertIn("gentools scaffold is missing", output)
        self.assertIn(str(self.workspace / "lonely" / "gentools-template"), output)
        self.assertFalse((self.workspace / "gentools").exists())


class FreshInterpreterTest(GentoolsTestCase):
    """Saved actions import in a new process, and their interface never imports impl.py."""

    def test_scaffold_as_created_imports_and_run_says_it_is_unimplemented(self):
        new_gentool("c", "n")
        output = self.assertRunsFresh(
            """
            import sys
            from gentools.c.n import Result, run
            import gentools.c.n.api as api
            print("impl imported:", "gentools.c.n.impl" in sys.modules)
            print(sorted(api.__all__))
            try:
                run("x")
            except NotImplementedError as error:
                print("run:", error)
        """
        )
        self.assertIn("impl imported: False", output)
        self.assertIn("['Result', 'run']", output)
        self.assertIn("run: gentools.c.n has no implementation yet", output)

    def test_filled_in_action_runs_and_its_interface_does_not_import_impl(self):
        package = new_gentool("math", "labelled_sum")
        (package / "api.py").write_text(FILLED_API, encoding="utf-8")
        (package / "impl.py").write_text(FILLED_IMPL, encoding="utf-8")
        output = self.assertRunsFresh(
            """
            import sys
            import gentools.math.labelled_sum.api
            print("after api:", "gentools.math.labelled_sum.impl" in sys.modules)
            from gentools.math.labelled_sum import LabelledSum, run
            result = run([2, 3, 37], label="answer")
            print(type(result).__name__, result.total, result.text)
            print("after run:", "gentools.math.labelled_sum.impl" in sys.modules)
        """
        )
        self.assertEqual(
            output.splitlines(),
            [
                "after api: False",
                "LabelledSum 42 answer: 42",
                "after run: True",
            ],
        )

    def test_action_created_in_a_running_process_imports_there_at_once(self):
        output = self.assertRunsFresh(
            """
            from ipybox_runtime.gentools import new_gentool
            new_gentool("early", "one")
            import gentools.early.one  # caches the listing of gentools/
            new_gentool("late", "arrival")
            from gentools.late.arrival import run
            print(run.__module__)
        """
        )
        self.assertEqual(output.strip(), "gentools.late.arrival.api")


class CatalogTest(GentoolsTestCase):
    def test_empty_workspace_says_so(self):
        self.assertIn("nothing under", catalog())

    def test_lists_tools_parsers_and_saved_actions_without_importing_them(self):
        tools = self.workspace / "mcptools" / "everything"
        tools.mkdir(parents=True)
        (tools / "__init__.py").write_text("raise SystemExit('imported')\n", encoding="utf-8")
        (tools / "echo.py").write_text(
            '"""Echoes back the input"""\nraise SystemExit("imported")\n'
            "def run(params): ...\ndef run_parsed(params): ...\n",
            encoding="utf-8",
        )
        (tools / "broken.py").write_text("def (:\n", encoding="utf-8")
        parsers = self.workspace / "mcpparse" / "everything"
        parsers.mkdir(parents=True)
        (parsers / "echo.py").write_text('"""Parses echo text."""\n', encoding="utf-8")
        package = new_gentool("math", "labelled_sum")
        (package / "api.py").write_text(FILLED_API, encoding="utf-8")
        heading, *lines = catalog().splitlines()
        self.assertTrue(heading.startswith("user library: "), heading)
        self.assertEqual(
            [line.split()[0] for line in lines],
            [
                "mcptools.everything.broken",
                "mcptools.everything.echo",
                "mcpparse.everything.echo",
                "gentools.math.labelled_sum",
            ],
        )
        self.assertIn("cannot be read", lines[0])
        self.assertTrue(lines[1].endswith("Echoes back the input [run_parsed]"), lines[1])
        self.assertTrue(lines[3].endswith("(project) Sums numbers and labels the total."), lines[3])
        self.assertNotIn("mcptools.everything.echo", sys.modules)


if __name__ == "__main__":
    unittest.main()
