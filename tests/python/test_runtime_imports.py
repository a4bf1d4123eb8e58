"""ipybox_runtime's modules import in any order: each one imports first and alone in a fresh
interpreter, and the imports between them form no cycle (issue 35, item 10).

A cycle between the package's own modules makes the outcome depend on which module a kernel
happens to import first (``import ipybox_runtime.saving`` before ``gentools`` raised
ImportError). The static check reads the imports with ``ast``, so a new module or a new import
is covered without being listed here, and names the cycle it finds.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import unittest
from typing import Dict, List, Optional

import support

PACKAGE = "ipybox_runtime"
PACKAGE_DIR = support.RUNTIME_DIR / PACKAGE
INIT = "__init__"

# module -> {imported module: line of the first such import}
Graph = Dict[str, Dict[str, int]]


def module_names() -> List[str]:
    return sorted(path.stem for path in PACKAGE_DIR.glob("*.py"))


def _targets(node: ast.AST, modules: List[str]) -> List[str]:
    """The package's modules an import statement loads; ``[]`` for any other statement."""
    if isinstance(node, ast.Import):
        found = []
        for alias in node.names:
            parts = alias.name.split(".")
            if parts[0] == PACKAGE:
                found.append(parts[1] if len(parts) > 1 and parts[1] in modules else INIT)
        return found
    if not isinstance(node, ast.ImportFrom):
        return []
    if (node.level, node.module) in ((1, None), (0, PACKAGE)):
        # from . import a, b: each submodule, or a name of the package's __init__.
        return [alias.name if alias.name in modules else INIT for alias in node.names]
    if node.level == 1:
        return [node.module.split(".")[0]]
    parts = (node.module or "").split(".")
    if parts[0] == PACKAGE and len(parts) > 1:
        return [parts[1]]
    return []


def _statements(tree: ast.Module, inside_functions: bool) -> List[ast.AST]:
    """Every statement that runs when the module is imported (with ``inside_functions``, also
    those that run only when one of its functions is called)."""
    found: List[ast.AST] = []
    pending: List[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        found.append(node)
        if not inside_functions and isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        pending.extend(ast.iter_child_nodes(node))
    return found


def import_graph(inside_functions: bool) -> Graph:
    modules = module_names()
    graph: Graph = {}
    for name in modules:
        path = PACKAGE_DIR / f"{name}.py"
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges: Dict[str, int] = {}
        for node in _statements(tree, inside_functions):
            for target in _targets(node, modules):
                if target != name:
                    edges[target] = min(edges.get(target, node.lineno), node.lineno)
        graph[name] = edges
    return graph


def find_cycle(graph: Graph) -> Optional[List[str]]:
    """One cycle of ``graph`` as ``[a, b, ..., a]``, or ``None`` when it has none."""
    finished = set()
    path: List[str] = []

    def visit(node: str) -> Optional[List[str]]:
        if node in path:
            return path[path.index(node) :] + [node]
        if node in finished:
            return None
        path.append(node)
        for target in sorted(graph.get(node, {})):
            cycle = visit(target)
            if cycle:
                return cycle
        path.pop()
        finished.add(node)
        return None

    for start in sorted(graph):
        cycle = visit(start)
        if cycle:
            return cycle
    return None


def describe(cycle: List[str], graph: Graph) -> str:
    steps = [
        f"{source}.py line {graph[source][target]} imports {target}"
        for source, target in zip(cycle, cycle[1:])
    ]
    return f"{PACKAGE} imports in a cycle: {' -> '.join(cycle)} ({'; '.join(steps)})"


class ImportGraphTest(unittest.TestCase):
    def test_the_module_level_imports_of_the_runtime_form_no_cycle(self) -> None:
        graph = import_graph(inside_functions=False)
        self.assertIn("saving", graph)  # the walk found the package
        cycle = find_cycle(graph)
        self.assertIsNone(cycle, cycle and describe(cycle, graph))

    def test_no_cycle_hides_behind_an_import_inside_a_function(self) -> None:
        # Moving one side of a cycle into a function avoids the ImportError but keeps the
        # tangle: the modules stay layered even counting imports made only when called.
        graph = import_graph(inside_functions=True)
        cycle = find_cycle(graph)
        self.assertIsNone(cycle, cycle and describe(cycle, graph))

    def test_the_cycle_finder_names_a_cycle(self) -> None:
        graph = {"a": {"b": 3}, "b": {"c": 5}, "c": {"a": 7}, "d": {"a": 1}}
        cycle = find_cycle(graph)
        self.assertEqual(cycle, ["a", "b", "c", "a"])
        self.assertIn("a.py line 3 imports b", describe(cycle, graph))
        self.assertIsNone(find_cycle({"a": {"b": 1}, "b": {}, "c": {"a": 2, "b": 2}}))

    def test_the_import_reader_sees_every_form(self) -> None:
        source = (
            "from . import a, search_tools\n"
            "from .b import x\n"
            "import ipybox_runtime.c\n"
            "from ipybox_runtime.d import y\n"
            "from ipybox_runtime import e\n"
            "import json\n"
            "try:\n    from .f import z\nexcept ImportError:\n    pass\n"
            "def later():\n    from . import g\n"
        )
        modules = ["a", "b", "c", "d", "e", "f", "g"]
        tree = ast.parse(source)
        found = set()
        for node in _statements(tree, inside_functions=False):
            found.update(_targets(node, modules))
        self.assertEqual(found, {"a", INIT, "b", "c", "d", "e", "f"})
        found_all = set()
        for node in _statements(tree, inside_functions=True):
            found_all.update(_targets(node, modules))
        self.assertEqual(found_all, found | {"g"})


def import_fresh(statement: str) -> subprocess.CompletedProcess:
    """Runs ``statement`` as the first thing a new interpreter does with the runtime."""
    code = f"import sys; sys.path.insert(0, {str(support.RUNTIME_DIR)!r}); {statement}"
    return subprocess.run(
        [sys.executable, "-B", "-c", code], capture_output=True, text=True, timeout=120
    )


class ImportFirstTest(unittest.TestCase):
    def test_every_module_imports_first_and_alone_in_a_fresh_interpreter(self) -> None:
        modules = module_names()
        self.assertIn("saving", modules)
        for name in modules:
            module = PACKAGE if name == INIT else f"{PACKAGE}.{name}"
            with self.subTest(module=module):
                result = import_fresh(f"import {module}")
                self.assertEqual(result.returncode, 0, f"import {module} first:\n{result.stderr}")

    def test_the_orders_named_in_the_review_import(self) -> None:
        for statement in (
            "from ipybox_runtime import requirements, saving, gentools",
            "from ipybox_runtime import checks, saving",
            "from ipybox_runtime import action_findings, gentools",
        ):
            with self.subTest(statement=statement):
                result = import_fresh(statement)
                self.assertEqual(result.returncode, 0, f"{statement}:\n{result.stderr}")


if __name__ == "__main__":
    unittest.main()
