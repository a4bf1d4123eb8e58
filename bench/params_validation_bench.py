"""Validation cost of a generated 50-field ``Params`` under both pydantic majors (issue 25).

    /usr/bin/python3 bench/params_validation_bench.py --codegen <ipybox_codegen_files>

Generates the module of one tool with 50 properties (strings with lengths, integers and numbers
with bounds, booleans, string enums, integer arrays, nullable strings; half of them required)
with the real code generator, then times in each interpreter that tests/fuzz finds (one per
pydantic major) ``Params(**values)`` with every field set, and the same followed by
``to_arguments()`` (what ``run()`` sends), and the refusal of the same values with one of them
of the wrong JSON type (the string ``"42"`` for an integer). Prints JSON: microseconds per
call, the best of several repeats. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import subprocess
import sys
import tempfile

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "tests" / "fuzz"))
from run_fuzz import interpreters  # noqa: E402 - one interpreter per pydantic major

# (schema, a valid value) per kind; 50 properties cycle through them.
KINDS = [
    ({"type": "string", "minLength": 1, "maxLength": 64}, "a value"),
    ({"type": "integer", "minimum": 0, "maximum": 1000}, 42),
    ({"type": "number", "exclusiveMinimum": 0}, 2.5),
    ({"type": "boolean"}, True),
    ({"type": "string", "enum": ["red", "green", "blue"]}, "green"),
    ({"type": "array", "items": {"type": "integer"}, "maxItems": 8}, [1, 2, 3]),
    ({"type": ["string", "null"]}, None),
]
FIELDS = 50

# Runs in the measured interpreter: argv[1] the generated package's parent, argv[2] the values.
TIMER = r"""
import json, sys, timeit
sys.path[:0] = [sys.argv[1], sys.argv[3]]
import pydantic
from bench_server import wide
values = json.loads(sys.argv[2])
wrong = dict(values, field01="42")
REFUSE = (
    "try:\n    Params(**wrong)\n"
    "except pydantic.ValidationError:\n    pass\n"
    "else:\n    raise AssertionError"
)
def measure(statement):
    names = {"Params": wide.Params, "values": values, "wrong": wrong, "pydantic": pydantic}
    timer = timeit.Timer(statement, globals=names)
    loops, _ = timer.autorange()
    return min(timer.repeat(repeat=5, number=loops)) / loops * 1e6
print(json.dumps({
    "pydantic": pydantic.VERSION,
    "python": sys.version.split()[0],
    "validate_us": measure("Params(**values)"),
    "validate_and_send_us": measure("Params(**values).to_arguments()"),
    "refuse_us": measure(REFUSE),
}))
"""


def tool_and_values() -> tuple[dict, dict]:
    properties, values = {}, {}
    for index in range(FIELDS):
        schema, value = KINDS[index % len(KINDS)]
        name = f"field{index:02d}"
        properties[name] = schema
        values[name] = value
    tool = {
        "name": "wide",
        "description": f"A tool with {FIELDS} parameters",
        "inputSchema": {
            "type": "object",
            "properties": properties,
            "required": sorted(properties)[::2],
        },
    }
    return tool, values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--codegen", required=True, help="the ipybox_codegen_files executable")
    args = parser.parse_args()
    tool, values = tool_and_values()
    report: dict = {"fields": FIELDS}
    with tempfile.TemporaryDirectory(prefix="ipybox-params-bench-") as root:
        request = json.dumps({"server_name": "bench_server", "tools": [tool]})
        subprocess.run(
            [args.codegen, root], input=request, text=True, check=True, stdout=subprocess.DEVNULL
        )
        for major, python in interpreters():
            timed = subprocess.run(
                [python, "-c", TIMER, root, json.dumps(values), str(REPO / "native" / "python")],
                text=True,
                check=True,
                stdout=subprocess.PIPE,
            )
            report[f"pydantic{major}"] = json.loads(timed.stdout)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
