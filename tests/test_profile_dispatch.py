"""The profile does the dispatching: no code outside ``simsite/profiles.py`` and a profile's own
modules (``simsite/v8/``, ``shopsim/v8/``) compares anything with a profile's name.

A branch like ``if cfg.profile == "shopsim-v8"`` hides a part of the contract from ``PROFILES``: a third
profile would have to find and edit it. Such code asks the profile instead (a field or a ``part``).
"""

from __future__ import annotations

import ast
from pathlib import Path

from shopsim.simsite.profiles import PROFILES

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("shopsim", "simsite", "translators", "adapters", "agents", "cli", "compat")
#: Where profile names may be compared: the profiles table and each profile's own modules.
OWNERS = ("simsite/profiles.py", "simsite/v8/", "shopsim/v8/")
NAMES = frozenset(PROFILES)
#: Files another issue-20 branch rewrites (cli/translate.py: the translator registry's); drop when merged.
PENDING: tuple[str, ...] = ()


def _named(node: ast.expr) -> bool:
    """Whether ``node`` is a profile name, or a tuple/list/set literal holding one."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value in NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_named(e) for e in node.elts)
    return False


def name_comparisons(source: str) -> list[int]:
    """The lines of ``source`` that compare with a profile name (``==``, ``!=``, ``in``, ``is``, a match case)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        compared = (node.left, *node.comparators) if isinstance(node, ast.Compare) else ()
        matched = (node.value,) if isinstance(node, ast.MatchValue) else ()
        if any(_named(e) for e in (*compared, *matched)):
            lines.append(node.lineno)
    return lines


def test_the_checker_finds_name_comparisons() -> None:
    found = name_comparisons(
        'a = cfg.profile == "shopsim-v8"\n'
        'b = "webshop" != name\n'
        'c = p.name in ("webshop", "x")\n'
        'match p:\n    case "shopsim-v8":\n        pass\n'
        'd = get_profile("shopsim-v8").episode_rules\n'  # naming a profile is fine; branching on it is not
        'e = p.name == "other"\n'
    )
    assert found == [1, 2, 3, 5]


def test_no_profile_name_comparisons_outside_the_profiles() -> None:
    offenders = []
    for folder in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith(OWNERS) or rel in PENDING:
                continue
            offenders += [f"{rel}:{line}" for line in name_comparisons(path.read_text(encoding="utf-8"))]
    assert not offenders, ("these compare a profile's name; ask the profile (a field of "
                           f"simsite/profiles.py's Profile) instead: {', '.join(offenders)}")
