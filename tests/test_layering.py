"""Each code folder imports only the layers below it, lazy imports inside functions included.

The layers, bottom up: the shopsim core (``shopsim/*.py``: PageState, actions, links, renderer,
errors) < ``simsite`` and ``translators`` (siblings: neither imports the other) < ``adapters`` <
``agents``. The CLI (``cli/__init__.py``, ``cli/``) and the package's facade
(``shopsim/__init__.py``, whose names load lazily) sit on top and are not checked.

Each name is imported from the module that defines it: no module but an ``__init__.py`` re-exports
another module's names (the WebShop façades under ``compat/`` are not scanned).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from shopsim.adapters.env import observation
from shopsim.render import observation as text_observation
from shopsim.simsite.html import render_html
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop

ROOT = Path(__file__).resolve().parents[1]
FOLDERS = ("simsite", "translators", "adapters", "agents")  # installed as shopsim.<folder>
ALLOWED = {
    "core": {"core"},
    "simsite": {"core", "simsite"},
    "translators": {"core", "translators"},
    "adapters": {"core", "simsite", "translators", "adapters"},
    "agents": {"core", "simsite", "translators", "adapters", "agents"},
}



def _layer_of_module(name: str) -> str | None:
    """The layer a ``shopsim.*`` module belongs to; None for other packages."""
    parts = name.split(".")
    if parts[0] != "shopsim":
        return None
    if len(parts) == 1:
        return "core"
    if parts[1] in FOLDERS:
        return parts[1]
    if parts[1] == "cli":
        return "cli"
    return "core"


def _layer_of_file(path: Path) -> str | None:
    """The layer of a source file; None for the CLI, which is the top layer."""
    rel = path.relative_to(ROOT)
    if rel.parts[0] in FOLDERS:
        return rel.parts[0]
    if rel.parts[0] == "shopsim" and rel.as_posix() != "shopsim/__init__.py":
        return "core"  # the package's __init__ is the public facade, on top like the CLI (lazy names)
    return None


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[0] in (*FOLDERS, "cli"):
        parts.insert(0, "shopsim")
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(source: str, package: str) -> list[tuple[int, str]]:
    """``(line, module)`` for every import in ``source``, at any depth (functions, ``TYPE_CHECKING``).

    ``from shopsim import Y`` yields ``shopsim.Y`` (Y may be a layer), relative imports are resolved
    against ``package``, and ``importlib.import_module("...")`` / ``__import__("...")`` with
    a literal count too.
    """
    tree = ast.parse(source)
    package_parts = package.split(".")
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package_parts[: len(package_parts) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.append((node.lineno, base))
            if base == "shopsim":  # ``from shopsim import simsite`` names the layer in the imported name
                found += [(node.lineno, f"{base}.{a.name}") for a in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def _sources() -> list[Path]:
    files = [p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))]
    return files + sorted((ROOT / "shopsim").rglob("*.py"))


def _violations(path: Path) -> set[tuple[int, str, str]]:
    """``(line, module, layer)`` for each import of a layer ``path`` must not use."""
    layer = _layer_of_file(path)
    if layer is None:
        return set()
    module = _module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    return _forbidden(path.read_text(encoding="utf-8"), package, layer)


def _forbidden(source: str, package: str, layer: str) -> set[tuple[int, str, str]]:
    out = set()
    for line, module in imported_modules(source, package):
        target = _layer_of_module(module)
        if target is not None and target not in ALLOWED[layer]:
            out.add((line, module, target))
    return out


@pytest.mark.parametrize("path", [p for p in _sources() if _layer_of_file(p)], ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_only_lower_layers(path: Path) -> None:
    rel = path.relative_to(ROOT).as_posix()
    bad = sorted(_violations(path))
    layer = _layer_of_file(path)
    assert not bad, f"{rel} ({layer}) may import only {sorted(ALLOWED[layer])}; it imports " + ", ".join(
        f"{module} ({target}, line {line})" for line, module, target in bad
    )


def test_checker_sees_lazy_relative_and_dynamic_imports() -> None:
    source = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from shopsim import simsite\n"
        "def f():\n    from ..adapters import env\n    import importlib\n"
        "    return importlib.import_module('shopsim.agents.reports.report')\n"
        "from .base import Translator\nfrom shopsim.render import render_simple\n"
    )
    layers = {target for _, _, target in _forbidden(source, "shopsim.translators", "translators")}
    assert layers == {"simsite", "adapters", "agents"}


#: The rooms of ``agents``, bottom up: a room imports only the rooms at or below it.
AGENT_ROOMS = ("policies", "reports", "transfer", "evaluation")


def _room_of_module(name: str) -> str | None:
    """The room of a ``shopsim.agents.*`` module; None outside ``agents``."""
    parts = name.split(".")
    if parts[:2] != ["shopsim", "agents"]:
        return None
    return parts[2] if len(parts) > 3 and parts[2] in AGENT_ROOMS else "policies"


@pytest.mark.parametrize("path", sorted((ROOT / "agents").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT)))
def test_agent_rooms_import_only_lower_rooms(path: Path) -> None:
    module = _module_name(path)
    room = _room_of_module(module + (".__init__" if path.name == "__init__.py" else ""))
    assert room is not None
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    allowed = AGENT_ROOMS[: AGENT_ROOMS.index(room) + 1]
    bad = [(line, m) for line, m in imported_modules(path.read_text(encoding="utf-8"), package)
           if (r := _room_of_module(m)) is not None and r not in allowed]
    assert not bad, f"{path.relative_to(ROOT)} ({room}) may import only the rooms {allowed}; it imports " + ", ".join(
        f"{m} (line {line})" for line, m in bad)


def _module_level(tree: ast.Module) -> list[ast.AST]:
    """The nodes that bind module names: everything outside function and class bodies (``if``,
    ``try`` and ``with`` blocks included); a ``def`` or ``class`` itself counts, its body does not."""
    out: list[ast.AST] = []
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return out


def reexported_names(source: str, package: str) -> list[tuple[int, str, str]]:
    """``(line, name, module)`` for each name ``source`` exposes but only imports from a shopsim module.

    Exposed means listed in ``__all__``, or imported with ``# noqa: F401`` (kept only to be
    imported from here). A name the module also binds itself (an assignment, a ``def``, a fallback
    in ``try``/``except``) is its own. Relative imports are resolved against ``package``.
    """
    tree = ast.parse(source)
    lines = source.splitlines()
    package_parts = package.split(".")
    imported: dict[str, tuple[int, str]] = {}
    unused: set[str] = set()
    defined: set[str] = set()
    exported: list[str] = []
    for node in _module_level(tree):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package_parts[: len(package_parts) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            if base.split(".")[0] != "shopsim":
                continue
            text = "\n".join(lines[node.lineno - 1 : node.end_lineno])
            for alias in node.names:
                name = alias.asname or alias.name
                imported.setdefault(name, (node.lineno, base))
                if "noqa" in text and "F401" in text:
                    unused.add(name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname and alias.name.split(".")[0] == "shopsim":
                    imported.setdefault(alias.asname, (node.lineno, alias.name))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            exported += [n for n in ast.literal_eval(node.value) if isinstance(n, str)]
    found = {(imported[n][0], n, imported[n][1]) for n in (*exported, *unused) if n in imported and n not in defined}
    return sorted(found)


def _package_modules() -> list[Path]:
    """Every module of the installed package but its ``__init__`` files (the facade and the package
    namespaces, which may gather names); the WebShop façades under ``compat/`` are not scanned."""
    files = [p for folder in ("shopsim", "cli", *FOLDERS) for p in sorted((ROOT / folder).rglob("*.py"))]
    return [p for p in files if p.name != "__init__.py"]


def test_no_module_re_exports_another_modules_names() -> None:
    offenders = []
    for path in _package_modules():
        package = _module_name(path).rpartition(".")[0]
        for line, name, module in reexported_names(path.read_text(encoding="utf-8"), package):
            offenders.append(f"{path.relative_to(ROOT)}:{line}: {name} (from {module})")
    assert not offenders, "import these names from the module that defines them, not from:\n" + "\n".join(offenders)


def test_reexport_checker_sees_all_and_noqa_imports() -> None:
    source = (
        "from shopsim.render import observation, render_rich\n"
        "from .dom import text_of  # noqa: F401\n"
        "from shopsim.links import done_path\n"
        "from json import dumps\n"
        "try:\n    from shopsim.page import css_string\nexcept ImportError:\n    css_string = None\n"
        "def own(): ...\n"
        "__all__ = ['observation', 'css_string', 'dumps', 'own']\n"
        "print(render_rich, done_path)\n"
    )
    found = [(name, module) for _, name, module in reexported_names(source, "shopsim.translators")]
    assert found == [("observation", "shopsim.render"), ("text_of", "shopsim.translators.dom")]


def test_html_observation_is_drawn_above_the_core(bundled_shop: Shop) -> None:
    state = ShopSession(bundled_shop, bundled_shop.goals[0], "s1").state
    assert observation(state, "html") == render_html(state)
    assert observation(state, "text_rich") == text_observation(state, "text_rich")
    with pytest.raises(ValueError, match=r"shopsim\.adapters\.env\.observation"):
        text_observation(state, "html")
