"""shell_approval finds the script magics however IPython registers them."""

from __future__ import annotations

import unittest
from types import SimpleNamespace

from ipybox_runtime import shell_approval


class LazyRegistry(dict):
    """As IPython 9.18's magics registry: a class is loaded when an index misses it."""

    def __missing__(self, key: str) -> object:
        if key != "ScriptMagics":
            raise KeyError(key)
        loaded = self[key] = SimpleNamespace(name=key)
        return loaded


def shell_with(registry: dict) -> SimpleNamespace:
    return SimpleNamespace(magics_manager=SimpleNamespace(registry=registry))


class ScriptMagicsLookupTest(unittest.TestCase):
    def test_a_lazily_registered_class_is_loaded(self) -> None:
        found = shell_approval.script_magics_of(shell_with(LazyRegistry()))
        self.assertEqual(found.name, "ScriptMagics")

    def test_a_registry_without_them_gives_none(self) -> None:
        self.assertIsNone(shell_approval.script_magics_of(shell_with({})))


if __name__ == "__main__":
    unittest.main()
