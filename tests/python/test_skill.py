"""The codeact skill is documentation an agent executes: its Python blocks must at least be
Python, and the names of the runtime they use must exist (issue 24; running every block against
real servers is still to do)."""

from __future__ import annotations

import ast
import importlib
import re
import unittest

import support

SKILL_DIR = support.SOURCE_DIR / "skills" / "codeact"
_BLOCK = re.compile(r"^( *)```python\n(.*?)^\1```", re.S | re.M)


def blocks():
    for path in sorted(SKILL_DIR.rglob("*.md")):
        for match in _BLOCK.finditer(path.read_text(encoding="utf-8")):
            indent = len(match.group(1))
            code = "\n".join(line[indent:] for line in match.group(2).splitlines())
            yield path.relative_to(SKILL_DIR), code


class SkillBlocksTest(unittest.TestCase):
    def test_every_python_block_parses_and_imports_only_what_the_runtime_has(self):
        found = list(blocks())
        self.assertGreater(len(found), 8)
        for where, code in found:
            with self.subTest(where=str(where), code=code[:60]):
                tree = ast.parse(code)
                for node in ast.walk(tree):
                    module = node.module if isinstance(node, ast.ImportFrom) else None
                    if module and module.split(".")[0] == "ipybox_runtime":
                        imported = importlib.import_module(module)
                        for alias in node.names:
                            self.assertTrue(
                                hasattr(imported, alias.name),
                                f"{node.module} has no {alias.name}",
                            )
