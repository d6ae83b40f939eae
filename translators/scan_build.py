"""Which build of the guard's tag scan runs: the mypyc-compiled modules, or the same ones as plain Python.

``setup.py`` compiles :data:`SCAN_MODULES` with mypyc when it can, and Python imports a compiled
extension before the ``.py`` beside it. The finder here (installed by the package's ``__init__``)
turns that around, so the pure modules load, when ``SHOPSIM_PURE_SCAN=1``, when the compiled library
does not load (built for another Python or mypyc runtime), or inside :func:`pure_modules`, which
tests and benchmarks use to run both builds in one process. Either build gives the same verdicts
and counts; the pure one is the reference.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import os
import sys
import threading
from collections.abc import Sequence
from types import ModuleType

__all__ = ["SCAN_MODULES", "install", "pure_modules", "scan_build"]

PACKAGE = "shopsim.translators"
#: The compiled modules, dependencies first (setup.py reads this tuple from here).
SCAN_MODULES = ("html_rules", "tree_stack", "tree_model", "tag_lexer", "guard")
_NAMES = tuple(f"{PACKAGE}.{m}" for m in SCAN_MODULES)
_LIBRARY = f"{PACKAGE}.scan__mypyc"  # mypyc's shared library for the group (setup.py's group_name)

_state = {"force_pure": False}
_lock = threading.Lock()


def _compiled_failure() -> str | None:
    """Why the compiled modules cannot be used (None when they can); checked once."""
    if "why" not in _cache:
        if os.environ.get("SHOPSIM_PURE_SCAN") == "1":
            _cache["why"] = "SHOPSIM_PURE_SCAN=1"
        elif (spec := importlib.util.find_spec(_LIBRARY)) is None or spec.origin is None:
            _cache["why"] = "not compiled (no mypyc or C compiler when it was installed)"
        elif stale := _newer_sources(spec.origin):
            _cache["why"] = f"the compiled build is older than {stale} (run scripts/setup to rebuild it)"
        else:
            try:
                importlib.import_module(_LIBRARY)
                _cache["why"] = None
            except ImportError as exc:
                _cache["why"] = f"the compiled library does not load ({exc})"
    return _cache["why"]


_cache: dict[str, str | None] = {}


def _newer_sources(library: str) -> str | None:
    """In a source checkout, the first scan module edited since the compiled library was built.

    An editable install compiles beside the sources, so an edit would otherwise be ignored until
    the next build; an installed wheel (no pyproject.toml above the package) is never stale.
    """
    folder = os.path.dirname(library)
    if not os.path.isfile(os.path.join(folder, os.pardir, "pyproject.toml")):
        return None
    built = os.path.getmtime(library)
    for name in SCAN_MODULES:
        source = os.path.join(folder, f"{name}.py")
        if os.path.isfile(source) and os.path.getmtime(source) > built:
            return f"translators/{name}.py"
    return None


class _PureFinder(importlib.abc.MetaPathFinder):
    """Finds the ``.py`` of a scan module when the pure build is wanted; otherwise leaves it to Python."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None,
                  ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in _NAMES or not (_state["force_pure"] or _compiled_failure()):
            return None
        for folder in path or ():
            source = os.path.join(folder, fullname.rpartition(".")[2] + ".py")
            if os.path.isfile(source):
                return importlib.util.spec_from_file_location(fullname, source)
        return None


_FINDER = _PureFinder()


def install() -> None:
    """Put the finder first on ``sys.meta_path`` (once); the package's ``__init__`` calls it."""
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def scan_build() -> str:
    """The build in use, for ``shopsim --version``: ``compiled (mypyc)`` or ``pure Python (why)``."""
    guard = importlib.import_module(f"{PACKAGE}.guard")
    if not (guard.__file__ or "").endswith((".py", ".pyc")):
        return "compiled (mypyc)"
    return f"pure Python ({_compiled_failure() or 'no compiled build'})"


def pure_modules() -> dict[str, ModuleType]:
    """Fresh pure-Python copies of the scan modules, by short name, beside whatever build is loaded.

    They are loaded under their own names and then taken out again, so everything else keeps the
    modules it had; each copy imports the other copies.
    """
    package = importlib.import_module(PACKAGE)
    with _lock:
        saved = {name: sys.modules.pop(name) for name in _NAMES if name in sys.modules}
        _state["force_pure"] = True
        try:
            return {name.rpartition(".")[2]: importlib.import_module(name) for name in _NAMES}
        finally:
            _state["force_pure"] = False
            for name in _NAMES:
                sys.modules.pop(name, None)
                short = name.rpartition(".")[2]
                if name in saved:
                    sys.modules[name] = saved[name]
                    setattr(package, short, saved[name])
                elif hasattr(package, short):
                    delattr(package, short)
