"""The scaffold saved code actions start from, and the rule their names follow.

The scaffold is the ``gentools-template`` directory installed next to this package's parent
(``share/ipybox/gentools-template``), or at the root of a source checkout; its files hold
``{{category}}`` and ``{{name}}`` where an action's names go. Creating (``creating``), saving
(``saving``) and checking (``action_findings``) an action all read it from here, so this module
imports none of them. Standard library only.
"""

from __future__ import annotations

import keyword
import pathlib

__all__ = ["NAME_RULE", "check_name", "render", "template_dir"]

TEMPLATE_DIR_NAME = "gentools-template"
ACTION_FILE_NAMES = ("__init__.py", "api.py", "impl.py")
MAX_NAME_LENGTH = 64

# (file in the template, file in the created tree); {category} and {name} are filled in.
ACTION_FILES = (
    ("category/action/__init__.py", "{category}/{name}/__init__.py"),
    ("category/action/api.py", "{category}/{name}/api.py"),
    ("category/action/impl.py", "{category}/{name}/impl.py"),
)
CATEGORY_FILE = ("category/__init__.py", "{category}/__init__.py")


def template_dir() -> pathlib.Path:
    """The scaffold directory; raises ``FileNotFoundError`` naming the places looked at."""
    here = pathlib.Path(__file__).resolve()
    # Installed: share/ipybox/{python/ipybox_runtime, gentools-template}.
    # Source tree: native/python/ipybox_runtime and gentools-template at the root.
    candidates = [here.parents[2] / TEMPLATE_DIR_NAME, here.parents[3] / TEMPLATE_DIR_NAME]
    for candidate in candidates:
        if (candidate / ACTION_FILES[1][0]).is_file():
            return candidate
    raise FileNotFoundError(
        "the ipybox gentools scaffold is missing; looked for "
        + " and ".join(str(candidate) for candidate in candidates)
        + " (reinstall ipybox)"
    )


def render(text: str, category: str, name: str) -> str:
    """A scaffold file's ``text`` with the action's category and name filled in."""
    return text.replace("{{category}}", category).replace("{{name}}", name)


# The one rule for category and action names (NAME_RULE says it to the agent).
NAME_RULE = (
    "lowercase ASCII letters, digits and _, starting with a letter, at most "
    f"{MAX_NAME_LENGTH} characters, not a Python keyword (like 'github' or 'top_repositories')"
)


def check_name(kind: str, value: object) -> str:
    """Returns ``value`` when it follows ``NAME_RULE``; ``ValueError`` saying why otherwise."""
    if not isinstance(value, str):
        raise ValueError(f"the {kind} must be a string, not {type(value).__name__}")
    problem = None
    if not value:
        problem = "it is empty"
    elif len(value) > MAX_NAME_LENGTH:
        problem = f"it is longer than {MAX_NAME_LENGTH} characters"
    elif not value.isascii() or not (value[0].islower() and value[0].isalpha()):
        problem = "it does not start with a lowercase letter"
    elif any(not (c.islower() or c.isdigit() or c == "_") for c in value):
        problem = "it holds characters other than lowercase letters, digits and _"
    elif keyword.iskeyword(value):
        problem = "it is a Python keyword"
    if problem:
        raise ValueError(f"invalid gentools {kind} {value!r}: {problem}; the rule: {NAME_RULE}")
    return value
