"""Packages of actions saved in the user library (issue 24, seam 5): where such an action lacks a
package, the error, the search hit and check() name install_package with "scope": "user" (the
per-user folder every project's kernel sees); for a project action they name the call without
it."""

from __future__ import annotations

import json
import shutil

from ipybox_runtime import requirements, saving
from ipybox_runtime.checks import check
from ipybox_runtime.gentools import save_gentool
from ipybox_runtime.search import ToolIndex
from test_saving import SavingTestCase

PROJECT_CALL = "call install_package " + json.dumps({"package_name": "No-Such"})
USER_CALL = "call install_package " + json.dumps(
    {"package_name": "No-Such", "scope": "user"}, sort_keys=True
)


class UserPackageTest(SavingTestCase):
    def save_needing_a_package(self) -> None:
        """Saves sound.hear in the project and the user library, both recording that they need
        the distribution No-Such (import no_such_pkg_i24), which is not installed."""
        self.draft()
        saved = save_gentool("sound", "hear")
        requires = dict(requirements.recorded(saved) or {})
        requires["packages"] = {"no_such_pkg_i24": "No-Such"}
        for folder in (saved, self.workspace / "gentools" / "sound" / "hear"):
            (folder / "__init__.py").write_text(saving.render_init("sound", "hear", requires))

    def test_importing_a_user_action_names_install_package_with_scope_user(self):
        self.save_needing_a_package()
        shutil.rmtree(self.workspace / "gentools")  # another project: only the user's copy
        text = self.assertRunsFresh(
            "from ipybox_runtime import library\nlibrary.install()\n"
            "try:\n    import gentools.sound.hear\n"
            "except ImportError as error:\n    print(type(error).__name__, error)\n"
        )
        self.assertIn("MissingDependencyError gentools.sound.hear cannot run", text)
        self.assertIn(
            f"package 'No-Such' (import no_such_pkg_i24) is not installed: {USER_CALL}", text
        )

    def test_importing_the_project_copy_names_install_package_for_the_project(self):
        self.save_needing_a_package()  # the project's draft wins over the user's copy
        text = self.assertRunsFresh(
            "from ipybox_runtime import library\nlibrary.install()\n"
            "try:\n    import gentools.sound.hear\n"
            "except ImportError as error:\n    print(type(error).__name__, error)\n"
        )
        self.assertIn(f"is not installed: {PROJECT_CALL}", text)
        self.assertNotIn('"scope"', text)

    def test_a_user_action_hit_and_its_check_name_scope_user(self):
        self.save_needing_a_package()
        (hit,) = ToolIndex(self.workspace, use_cache=False).search("hear", kinds=["gentool"])
        self.assertEqual(hit.origin, "project")
        self.assertIn(
            f"! package 'No-Such' (import no_such_pkg_i24) is not installed: {PROJECT_CALL}",
            str(hit),
        )
        shutil.rmtree(self.workspace / "gentools")
        (hit,) = ToolIndex(self.workspace, use_cache=False).search("hear", kinds=["gentool"])
        self.assertEqual(hit.origin, "user")
        self.assertIn(
            f"! package 'No-Such' (import no_such_pkg_i24) is not installed: {USER_CALL}", str(hit)
        )
        (item,) = check(["sound.hear"])
        self.assertIn(
            "missing-dependency: package 'No-Such' (import no_such_pkg_i24) is not installed: "
            + USER_CALL,
            item.reason,
        )
