"""ipybox_runtime.library: gentools roots, their precedence, clashes; new_gentool's scope."""

from __future__ import annotations

import os
import pathlib
import unittest.mock

from ipybox_runtime import library
from ipybox_runtime.gentools import catalog, new_gentool
from test_gentools import GentoolsTestCase


def write_action(root: pathlib.Path, category: str, name: str, summary: str) -> pathlib.Path:
    """A minimal saved action whose run() returns ``summary``."""
    action = root / category / name
    action.mkdir(parents=True)
    (root / category / "__init__.py").write_text("", encoding="utf-8")
    (action / "__init__.py").write_text("from .api import run\n", encoding="utf-8")
    (action / "api.py").write_text(
        f'"""{summary}"""\n\n\ndef run():\n    return {summary!r}\n', encoding="utf-8"
    )
    return action


class RootsTest(GentoolsTestCase):
    def test_project_first_then_the_configured_roots(self):
        extra = self.workspace / "team-library"
        with unittest.mock.patch.dict(
            os.environ, {"IPYBOX_LIBRARY_ROOTS": f"{self.user_library}{os.pathsep}{extra}"}
        ):
            roots = library.library_roots()
        self.assertEqual(
            [(root.path, root.origin) for root in roots],
            [
                (self.workspace / "gentools", "project"),
                (self.user_library, "user"),
                (extra, "library"),
            ],
        )

    def test_default_user_library_follows_xdg_data_home_then_home(self):
        self.assertEqual(
            library.default_user_root({"XDG_DATA_HOME": "/data", "HOME": "/home/u"}),
            pathlib.Path("/data/ipybox/gentools"),
        )
        self.assertEqual(
            library.default_user_root({"XDG_DATA_HOME": "relative", "HOME": "/home/u"}),
            pathlib.Path("/home/u/.local/share/ipybox/gentools"),
        )
        with unittest.mock.patch.dict(os.environ, {"XDG_DATA_HOME": "/xdg"}):
            del os.environ["IPYBOX_LIBRARY_ROOTS"]
            self.assertEqual(library.library_roots()[1].path, pathlib.Path("/xdg/ipybox/gentools"))

    def test_new_gentool_scope_chooses_the_root(self):
        user = new_gentool("files", "largest", scope="user")
        project = new_gentool("files", "newest")
        self.assertEqual(user, self.user_library / "files" / "largest")
        self.assertEqual(project, self.workspace / "gentools" / "files" / "newest")
        with self.assertRaisesRegex(ValueError, "scope must be"):
            new_gentool("files", "other", scope="team")
        lines = catalog().splitlines()
        self.assertIn("(user)", next(line for line in lines if "files.largest" in line))
        self.assertIn("(project)", next(line for line in lines if "files.newest" in line))


class ImportTest(GentoolsTestCase):
    def test_every_root_imports_as_gentools_and_the_project_wins(self):
        write_action(self.workspace / "gentools", "web", "fetch", "project fetch")
        write_action(self.user_library, "web", "crawl", "user crawl")
        (self.user_library / "web" / "fetch").mkdir()
        (self.user_library / "web" / "fetch" / "api.py").write_text(
            '"""user fetch"""\ndef run():\n    return "user fetch"\n', encoding="utf-8"
        )
        write_action(self.user_library, "math", "total", "user total")
        output = self.assertRunsFresh(
            """
            from ipybox_runtime import library
            library.install()
            from gentools.web.fetch import run as fetch
            from gentools.web.crawl import run as crawl
            from gentools.math.total import run as total
            import sys
            sys.path.append("/elsewhere")  # a namespace package would recompute its path here
            import gentools.web.crawl.api
            print(fetch(), crawl(), total(), sep="|")
            """
        )
        self.assertEqual(output.strip(), "project fetch|user crawl|user total")
        clashes = library.clashes()
        self.assertEqual(list(clashes), ["gentools.web.fetch"])
        self.assertTrue(clashes["gentools.web.fetch"][0].startswith("project"))
        self.assertIn("clash: gentools.web.fetch", catalog())

    def test_an_action_saved_to_the_user_library_imports_in_the_same_kernel(self):
        output = self.assertRunsFresh(
            """
            from ipybox_runtime import library
            library.install()
            from ipybox_runtime.gentools import new_gentool
            new_gentool("early", "one", scope="user")
            import gentools.early.one
            new_gentool("early", "two", scope="user")   # same category, created later
            new_gentool("early", "three")               # same category, in the project
            import gentools.early.two, gentools.early.three
            print(gentools.early.three.run.__module__)
            """
        )
        self.assertEqual(output.strip(), "gentools.early.three.api")

    def test_a_root_the_kernel_cannot_write_says_so(self):
        with unittest.mock.patch("pathlib.Path.mkdir", side_effect=PermissionError(13, "denied")):
            with self.assertRaisesRegex(
                PermissionError, r"save_gentool\(category, name, scope='user'\)"
            ):
                new_gentool("files", "largest", scope="user")
