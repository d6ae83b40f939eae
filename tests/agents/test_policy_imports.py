"""The policies read pages through the contract: importing one loads nothing of the shop or the translators.

An agent that imported the shop's internals (its stemmer, tokenizer or budget parser) would score
itself against code a real shop does not run; the text helpers they share live in ``shopsim.text``.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

POLICIES = ("heuristic", "heuristic_v8", "rule", "random_agent", "llm", "human")
FORBIDDEN = ("shopsim.simsite", "shopsim.translators")


def loaded_after_import(module: str) -> list[str]:
    """The ``shopsim.*`` modules a fresh interpreter holds after importing ``module``."""
    code = (f"import json, sys; import {module}; "
            "print(json.dumps(sorted(m for m in sys.modules if m.startswith('shopsim'))))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


@pytest.mark.parametrize("name", POLICIES)
def test_policy_imports_nothing_of_the_shop(name: str) -> None:
    loaded = loaded_after_import(f"shopsim.agents.{name}")
    assert f"shopsim.agents.{name}" in loaded
    assert [m for m in loaded if m.startswith(FORBIDDEN)] == []


def test_the_check_sees_a_shop_import() -> None:
    # The check can fail: a module that does import the shop shows it.
    assert "shopsim.simsite.search" in loaded_after_import("shopsim.agents.reachability")
