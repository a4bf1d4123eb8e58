"""Checks generated modules under the running interpreter's pydantic (run by run_fuzz.py).

    python3 fuzz_worker.py <cases.json>

``cases.json``: {"runtime": <dir of ipybox_runtime>, "package_root": <dir>, "server": <name>,
"cases": [{"id", "module", "server_only", "arguments"?, "invalid"?, "output"?}]}. For each
case: the module imports without warnings; ``Params.from_arguments(arguments).to_arguments()``
equals ``arguments`` exactly and is JSON; every invalid set (``{"keyword", "arguments"}``,
confirmed invalid by jsonschema) raises ``pydantic.ValidationError`` unless the keywords the
module's docstring lists as checked by the server only explain it (``invalid_values.excused``;
that list must be the generator's ``server_only``); ``Params(**arguments)`` (keyword arguments
spelled as the schema spells them) sends ``arguments`` exactly too; ``Result.from_structured
(output)`` holds ``output`` exactly. Every attribute of every model built holds the value of
its own property (``attribute_mismatch``), and every model class's docstring names the
property of each attribute named otherwise (``docstring_names``).
Prints one JSON document: {"pydantic": version, "failures": [{"id", "kind", "detail"}],
"checked": {...}, "refusals": {keyword: [refused, tried]}, "server_only": {keyword: count}}.
"""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Any, Dict, List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))  # run with -I: no script dir on the path

from invalid_values import excused, is_valid_input, keywords_of  # noqa: E402
from schema_fuzz import first_difference, json_equal  # noqa: E402


def docstring_server_only(doc: Any) -> List[str]:
    """The keywords a module's docstring lists as "Checked by the server only"."""
    marker = "Checked by the server only"
    if not isinstance(doc, str) or marker not in doc:
        return []
    section = doc.split(marker, 1)[1].split("\n\n", 1)[0].split("):", 1)[-1]
    return sorted(re.findall(r"`([^`]+)`", section))


def check_exact(fail: Any, kind: str, build: Any, expected: Dict[str, Any]) -> None:
    """``build()`` makes a model whose ``to_arguments()`` is ``expected`` exactly (and JSON),
    each attribute holding its own property's value."""
    try:
        model = build()
        sent = model.to_arguments()
        json.dumps(sent, allow_nan=False)
    except BaseException:  # noqa: B902 - any failure is the finding
        fail(f"{kind} refused", traceback.format_exc())
        return
    if not json_equal(sent, expected):
        fail(f"{kind} changed", str(first_difference(expected, sent)))
        return
    mismatch = attribute_mismatch(model, expected, type(model).__name__)
    if mismatch:
        fail("attribute changed", mismatch)


def model_fields(model: Any) -> Dict[str, str]:
    """Python name -> property name, for every field of a model class."""
    fields = getattr(model, "model_fields", None)
    if not isinstance(fields, dict):
        fields = model.__fields__
    return {name: name if field.alias is None else field.alias for name, field in fields.items()}


def attribute_mismatch(model: Any, data: Any, where: str) -> Optional[str]:
    """Where an attribute of `model` (or of a model inside it) does not hold the value `data`
    gives its property, or None."""
    from ipybox_runtime.json_values import to_json
    from ipybox_runtime.models import ToolModel

    if isinstance(model, ToolModel) and isinstance(data, dict):
        for name, alias in model_fields(type(model)).items():
            if alias not in data:
                continue
            held = getattr(model, name)
            found = attribute_mismatch(held, data[alias], f"{where}.{name}")
            if found:
                return found
            if not json_equal(to_json(held), data[alias]):
                return f"{where}.{name} (property {alias!r}) holds {to_json(held)!r}"
        return None
    if isinstance(model, list) and isinstance(data, list) and len(model) == len(data):
        for index, (item, raw) in enumerate(zip(model, data)):
            found = attribute_mismatch(item, raw, f"{where}[{index}]")
            if found:
                return found
    if isinstance(model, dict) and isinstance(data, dict):
        for key, item in model.items():
            found = attribute_mismatch(item, data.get(key), f"{where}[{key!r}]")
            if found:
                return found
    return None


def docstring_names(module: Any) -> List[str]:
    """Problems with the docstrings' lists of attributes named otherwise than their property:
    each such attribute is listed as ``- `name`: <literal of the property name>``."""
    from ipybox_runtime.models import ToolModel

    problems = []
    for value in vars(module).values():
        if not (
            isinstance(value, type) and issubclass(value, ToolModel) and value is not ToolModel
        ):
            continue
        if value.__module__ != module.__name__:
            continue
        doc = " ".join((value.__doc__ or "").split())
        for name, alias in model_fields(value).items():
            if name == alias:
                continue
            entry = f"- `{name}`: "
            at = doc.find(entry)
            listed = _literal_at(doc, at + len(entry)) if at >= 0 else None
            if listed != " ".join(alias.split()):
                problems.append(f"{value.__name__}.{name} (property {alias!r}): listed {listed!r}")
    return problems


def _literal_at(text: str, start: int) -> Optional[str]:
    """The string literal starting at text[start], whitespace runs read as one space."""
    if start >= len(text) or text[start] not in "'\"":
        return None
    quote = text[start]
    end = start + 1
    while end < len(text) and text[end] != quote:
        end += 2 if text[end] == "\\" else 1
    try:
        value = ast.literal_eval(text[start : end + 1])
    except (SyntaxError, ValueError):
        return None
    return " ".join(value.split()) if isinstance(value, str) else None


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
            if is_valid_input(case["schema"], sent):
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
        params = module.Params
        check_exact(fail, "arguments", lambda: params.from_arguments(arguments), arguments)
        check_exact(fail, "keywords", lambda: params(**arguments), arguments)
        check_invalid(module, case, report, fail)
    if "output" in case and hasattr(module, "Result"):
        counts["outputs"] += 1
        output = case["output"]
        check_exact(fail, "output", lambda: module.Result.from_structured(output), output)
    for problem in docstring_names(module):
        fail("docstring names", problem)
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
