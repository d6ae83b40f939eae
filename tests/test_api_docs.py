"""The API reference builds without a warning, documents the public modules, and the package facade
exports the names issue 12 promises, so a user finds the way in without reading our source."""

from __future__ import annotations

import html
import importlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import shopsim
from tests.conftest import ROOT

pytestmark = pytest.mark.slow  # a costly module fixture, or every test is long

#: The public modules the reference documents (scripts/docs builds exactly these).
MODULES = [
    "shopsim", "shopsim.page", "shopsim.render",
    "shopsim.adapters", "shopsim.adapters.env", "shopsim.adapters.sources", "shopsim.adapters.replay",
    "shopsim.adapters.bundle", "shopsim.adapters.browser_source", "shopsim.adapters.pytest_plugin",
    "shopsim.translators", "shopsim.translators.base", "shopsim.translators.generic",
    "shopsim.translators.amazon", "shopsim.translators.ebay", "shopsim.translators.registry",
    "shopsim.translators.answer_key",
    "shopsim.agents", "shopsim.agents.base", "shopsim.agents.registry", "shopsim.agents.evaluation.runner",
    "shopsim.agents.transfer.bundle_episode",
    "shopsim.simsite", "shopsim.simsite.shop", "shopsim.simsite.session", "shopsim.simsite.models",
    "shopsim.simsite.server",
]

#: What ``from shopsim import ...`` must give (issue 12, deliverable 8), and where each comes from.
FACADE = {
    "ShopEnv": "shopsim.adapters.env:ShopEnv",
    "WebAgentTextEnv": "shopsim.adapters.webshop_env:WebAgentTextEnv",
    "Shop": "shopsim.simsite.shop:Shop",
    "PageState": "shopsim.page:PageState",
    "translate": "shopsim.translators.registry:translate_html",
    "register_translator": "shopsim.translators.registry:register_translator",
    "run_eval": "shopsim.agents.evaluation.runner:run_eval",
    "EvalConfig": "shopsim.agents.evaluation.config:EvalConfig",
    "Agent": "shopsim.agents.base:Agent",
    "make_agent": "shopsim.agents.registry:make_agent",
    "register_agent": "shopsim.agents.registry:register_agent",
    "agent_names": "shopsim.agents.registry:agent_names",
}


@pytest.mark.parametrize("name", sorted(FACADE))
def test_the_facade_exports_the_main_names(name: str) -> None:
    module, _, attr = FACADE[name].partition(":")
    assert name in shopsim.__all__ and name in dir(shopsim)
    assert getattr(shopsim, name) is getattr(importlib.import_module(module), attr)


def test_the_agent_registry_from_the_facade(monkeypatch: pytest.MonkeyPatch) -> None:
    from shopsim.agents.registry import AGENTS

    assert {"rule", "random", "heuristic", "llm", "human"} <= set(shopsim.agent_names())
    monkeypatch.setattr("shopsim.agents.registry.AGENTS", dict(AGENTS))  # registered for this test only
    shopsim.register_agent("facade-rule", lambda seed, opts: shopsim.make_agent("rule", seed, opts))
    agent = shopsim.make_agent("facade-rule", seed=1)
    assert isinstance(agent, shopsim.Agent) and "facade-rule" in shopsim.agent_names()


@pytest.fixture(scope="module")
def built_docs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """``scripts/docs`` run as CI runs it, into a temporary folder, with this interpreter."""
    out = tmp_path_factory.mktemp("api")
    env = {**os.environ, "PYTHON": sys.executable}
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "docs"), str(out)], env=env,
                          capture_output=True, text=True, timeout=600)
    return out, proc


def test_the_reference_builds_without_warnings(built_docs: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    _, proc = built_docs
    assert proc.returncode == 0, proc.stdout + proc.stderr
    warnings = [line for line in proc.stderr.splitlines() if re.search(r"warn", line, re.IGNORECASE)]
    assert warnings == [] and proc.stderr.strip() == "", proc.stderr


def test_the_reference_documents_exactly_the_public_modules(
        built_docs: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, proc = built_docs
    assert proc.returncode == 0, proc.stderr
    pages = sorted(p.relative_to(out).with_suffix("").as_posix().replace("/", ".")
                   for p in out.rglob("*.html") if p.name != "index.html")
    assert pages == sorted(MODULES)
    facade = (out / "shopsim.html").read_text(encoding="utf-8")
    missing = [name for name in shopsim.__all__ if f'id="{name}"' not in facade]
    assert missing == [], f"names of shopsim.__all__ without an entry on its page: {missing}"


#: reST that pdoc's converter leaves as it is: an unresolved role, double backquotes, a ``::`` literal
#: marker, a directive. It renders as raw markup, so it counts as a docstring problem too.
RAW_REST = re.compile(r":\w+:`|``|::$|^\.\. [\w-]+::", re.MULTILINE)


def test_rendered_docstrings_hold_no_raw_rest(built_docs: tuple[Path, subprocess.CompletedProcess[str]]) -> None:
    out, proc = built_docs
    assert proc.returncode == 0, proc.stderr
    found = []
    for page in sorted(out.rglob("*.html")):
        for block in re.findall(r'<div class="docstring">(.*?)</div>', page.read_text(encoding="utf-8"), re.S):
            text = html.unescape(re.sub(r"<[^>]+>", "", re.sub(r"<pre>.*?</pre>", "", block, flags=re.S)))
            found += [f"{page.relative_to(out)}: ...{text[max(0, m.start() - 50):m.end() + 20]!r}"
                      for m in RAW_REST.finditer(text)]
    assert found == []
