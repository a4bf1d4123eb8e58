"""How well search_tools ranks real servers' tools: a labelled set of queries, scored.

    /usr/bin/python3 tests/servers-node/run_search_quality.py --codegen <codegen_files>
        [--tools-json FILE] [--min-mrr X] [--min-recall X] [--show]

The pinned servers of package.json are listed offline (list_tools.mjs, as the real-servers tier
does; --tools-json reads a listing saved from it instead), generated into one workspace, and
searched with every query of search_labels.json. Printed: each query's first relevant rank and
recall at 5, then the mean reciprocal rank (MRR) and the mean recall at 5 over all queries. It
fails when either falls under its floor, so a change that makes ranking worse is seen.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
import tempfile
from pathlib import Path
from typing import Dict, List

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent / "fuzz"))
sys.path.insert(0, str(REPO / "native" / "python"))

import run_fuzz  # noqa: E402 - the generator's driver

TOP = 5


def tool_names(package: Path) -> Dict[str, str]:
    """Module name -> MCP tool name, from the package's TOOLS literal (read, not imported)."""
    tree = ast.parse((package / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, ast.AnnAssign):
            targets = [node.target]
        if any(isinstance(target, ast.Name) and target.id == "TOOLS" for target in targets):
            return dict(ast.literal_eval(node.value))
    raise RuntimeError(f"no TOOLS in {package}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--codegen", required=True)
    parser.add_argument("--tools-json", help="a listing saved from list_tools.mjs")
    parser.add_argument("--min-mrr", type=float, default=0.0)
    parser.add_argument("--min-recall", type=float, default=0.0)
    parser.add_argument("--show", action="store_true", help="print each query's top results")
    args = parser.parse_args()
    if args.tools_json:
        listing = json.loads(Path(args.tools_json).read_text(encoding="utf-8").splitlines()[-1])
    else:
        import run_real_servers

        listing = run_real_servers.list_servers()
    labels = json.loads((HERE / "search_labels.json").read_text(encoding="utf-8"))["queries"]
    from ipybox_runtime.search import ToolIndex

    with tempfile.TemporaryDirectory(prefix="ipybox-search-quality-") as scratch:
        workspace = Path(scratch)
        names: Dict[str, str] = {}
        for server, tools in sorted(listing["servers"].items()):
            run_fuzz.generate(args.codegen, server, tools, workspace / "mcptools")
            for module, tool in tool_names(workspace / "mcptools" / server).items():
                names[f"mcptools.{server}.{module}"] = f"{server}.{tool}"
        index = ToolIndex(workspace, use_cache=False)
        rows: List[str] = []
        reciprocal = recall = 0.0
        for label in labels:
            relevant = set(label["relevant"])
            found = [names.get(hit.name, hit.name) for hit in index.search(label["query"], 20)]
            rank = next((i + 1 for i, name in enumerate(found) if name in relevant), None)
            reciprocal += 1 / rank if rank else 0.0
            hits = len(relevant & set(found[:TOP])) / min(TOP, len(relevant))
            recall += hits
            rows.append(f"{label['query'][:44]:<44} {rank or '-':>5} {hits:>10.2f}")
            if args.show:
                rows.append("    " + ", ".join(found[:TOP]))
    count = len(labels)
    mrr, mean_recall = reciprocal / count, recall / count
    print(f"{'query':<44} {'first':>5} {'recall@5':>10}")
    print("\n".join(rows))
    print(
        f"{len(names)} tools of {len(listing['servers'])} servers, {count} queries: "
        f"MRR {mrr:.3f}, recall@5 {mean_recall:.3f}"
    )
    ok = mrr >= args.min_mrr and mean_recall >= args.min_recall
    if not ok:
        print(
            f"FAIL: under the floor (MRR {args.min_mrr}, recall@5 {args.min_recall})",
            file=sys.stderr,
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
