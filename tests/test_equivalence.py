"""The same seeded episodes through every page source give identical pages, actions and rewards."""

from __future__ import annotations

from typing import Any

import pytest
from _web_policies import RandomPolicy, RulePolicy

from shopsim.adapters.sources import BrowserSource, HttpSource, InProcessSource
from shopsim.render import render_rich, render_simple

pytestmark = pytest.mark.browser

EPISODES = [(goal, kind) for goal, kind in zip(range(0, 150, 5), ["rule", "random"] * 15, strict=True)]
MAX_STEPS = 40


def _run(source: Any, goal: int, kind: str) -> list[tuple]:
    policy = RulePolicy(goal) if kind == "rule" else RandomPolicy(goal)
    state = source.reset(goal, 0)
    trace = [(None, render_simple(state), render_rich(state), state.valid_actions(), 0.0, False)]
    for _ in range(MAX_STEPS):
        action = policy.act(state)
        state, reward, done, truncated = source.step(action)
        trace.append((action, render_simple(state), render_rich(state), state.valid_actions(), reward, done, truncated))
        if done:
            break
    return trace


@pytest.mark.parametrize(("goal", "kind"), EPISODES)
def test_sources_agree(goal, kind, bundled_shop, web_server, chromium_path, browser_shutdown):
    with InProcessSource(bundled_shop) as src:
        ref = _run(src, goal, kind)
    assert ref[-1][5], "the policy should finish with a purchase"
    sources = {
        "http-json": HttpSource(web_server.base_url),
        "http-html": HttpSource(web_server.base_url, api="html"),
        "browser-url": BrowserSource(web_server.base_url, mode="url", executable_path=chromium_path),
        "browser-click": BrowserSource(web_server.base_url, mode="click", executable_path=chromium_path),
    }
    for name, source in sources.items():
        with source:
            got = _run(source, goal, kind)
        assert len(got) == len(ref), name
        for step, (a, b) in enumerate(zip(ref, got, strict=True)):
            assert a == b, f"{name} differs from in-process at step {step} (action {a[0]!r})"
