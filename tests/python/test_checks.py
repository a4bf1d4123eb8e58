"""ipybox_runtime.checks: saved actions are imported and their examples run, never changed."""

from __future__ import annotations

import json

from ipybox_runtime.checks import check, check_json
from test_gentools import GentoolsTestCase
from test_library import write_action

GOOD_API = '''"""Doubles a number.

    >>> run(21)
    42
"""


def run(number: int) -> int:
    from . import impl

    return impl.run(number)
'''

IMPL = "def run(number):\n    return 2 * number\n"


class CheckTest(GentoolsTestCase):
    def action(self, name: str, api: str, impl: str = IMPL, root=None):
        directory = write_action(root or self.workspace / "gentools", "math", name, "x")
        (directory / "api.py").write_text(api, encoding="utf-8")
        (directory / "impl.py").write_text(impl, encoding="utf-8")
        return directory

    def test_good_broken_and_impl_only_actions(self):
        self.action("double", GOOD_API)
        self.action("missing_import", GOOD_API, impl="import no_such_module\n" + IMPL)
        self.action("needs_impl", "from .impl import run\n")
        self.action("wrong_example", GOOD_API.replace("42", "41"))
        (self.user_library / "math").mkdir(parents=True)
        self.action("triple", GOOD_API.replace("Doubles", "Triples"), root=self.user_library)
        before = {path: path.read_bytes() for path in self.workspace.rglob("*.py")}

        report = check()
        by_module = {item.module.rsplit(".", 1)[1]: item for item in report}
        self.assertEqual(
            {name: item.ok for name, item in by_module.items()},
            {
                "double": True,
                "missing_import": False,
                "needs_impl": False,
                "wrong_example": False,
                "triple": True,
            },
        )
        self.assertEqual(by_module["double"].examples_run, 1)
        self.assertEqual(by_module["triple"].origin, "user")
        self.assertIn(
            "impl.py does not import: ModuleNotFoundError", by_module["missing_import"].reason
        )
        self.assertIn("api.py does not import without impl.py", by_module["needs_impl"].reason)
        self.assertIn("an example in api.py failed", by_module["wrong_example"].reason)
        self.assertIn("41", by_module["wrong_example"].reason)
        self.assertFalse(report.ok)
        self.assertIn("5 actions checked, 3 broken", str(report))
        after = {path: path.read_bytes() for path in self.workspace.rglob("*.py")}
        self.assertEqual(before, after, "a check changed or deleted files")

    def test_an_api_without_all_is_named_as_such(self):
        # The scaffold's __init__.py imports api's __all__; an api.py written without it failed
        # as "api.py does not import without impl.py", which sent an agent to impl.py.
        directory = self.action("no_all", GOOD_API)
        (directory / "__init__.py").write_text(
            "from .api import *  # noqa: F401,F403\nfrom .api import __all__  # noqa: F401\n",
            encoding="utf-8",
        )
        self.action("with_all", "__all__ = ['run']\n\n" + GOOD_API)
        (self.workspace / "gentools" / "math" / "with_all" / "__init__.py").write_text(
            "from .api import *  # noqa: F401,F403\nfrom .api import __all__  # noqa: F401\n",
            encoding="utf-8",
        )
        by_module = {item.module.rsplit(".", 1)[1]: item for item in check()}
        self.assertFalse(by_module["no_all"].ok)
        self.assertIn("api.py has no __all__", by_module["no_all"].reason)
        self.assertTrue(by_module["with_all"].ok, by_module["with_all"].reason)  # the control

    def test_only_the_named_actions_and_json(self):
        self.action("double", GOOD_API)
        self.action("needs_impl", "from .impl import run\n")
        self.assertTrue(check(["math.double"]).ok)
        rows = json.loads(check_json())
        self.assertEqual(
            [(row["module"], row["ok"]) for row in rows],
            [("gentools.math.double", True), ("gentools.math.needs_impl", False)],
        )

    def test_refused_tool_calls_count_as_not_run(self):
        api = GOOD_API.replace(
            ">>> run(21)\n    42",
            ">>> from ipybox_runtime.errors import ApprovalRejectedError\n"
            "    >>> raise ApprovalRejectedError('no')",
        )
        self.action("dry", api)
        item = check()[0]
        self.assertTrue(item.ok, item.reason)
        self.assertIn("1 not run (tool calls refused)", item.reason)
