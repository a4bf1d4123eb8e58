"""Checks generated modules under the running interpreter's pydantic (run by run_fuzz.py).

    python3 fuzz_worker.py <cases.json>

``cases.json``: {"runtime": <dir of ipybox_runtime>, "package_root": <dir>, "server": <name>,
"cases": [{"id", "module", "arguments"?, "output"?}]}. For each case: the module imports
without warnings; ``Params.from_arguments(arguments).to_arguments()`` equals ``arguments``
exactly and is JSON; ``Result.from_structured(output)`` holds ``output`` exactly. Prints one
JSON document: {"pydantic": version, "failures": [{"id", "kind", "detail"}], "checked": {...}}.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Any, Dict, List

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run with -I: no script dir on the path

from schema_fuzz import first_difference, json_equal  # noqa: E402


def check_case(server: str, case: Dict[str, Any], counts: Dict[str, int]) -> List[Dict[str, Any]]:
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
    failures: List[Dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="ipybox-fuzz-") as scratch:
        os.chdir(scratch)  # a payload that ran would leave PWNED here
        for case in job["cases"]:
            failures += check_case(job["server"], case, counts)
        if os.listdir(scratch):
            failures.append({"id": None, "kind": "payload", "detail": str(os.listdir(scratch))})
    print(json.dumps({"pydantic": pydantic.VERSION, "failures": failures, "checked": counts}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
