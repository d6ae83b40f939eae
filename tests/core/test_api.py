"""The package facade: ``from shopsim import ...`` gives the main names, loaded only when used."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

import shopsim


@pytest.mark.parametrize("name", sorted(set(shopsim.__all__) - {"__version__"}))
def test_every_public_name_is_the_object_of_its_module(name: str) -> None:
    module, _, attr = shopsim._NAMES[name].partition(":")
    assert getattr(shopsim, name) is getattr(importlib.import_module(module), attr)


def test_importing_shopsim_loads_no_layer_and_unknown_names_fail_clearly() -> None:
    code = ("import sys, shopsim; print(sorted(m for m in sys.modules if m.startswith('shopsim.'))); "
            "from shopsim import PageState; print(PageState.__name__)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split("\n")
    assert out[0] == "[]" and out[1] == "PageState"
    with pytest.raises(AttributeError, match="has no attribute 'Nope'"):
        shopsim.Nope  # noqa: B018


def test_translate_and_env_from_the_facade(bundled_shop: shopsim.Shop) -> None:
    state = shopsim.translate("<html><head><title>x</title></head><body><p>nothing here</p></body></html>",
                              url="https://www.amazon.com/s?k=x")
    assert isinstance(state, shopsim.PageState) and state.site == "amazon"
    env = shopsim.ShopEnv(bundled_shop)
    obs, info = env.reset(seed=0)
    assert obs == shopsim.observation(info["page_state"], "text")


def test_all_lists_exactly_the_lazy_names() -> None:
    assert set(shopsim.__all__) == set(shopsim._NAMES) | {"__version__"}
