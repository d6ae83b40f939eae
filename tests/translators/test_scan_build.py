"""The compiled tag scan and the pure one give the same verdicts and counts (issue 22).

``setup.py`` compiles the guard's scan modules with mypyc when it can; the pure modules are the
reference. :func:`~shopsim.translators.scan_build.pure_modules` loads them beside the compiled ones,
so both run here in one process on hypothesis markup and every real page in ``../shared``.
Without a compiled build the comparisons skip, saying so (the pure scan is then the only one).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from conftest import needs_shared
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_guard_fuzz import SHORTCUT_TAGS, _real_pages, nested, structure

from shopsim.translators import guard, tree_model
from shopsim.translators.documents import decode_html
from shopsim.translators.scan_build import pure_modules, scan_build

COMPILED = scan_build() == "compiled (mypyc)"
needs_compiled = pytest.mark.skipif(not COMPILED, reason=f"the tag scan is not compiled here: {scan_build()}")


def _counts(scan: ModuleType, model_module: ModuleType, html: str) -> tuple[object, ...]:
    """A scan's verdict and every counter of its model (TreeModel's fields)."""
    model = model_module.TreeModel()
    verdict = scan.scan_markup(html, model)
    return (verdict, model.elements, model.work, model.attr_work, model.deepest, model.options, model.optgroups,
            model.in_head, [entry[:3] for entry in model.stack], dict(model.where), [list(m) for m in model.marks],
            [(f.name, f.key, f.open) for f in model.afe], model.afe_base, sorted(model.col_templates))


@pytest.fixture(scope="module")
def pure() -> dict[str, ModuleType]:
    return pure_modules()


def test_pure_modules_are_plain_python_and_leave_the_loaded_build_alone(pure: dict[str, ModuleType]) -> None:
    assert all(m.__file__ is not None and m.__file__.endswith(".py") for m in pure.values())
    assert pure["guard"] is not guard and pure["guard"].TreeModel is pure["tree_model"].TreeModel
    assert guard.TreeModel is tree_model.TreeModel  # the loaded modules still import each other
    assert pure["guard"].scan_markup("<body>" + "<div>" * 600) == guard.scan_markup("<body>" + "<div>" * 600)


@needs_compiled
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(html=st.one_of(structure(), nested(), st.lists(SHORTCUT_TAGS, max_size=200).map(lambda t: "<body>" + "".join(t))))
def test_compiled_and_pure_scans_count_alike_on_random_markup(html: str, pure: dict[str, ModuleType]) -> None:
    assert _counts(guard, tree_model, html) == _counts(pure["guard"], pure["tree_model"], html)


@needs_compiled
@needs_shared
@pytest.mark.parametrize("path", _real_pages(), ids=lambda p: p.stem[:50])
def test_compiled_and_pure_scans_count_alike_on_every_real_page(path: Path, pure: dict[str, ModuleType]) -> None:
    html = decode_html(path.read_bytes()).replace("\x00", "")
    assert _counts(guard, tree_model, html) == _counts(pure["guard"], pure["tree_model"], html)


def test_shopsim_pure_scan_forces_the_pure_modules() -> None:
    code = "from shopsim.translators import guard, scan_build; print(scan_build.scan_build()); print(guard.__file__)"
    env = {**os.environ, "SHOPSIM_PURE_SCAN": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    build, path = out.splitlines()
    assert build == "pure Python (SHOPSIM_PURE_SCAN=1)" and path.endswith("guard.py")


def test_shopsim_version_says_which_scan_runs() -> None:
    env = {**os.environ, "SHOPSIM_PURE_SCAN": "1"}
    out = subprocess.run([sys.executable, "-m", "shopsim.cli", "--version"], env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("shopsim ") and out.rstrip().endswith("guard tag scan: pure Python (SHOPSIM_PURE_SCAN=1))")
    out = subprocess.run([sys.executable, "-m", "shopsim.cli", "--version"], capture_output=True, text=True,
                         check=True).stdout
    assert f"guard tag scan: {scan_build()})" in out
