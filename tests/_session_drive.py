"""One scripted shopping session over HTTP, mirrored by an in-process ShopSession (tests of session logs and demos).

The browser side GETs (or POSTs, for a search) WebShop's URLs as the pages link them; the mirror
steps the same actions, so each step's expected state, valid actions and action are known exactly.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import httpx

from shopsim import routes
from shopsim.render import render_simple
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop


@dataclass
class Drive:
    """What the session did: pages fetched (in order), and per action the mirror's state before it."""

    pages: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    states: list[str] = field(default_factory=list)
    available: list[list[str]] = field(default_factory=list)
    reward: float | None = None
    asin: str = ""
    options: dict[str, str] = field(default_factory=dict)


def _act(drive: Drive, mirror: ShopSession, action: str) -> None:
    state = mirror.state
    drive.states.append(render_simple(state))
    clicks = [] if state.has_search_bar else [f"click[{c}]" for c in state.valid_actions()["clickables"]]
    drive.available.append(clicks)
    drive.actions.append(action)
    result = mirror.step(action)
    assert result.state.feedback.code == "ok", (action, result.state.feedback)
    if result.done:
        drive.reward = result.reward


def _get(client: httpx.Client, drive: Drive, path: str, page: str) -> httpx.Response:
    r = client.get(path)
    assert r.status_code == 200, (path, r.status_code, r.text[-300:])
    drive.pages.append(page)
    return r


def _search(client: httpx.Client, drive: Drive, mirror: ShopSession, sid: str, query: str) -> None:
    _act(drive, mirror, f"search[{query.lower()}]")
    r = client.post(routes.index_path(sid), data={"search_query": query}, follow_redirects=False)
    assert r.status_code == 303, r.text[-300:]
    _get(client, drive, r.headers["location"], "search_results")


def drive_session(client: httpx.Client, shop: Shop, goal: int, sid: str, base_url: str) -> Drive:
    """Search, back to search, search again, next page, a reload, an item, an option, a sub-page, back, buy."""
    drive = Drive()
    mirror = ShopSession(shop, shop.goal(goal), sid, base_url=base_url)
    _get(client, drive, routes.index_path(sid), "index")
    _search(client, drive, mirror, sid, "nail polish")
    _act(drive, mirror, "click[back to search]")
    _get(client, drive, routes.index_path(sid), "index")
    _search(client, drive, mirror, sid, "Blue Color")  # the form lower-cases it, as WebShop's does
    kw = ["blue", "color"]
    _act(drive, mirror, "click[next >]")
    _get(client, drive, routes.results_path(sid, kw, 2), "search_results")
    _get(client, drive, routes.results_path(sid, kw, 2), "search_results")  # a reload: no action
    product = next(shop.products[c.id] for c in mirror.state.results if shop.products[c.id].options)
    axis, values = next(iter(product.options.items()))
    opts = {axis: values[-1]}
    _act(drive, mirror, f"click[{product.asin.lower()}]")
    _get(client, drive, routes.item_path(sid, product.asin, kw, 2, {}), "item_page")
    _act(drive, mirror, f"click[{values[-1]}]")
    _get(client, drive, routes.item_path(sid, product.asin, kw, 2, opts), "item_page")
    _act(drive, mirror, "click[features]")
    _get(client, drive, routes.sub_page_path(sid, product.asin, kw, 2, "Features", opts), "item_sub_page")
    _act(drive, mirror, "click[< prev]")
    _get(client, drive, routes.item_path(sid, product.asin, kw, 2, opts), "item_page")
    _act(drive, mirror, "click[buy now]")
    _get(client, drive, routes.done_path(sid, product.asin, opts), "done")
    drive.asin, drive.options = product.asin, opts
    return drive
