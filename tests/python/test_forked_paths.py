"""ipybox_runtime.forked_kernel.use_python_path: a kernel forked from a template that another
workspace's kernels share ends with the sys.path a cold start with its own PYTHONPATH gives."""

from __future__ import annotations

import random
import sys
import unittest
from unittest import mock

from ipybox_runtime import forked_kernel

STDLIB = ["/usr/lib/python311.zip", "/usr/lib/python3.11", "/usr/lib/python3/dist-packages"]


def started_with(python_path: list[str], script_entry: bool = True) -> list[str]:
    """sys.path as Python builds it for `python -c` with this PYTHONPATH (absolute, no repeats);
    without the script's entry "" when the bootstrap took it off (the template's does)."""
    return list(dict.fromkeys([""] * script_entry + [*python_path, *STDLIB]))


class UsePythonPathTest(unittest.TestCase):
    def forked(self, template: list[str], kernel: list[str], script_entry: bool = True):
        with mock.patch.object(sys, "path", started_with(template, script_entry)):
            forked_kernel.use_python_path(":".join(template), ":".join(kernel))
            return list(sys.path)

    def test_the_workspace_entry_lands_where_a_cold_kernel_has_it(self):
        template = ["/opt/runtime", "/home/u/.local/share/ipybox/site-packages"]
        kernel = ["/opt/runtime", "/ws/a/.ipybox/site-packages", template[1]]
        self.assertEqual(self.forked(template, kernel), started_with(kernel))

    def test_the_same_path_changes_nothing(self):
        template = ["/opt/runtime", "/x"]
        self.assertEqual(self.forked(template, template), started_with(template))

    def test_relative_and_empty_entries_are_as_python_makes_them(self):
        kernel = ["/opt/runtime", "", "rel/dir", "/opt/runtime"]
        expected = started_with(["/opt/runtime", f"{forked_kernel.os.getcwd()}/rel/dir"])
        self.assertEqual(self.forked(["/opt/runtime"], kernel), expected)

    def test_generated_paths_match_a_cold_start(self):
        # Shared templates are started without the kernels' own entries: the template's path is
        # always a part of a kernel's, in the same order.
        generator = random.Random(20261129)
        pool = [f"/p{index}" for index in range(8)] + STDLIB[1:2]
        for _ in range(500):
            kernel = generator.sample(pool, generator.randint(0, len(pool)))
            template = [entry for entry in kernel if generator.random() < 0.5]
            script_entry = generator.random() < 0.5
            self.assertEqual(
                self.forked(template, kernel, script_entry),
                started_with(kernel, script_entry),
                (template, kernel, script_entry),
            )


if __name__ == "__main__":
    unittest.main()
