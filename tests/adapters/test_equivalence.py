"""The same seeded episodes through every page source give identical pages, actions and rewards.

All 30 episodes go through the HTTP sources (JSON and HTML); real Chromium, in both modes, takes
the six of them that between them make every kind of step the 30 make (checked below). The other
browser episodes are soak, and ``benchmarks/equivalence.py`` runs them all through every source.
"""

from __future__ import annotations

from typing import Any

import pytest
from _web_policies import MAX_STEPS, PageAgent, policy_for, run_episode

from shopsim.adapters.browser_source import BrowserSource
from shopsim.adapters.env import ShopEnv
from shopsim.adapters.sources import HttpSource, InProcessSource
from shopsim.agents.episode import Step
from shopsim.agents.episode import run_episode as play
from shopsim.simsite.shop import Shop

pytestmark = pytest.mark.slow  # a costly module fixture, or every test is long

EPISODES = [(goal, kind) for goal, kind in zip(range(0, 150, 5), ["rule", "random"] * 15, strict=True)]
#: Next and previous results pages, options, sub-pages, back to search from every page, buying.
BROWSER_EPISODES = [(60, "rule"), (120, "rule"), (140, "rule"), (45, "random"), (55, "random"), (85, "random")]


def _agree(shop: Shop, goal: int, kind: str, sources: dict[str, Any]) -> None:
    with InProcessSource(shop) as src:
        ref = run_episode(src, goal, kind)
    assert ref[-1][5], "the policy should finish with a purchase"
    for name, source in sources.items():
        with source:
            got = run_episode(source, goal, kind)
        assert len(got) == len(ref), name
        for step, (a, b) in enumerate(zip(ref, got, strict=True)):
            assert a == b, f"{name} differs from in-process at step {step} (action {a[0]!r})"


@pytest.mark.parametrize(("goal", "kind"), EPISODES)
def test_http_sources_agree(goal, kind, bundled_shop, web_server):
    _agree(bundled_shop, goal, kind, {"http-json": HttpSource(web_server.base_url),
                                      "http-html": HttpSource(web_server.base_url, api="html")})


@pytest.mark.browser
@pytest.mark.parametrize(("goal", "kind"), BROWSER_EPISODES)
def test_browser_sources_agree(goal, kind, bundled_shop, web_server, chromium_path, browser_shutdown):
    """As ``shopsim eval`` drives them (no images or stylesheets), and clicking a fully drawn page in a
    fresh context."""
    base, path = web_server.base_url, chromium_path
    _agree(bundled_shop, goal, kind, {
        "browser-url": BrowserSource(base, mode="url", executable_path=path, assets=False),
        "browser-click": BrowserSource(base, mode="click", executable_path=path, assets=False),
        "browser-click-drawn": BrowserSource(base, mode="click", executable_path=path, reuse_context=False),
    })


def _kinds_of_step(shop: Shop, goal: int, kind: str) -> set[tuple[str, str, str]]:
    """(page before, kind of action, page after) for each step of the episode, in-process."""
    seen: set[tuple[str, str, str]] = set()

    def record(step: Step) -> None:
        state, action = step.info["page_state"], step.action
        arg = action[action.index("[") + 1:-1]
        what = "search" if action.startswith("search[") else next(c.kind for c in state.clickables if c.arg == arg)
        seen.add((state.page_type, what, step.next_info["page_state"].page_type))

    with InProcessSource(shop) as src:
        play(ShopEnv(None, source=src), PageAgent(policy_for(goal, kind)), goal, max_steps=MAX_STEPS, on_step=record)
    return seen


def test_browser_episodes_take_every_kind_of_step(bundled_shop):
    """The browser's six episodes leave out no kind of step that any of the 30 takes."""
    every = set().union(*(_kinds_of_step(bundled_shop, g, k) for g, k in EPISODES))
    browser = set().union(*(_kinds_of_step(bundled_shop, g, k) for g, k in BROWSER_EPISODES))
    assert {("results", "next", "results"), ("results", "prev", "results"), ("item", "option", "item"),
            ("item", "sub_page", "item_detail"), ("item", "buy", "done")} <= every
    assert every - browser == set()
    assert set(BROWSER_EPISODES) <= set(EPISODES)
