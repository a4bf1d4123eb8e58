"""Checks generated modules under the running interpreter's pydantic (run by run_fuzz.py).

    python3 fuzz_worker.py <cases.json>

``cases.json``: {"runtime": <dir of ipybox_runtime>, "package_root": <dir>, "server": <name>,
"cases": [{"id", "module", "server_only", "arguments"?, "invalid"?, "output"?}]}. For each
case: the module imports without warnings; ``Params.from_arguments(arguments).to_arguments()``
equals ``arguments`` exactly and is JSON; every invalid set (``{"keyword", "arguments"}``,
confirmed invalid by jsonschema) raises ``pydantic.ValidationError`` unless the keywords the
module's docstring lists as checked by the server only explain it (``invalid_values.excused``;
that list must be the generator's ``server_only``); ``Result.from_structured(output)`` holds
``output`` exactly.
Prints one JSON document: {"pydantic": version, "failures": [{"id", "kind", "detail"}],
"checked": {...}, "refusals": {keyword: [refused, tried]}, "server_only": {keyword: count}}.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Any, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run with -I: no script dir on the path

from invalid_values import Judge, excused, keywords_of  # noqa: E402
from schema_fuzz import first_difference, json_equal  # noqa: E402


def docstring_server_only(doc: Any) -> List[str]:
    """The keywords a module's docstring lists as "Checked by the server only"."""
    marker = "Checked by the server only"
    if not isinstance(doc, str) or marker not in doc:
        return []
    section = doc.split(marker, 1)[1].split("\n\n", 1)[0].split("):", 1)[-1]
    return sorted(re.findall(r"`([^`]+)`", section))


def check_invalid(module: Any, case: Dict[str, Any], report: Dict[str, Any], fail: Any) -> None:
    import pydantic

    # What the module claims, as its reader sees it: the docstring's list.
    unchecked = set(docstring_server_only(module.__doc__))
    for invalid in case.get("invalid", []):
        keyword = invalid["keyword"]
        if keyword in unchecked or excused(invalid.get("violated", []), unchecked):
            report["server_only"][keyword] = report["server_only"].get(keyword, 0) + 1
            continue
        tally = report["refusals"].setdefault(keyword, [0, 0])
        tally[1] += 1
        try:
            sent = module.Params.from_arguments(invalid["arguments"]).to_arguments()
        except pydantic.ValidationError:
            tally[0] += 1
        except BaseException:  # noqa: B902 - anything but a ValidationError is a finding
            fail(
                "invalid crashed", f"{keyword}: {invalid['arguments']!r}\n" + traceback.format_exc()
            )
        else:
            if Judge(case["schema"]).is_valid(sent):
                # Params completed the set (a required constant it always sends): the server
                # never sees the invalid set.
                report["completed"][keyword] = report["completed"].get(keyword, 0) + 1
                tally[1] -= 1
                continue
            fail(
                "invalid accepted",
                f"{keyword} (refused by {', '.join(keywords_of(invalid.get('violated', [])))}): "
                f"{json.dumps(invalid['arguments'], ensure_ascii=False)[:1500]}"
                f" -> sent {json.dumps(sent, ensure_ascii=False, default=repr)[:300]}",
            )


def check_case(
    server: str, case: Dict[str, Any], counts: Dict[str, int], report: Dict[str, Any]
) -> List[Dict[str, Any]]:
    failures: List[Dict[str, Any]] = []

    def fail(kind: str, detail: str) -> None:
        failures.append({"id": case["id"], "kind": kind, "detail": detail[-2000:]})

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            module = importlib.import_module(f"{server}.{case['module']}")
    except BaseException:  # noqa: B902 - any failure to import is the finding
        fail("import", traceback.format_exc())
        return failures
    counts["imported"] += 1
    listed = docstring_server_only(module.__doc__)
    if listed != sorted(case.get("server_only", [])):
        fail("docstring", f"lists {listed} as server-only, the generator {case.get('server_only')}")
    if "arguments" in case:
        counts["arguments"] += 1
        arguments = case["arguments"]
        try:
            sent = module.Params.from_arguments(arguments).to_arguments()
            json.dumps(sent, allow_nan=False)
        except BaseException:  # noqa: B902
            fail("arguments refused", traceback.format_exc())
        else:
            if not json_equal(sent, arguments):
                fail("arguments changed", str(first_difference(arguments, sent)))
        check_invalid(module, case, report, fail)
    if "output" in case and hasattr(module, "Result"):
        counts["outputs"] += 1
        output = case["output"]
        try:
            parsed = module.Result.from_structured(output).to_arguments()
        except BaseException:  # noqa: B902
            fail("output refused", traceback.format_exc())
        else:
            if not json_equal(parsed, output):
                fail("output changed", str(first_difference(output, parsed)))
    return failures


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as handle:
        job = json.load(handle)
    sys.dont_write_bytecode = True
    sys.path.insert(0, job["runtime"])
    sys.path.insert(0, job["package_root"])
    import pydantic

    counts = {"imported": 0, "arguments": 0, "outputs": 0}
    report: Dict[str, Any] = {"refusals": {}, "server_only": {}, "completed": {}}
    failures: List[Dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="ipybox-fuzz-") as scratch:
        os.chdir(scratch)  # a payload that ran would leave PWNED here
        for case in job["cases"]:
            failures += check_case(job["server"], case, counts, report)
        if os.listdir(scratch):
            failures.append({"id": None, "kind": "payload", "detail": str(os.listdir(scratch))})
    document = {"pydantic": pydantic.VERSION, "failures": failures, "checked": counts}
    print(json.dumps({**document, **report}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
