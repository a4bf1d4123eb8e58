"""The module map, derived from the build itself: each native module's CMake DEPS (public) and
PRIVATE_DEPS on other ipybox modules, as read from its ipybox_add_module() call (and the cli's
target_link_libraries). Writes the map into native/CMakeLists.txt and README.md between
"module-map" markers, or (--check) fails when what is written there differs from the build.

    python3 tests/style/module_map.py --write     regenerate
    python3 tests/style/module_map.py --check     the style test
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BEGIN, END = "module-map:begin", "module-map:end"


def module_name(target: str) -> str:
    """ipybox::mcp_session -> mcp/session: a nested module's alias joins its folders with '_'."""
    name = target.split("::")[1]
    nested = name.startswith(("mcp_", "app_"))
    return name.replace("_", "/", 1) if nested else name


def module_dependencies() -> dict[str, list[str]]:
    graph: dict[str, list[str]] = {}
    for cmake in sorted((ROOT / "native").glob("**/CMakeLists.txt")):
        # Comments left out: a ")" in one would end the call early.
        text = re.sub(r"#[^\n]*", "", cmake.read_text())
        for call in re.finditer(r"ipybox_add_module\((.*?)\)", text, re.S):
            words = call.group(1).split()
            name = words[0]
            graph[name] = sorted({module_name(w) for w in words if w.startswith("ipybox::")})
        link = re.search(r"target_link_libraries\(ipybox PRIVATE(.*?)\)", text, re.S)
        if link:
            graph["cli"] = sorted(
                module_name(w) for w in link.group(1).split() if w.startswith("ipybox::")
            )
    return graph


def rendered(prefix: str) -> list[str]:
    graph = module_dependencies()
    width = max(len(name) for name in graph)
    lines = []
    for name in sorted(graph, key=lambda n: (-len(closure(graph, n)), n)):
        deps = ", ".join(graph[name]) or "(nothing)"
        lines.append(f"{prefix}{name.ljust(width)} -> {deps}")
    return lines


def closure(graph: dict[str, list[str]], name: str) -> set[str]:
    seen: set[str] = set()
    stack = list(graph.get(name, []))
    while stack:
        node = stack.pop()
        if node not in seen:
            seen.add(node)
            stack.extend(graph.get(node, []))
    return seen


def replace_block(path: Path, prefix: str, check: bool, fence: bool = False) -> bool:
    lines = path.read_text().split("\n")
    starts = [i for i, line in enumerate(lines) if BEGIN in line]
    ends = [i for i, line in enumerate(lines) if END in line]
    if len(starts) != 1 or len(ends) != 1 or ends[0] < starts[0]:
        print(f"{path}: needs exactly one {BEGIN} ... {END} block", file=sys.stderr)
        return False
    wanted = rendered(prefix)
    if fence:
        wanted = ["```", *wanted, "```"]
    current = lines[starts[0] + 1 : ends[0]]
    if current == wanted:
        return True
    if check:
        print(f"{path}: the module map differs from the build; run {sys.argv[0]} --write")
        print("\n".join(["expected:"] + wanted + ["found:"] + current), file=sys.stderr)
        return False
    lines[starts[0] + 1 : ends[0]] = wanted
    path.write_text("\n".join(lines))
    return True


def main() -> int:
    check = "--check" in sys.argv
    ok = replace_block(ROOT / "native" / "CMakeLists.txt", "#   ", check)
    ok = replace_block(ROOT / "README.md", "", check, fence=True) and ok
    if ok and check:
        print(f"module map: {len(module_dependencies())} modules, as the build says")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
