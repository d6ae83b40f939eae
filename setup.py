"""The build: everything is in pyproject.toml but the optional compiled tag scan (docs/translators.md).

The guard's tag scan (``translators/guard.py``, its tokenizer and the tree-builder model it drives)
is compiled with mypyc when mypyc and a C compiler are there, as black and mypy ship theirs: the scan
then costs about a third of the pure-Python one. Without them (or with ``SHOPSIM_BUILD_PURE=1``) the
build still succeeds and the same modules run as plain Python; ``SHOPSIM_PURE_SCAN=1`` picks those
at run time.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent


def scan_modules() -> tuple[str, ...]:
    """The modules to compile, as translators/scan_build.py (which picks the build at run time) lists them."""
    spec = importlib.util.spec_from_file_location("scan_build", ROOT / "translators" / "scan_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return tuple(module.SCAN_MODULES)


def compiled_scan() -> list:
    """Mypyc's extensions for the scan modules, or none (with a line saying why) when it cannot build them."""
    if os.environ.get("SHOPSIM_BUILD_PURE") == "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        print("shopsim: mypyc not found; the guard's tag scan stays pure Python", file=sys.stderr)
        return []
    # mypyc names modules after their folders: mirror translators/ as shopsim/translators/ under build/.
    # Written afresh each time, so the library is always rebuilt and never older than the sources
    # (translators/scan_build.py treats an older one as stale).
    tree = ROOT / "build" / "mypyc-src"
    shutil.rmtree(tree, ignore_errors=True)
    package = tree / "shopsim" / "translators"
    package.mkdir(parents=True)
    (tree / "shopsim" / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    paths = []
    for name in scan_modules():
        shutil.copyfile(ROOT / "translators" / f"{name}.py", package / f"{name}.py")
        paths.append(str((package / f"{name}.py").relative_to(ROOT)))
    try:
        extensions = mypycify(paths, opt_level="3", group_name="shopsim.translators.scan",
                              target_dir=str(tree / "c"))
    except (Exception, SystemExit) as exc:  # a mypy that rejects the modules: build the pure package
        print(f"shopsim: mypyc could not compile the tag scan ({exc}); it stays pure Python", file=sys.stderr)
        return []
    for ext in extensions:
        ext.optional = True  # no C compiler: setuptools warns and the pure modules are used
    return extensions


setup(ext_modules=compiled_scan())
