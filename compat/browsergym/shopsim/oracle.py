"""The oracle's path through one goal, as ``shopsim check-goals`` finds it, and ``cheat`` walking it.

:func:`shopsim.agents.reachability.check_goal` sees the hidden goal: it searches the instruction,
scores every result with its best options and keeps the best purchase. :class:`OraclePlan` is
that purchase as the steps a shopper takes: the query, the results page, the product, the options.
:func:`walk` takes those steps in a Playwright page with the shop's own markup hooks.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict

from shopsim import routes
from shopsim.agents.reachability import check_goal
from shopsim.errors import ConfigError
from shopsim.simsite.session import PRODUCT_WINDOW

__all__ = ["OraclePlan", "oracle_plan", "walk"]


class OraclePlan(BaseModel):
    """The best purchase reachable from a search of the instruction, as steps; ``reward`` is what it earns."""

    model_config = ConfigDict(frozen=True)

    goal_index: int
    instruction: str
    query: str
    page: int
    asin: str
    options: dict[str, str]
    reward: float


def oracle_plan(shop: Any, index: int) -> OraclePlan:
    """The oracle's path for goal ``index`` of ``shop`` (a ConfigError when its search finds nothing)."""
    reach = check_goal(shop, index)
    if reach.best_asin is None or reach.best_rank is None:
        raise ConfigError(f"goal {index}: a search of its instruction finds no product, so there is no path to walk")
    return OraclePlan(goal_index=index, instruction=reach.instruction, query=reach.instruction.lower(),
                      page=(reach.best_rank - 1) // PRODUCT_WINDOW + 1, asin=reach.best_asin,
                      options=reach.best_options, reward=reach.best_reward)


def _click_and_wait(page: Any, locator: Any) -> None:
    """Every click on the shop's pages loads a page: wait for it, so the next step sees the new one."""
    with page.expect_navigation():
        locator.click()


def _radio(page: Any, axis: str, value: str) -> Any:
    """The option radio of ``axis`` = ``value`` (compared as attributes, so no quoting in a selector)."""
    radios = page.locator("input[type=radio]")
    for i in range(radios.count()):
        radio = radios.nth(i)
        if radio.get_attribute("name") == axis and radio.get_attribute("value") == value:
            return radio
    raise ConfigError(f"product page has no option {axis}={value!r}")


def walk(page: Any, plan: OraclePlan, base_url: str, session_id: str) -> None:
    """Take the plan's steps in ``page``, from the session's search page to the done page."""
    page.goto(routes.index_url(base_url, session_id))
    page.fill("#search_input", plan.query)
    _click_and_wait(page, page.locator("[data-action='search']"))
    for _ in range(plan.page - 1):
        _click_and_wait(page, page.locator("[data-action='next']"))
    _click_and_wait(page, page.locator(f"a.product-link[data-asin='{plan.asin}']"))
    for axis, value in plan.options.items():
        _click_and_wait(page, _radio(page, axis, value))
    _click_and_wait(page, page.locator("[data-action='buy-now']"))
