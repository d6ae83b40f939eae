"""Start-up warm-up for WebShop's app: what the first requests would otherwise pay, paid before serving.

A fresh server's first purchase used to take ~500 ms (then 1.5 ms): the type reward loads the noun
tagger, each template compiles on its first page, the text renderers and the JSON encoder import
and warm their caches. A client with a short timeout (BrowserGym's 500 ms click) then reads a
successful purchase as a failure. :func:`warm_webshop` pays all of it at start-up. The titles'
noun tags are already loaded (opening a shop of up to 5,000 titles loads or tags them once,
:mod:`~shopsim.simsite.noun_table`), so it then plays one
throwaway session through every page type (search, results, item, sub-page, done with its reward)
and renders each page as HTML, as text and as the API's JSON. The session is no server session: it
is not logged, leased or counted, so what clients see is unchanged.
"""

from __future__ import annotations

import time

from shopsim.render import render_rich, render_simple
from shopsim.simsite.html import render_error
from shopsim.simsite.json_api import FastJSONResponse
from shopsim.simsite.server import Warmup
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop
from shopsim.simsite.skins import SKINS
from shopsim.simsite.snapshots import shop_fingerprint

__all__ = ["warm_webshop"]

#: The session id the warm-up plays under (never a server session: it is not registered anywhere).
WARMUP_SID = "warm-up"


def warm_webshop(shop: Shop) -> Warmup:
    """Render every page type once and score one purchase (loading the tagger if titles are untagged)."""
    t0 = time.perf_counter()
    shop_fingerprint(shop)  # what a snapshot or restore hashes on first use
    session = ShopSession(shop, shop.goal(0), WARMUP_SID)
    keywords = (session.state.instruction or "shoes").lower().split()[:6]
    states = [session.state, session.show("search_results", keywords=keywords, page_num=1).state]
    asin = states[-1].results[0].id if states[-1].results else next(iter(shop.products))
    states.append(session.show("item_page", asin=asin, keywords=keywords, page_num=1, options={}).state)
    states.append(session.show("item_sub_page", asin=asin, keywords=keywords, page_num=1, options={},
                               sub_page="Description").state)
    done = session.show("done", asin=asin, options={})
    states.append(done.state)
    for state in states:
        for skin in SKINS.values():  # WebShop's pages (render_html) and every skin's templates compiled
            skin.render(state, shop.products)
        render_simple(state)
        render_rich(state)
        FastJSONResponse({"valid_actions": state.valid_actions(), "page_state": state.model_dump(mode="json")})
    render_error(404, "Not found", "warm-up")
    return Warmup(tuple(s.page_type for s in states), done.done, time.perf_counter() - t0)
