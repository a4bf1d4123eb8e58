"""Structural checks of generated modules: what importing them can possibly execute.

``audit_module`` walks the AST and accepts only imports of known names, literal assignments,
class definitions whose bodies hold annotations (``Constraints(...)`` with literal arguments
inside ``Annotated``), literals and ``Field(...)`` calls with literal arguments,
``rebuild_models(...)`` and the fixed ``run()`` function. Anything else — a call of any other
function, an expression statement, a comprehension — fails the audit, so a module that passes
cannot run server-supplied code on import.
"""

from __future__ import annotations

import ast
from typing import List

ALLOWED_IMPORTS = {
    "typing": {"Annotated", "Any", "Dict", "List", "Literal", "Optional", "Union"},
    "enum": {"Enum"},
    "datetime": {"date", "datetime"},
    "ipybox_runtime.models": {"Constraints", "Field", "ToolModel", "rebuild_models"},
    "ipybox_runtime.tool_client": {"TextResult", "call_tool"},
}
TYPING_GENERICS = {"Annotated", "Dict", "List", "Literal", "Optional", "Union"}
MODULE_CONSTANTS = {"SERVER_NAME", "TOOL_NAME", "TOOLS", "__all__"}


class AuditError(AssertionError):
    pass


def _fail(node: ast.AST, why: str) -> None:
    raise AuditError(f"line {getattr(node, 'lineno', '?')}: {why}: {ast.dump(node)[:200]}")


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)


def _literal(node: ast.AST) -> None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
        return  # an enum member as a default: EnumClass.member
    try:
        ast.literal_eval(node)
    except ValueError:
        _fail(node, "not a literal")


def _annotation(node: ast.AST) -> None:
    if isinstance(node, ast.Name):
        return
    if isinstance(node, ast.Constant):
        if node.value is None or (isinstance(node.value, str) and node.value.isidentifier()):
            return
        _fail(node, "annotation constant that is neither None nor a forward reference")
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        if node.value.id not in TYPING_GENERICS:
            _fail(node, "subscript of an unexpected name")
        items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if node.value.id == "Annotated":
            if len(items) != 2:
                _fail(node, "Annotated without exactly one Constraints()")
            _annotation(items[0])
            _call_of_literals(items[1], "Constraints")
            return
        for item in items:
            (_literal if node.value.id == "Literal" else _annotation)(item)
        return
    _fail(node, "unexpected annotation")


def _call_of_literals(node: ast.AST, function: str) -> None:
    if not (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == function
    ):
        _fail(node, f"something other than a call of {function}")
    for argument in node.args:
        _literal(argument)
    for keyword in node.keywords:
        if keyword.arg is None:
            _fail(node, f"** in {function}()")
        _literal(keyword.value)


def _field_value(node: ast.AST) -> None:
    if isinstance(node, ast.Call):
        _call_of_literals(node, "Field")
        return
    _literal(node)


def _class(node: ast.ClassDef) -> None:
    if node.decorator_list:
        _fail(node, "decorated class")
    for base in node.bases:
        if not (isinstance(base, ast.Name) and base.id in {"ToolModel", "str", "Enum"}):
            _fail(base, "unexpected base class")
    for keyword in node.keywords:
        if keyword.arg != "extra" or not isinstance(keyword.value, ast.Constant):
            _fail(node, "unexpected class keyword")
    for index, statement in enumerate(node.body):
        if index == 0 and _is_docstring(statement):
            if not isinstance(statement.value.value, str):
                _fail(statement, "docstring that is not a string")
        elif isinstance(statement, ast.Pass):
            pass
        elif isinstance(statement, ast.Assign):
            if len(statement.targets) != 1 or not isinstance(statement.targets[0], ast.Name):
                _fail(statement, "unexpected assignment target")
            value = statement.value
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                _fail(statement, "enum member that is not a string")
        elif isinstance(statement, ast.AnnAssign):
            if not isinstance(statement.target, ast.Name) or not statement.simple:
                _fail(statement, "unexpected annotated target")
            _annotation(statement.annotation)
            if statement.value is not None:
                _field_value(statement.value)
        else:
            _fail(statement, "unexpected statement in a class body")


def _run_function(node: ast.FunctionDef) -> None:
    expected_tail = [
        "output = call_tool(SERVER_NAME, TOOL_NAME, params.to_arguments())",
        {"return Result.from_structured(output)", "return TextResult.from_output(output)"},
    ]
    if node.name != "run" or node.decorator_list or len(node.body) != 3:
        _fail(node, "unexpected function")
    if ast.unparse(node.args) != "params: Params":
        _fail(node, "unexpected signature")
    if not (isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)):
        _fail(node, "run() without a docstring")
    call, result = ast.unparse(node.body[1]), ast.unparse(node.body[2])
    if call != expected_tail[0] or result not in expected_tail[1]:
        _fail(node, "unexpected run() body")


def audit_module(source: str, filename: str) -> List[str]:
    """Raises AuditError for anything import could execute beyond the known shape.

    Returns every string constant of the module (docstrings included) and every field and enum
    member name, for data checks.
    """
    tree = ast.parse(source, filename)
    for index, statement in enumerate(tree.body):
        if index == 0 and _is_docstring(statement):
            continue
        if isinstance(statement, ast.ImportFrom):
            allowed = ALLOWED_IMPORTS.get(statement.module or "")
            names = {alias.name for alias in statement.names}
            if statement.level != 0 or allowed is None or not names <= allowed:
                _fail(statement, "unexpected import")
            if any(alias.asname for alias in statement.names):
                _fail(statement, "import alias")
        elif isinstance(statement, ast.Assign):
            targets = statement.targets
            named = len(targets) == 1 and isinstance(targets[0], ast.Name)
            if not named or targets[0].id not in MODULE_CONSTANTS:
                _fail(statement, "unexpected module-level assignment")
            _literal(statement.value)
        elif isinstance(statement, ast.ClassDef):
            _class(statement)
        elif isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            if not (isinstance(call.func, ast.Name) and call.func.id == "rebuild_models"):
                _fail(statement, "unexpected call at module level")
            if call.keywords or not all(isinstance(arg, ast.Name) for arg in call.args):
                _fail(statement, "unexpected rebuild_models arguments")
        elif isinstance(statement, ast.FunctionDef):
            _run_function(statement)
        else:
            _fail(statement, "unexpected module-level statement")
    strings = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.append(node.value)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            strings.append(node.target.id)
    return strings
