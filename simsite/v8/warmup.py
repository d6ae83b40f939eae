"""Start-up warm-up for the v8 service: one throwaway episode before the server accepts requests.

The first v8 reset, search and purchase of a fresh server paid for the search engine's and the
reward's first use (jieba loads its dictionary: seconds), the observation renderers and the JSON
encoder, and every purchase of a product not bought before cut its title with jieba (~1-15 ms); a
snapshot paid for the shop's fingerprint (it reads every product). :func:`warm_v8` pays it all at
start-up (``V8Shop.prime_nouns`` cuts every title) on a session that is no lease: it takes no slot
and nobody sees it.
"""

from __future__ import annotations

import time

from shopsim.simsite.json_api import FastJSONResponse
from shopsim.simsite.server import Warmup
from shopsim.simsite.snapshots import shop_fingerprint
from shopsim.simsite.v8.session import BUY, V8Session
from shopsim.simsite.v8.shop import V8Shop

__all__ = ["warm_v8"]


def _episode(shop: V8Shop) -> V8Session:
    """Task 0 played to a purchase: search its request, open the first result, pick every option, buy."""
    task = shop.goals[0]
    session = V8Session(shop, task)
    session.step(f"search[{task.simple_text}]")
    results = session.state.results
    if results:
        session.step(f"click[{results[0].asin}]")
        for axis in list(session.state.missing_option_axes):
            value = next((c for c in session.state.clickables if c.startswith(f"{axis}=")), None)
            if value is not None:
                session.step(f"click[{value}]")
        session.step(f"click[{BUY}]")
    return session


def warm_v8(shop: V8Shop) -> Warmup:
    """Play one episode, rendering each page as the API does, and hash the shop's fingerprint."""
    t0 = time.perf_counter()
    shop.prime_nouns()
    session = _episode(shop)
    pages = []
    for state in (V8Session(shop, shop.goals[0]).state, session.state):
        pages.append(state.page_type)
        FastJSONResponse({"observation_state": state.model_dump(mode="json")})
    session.observation()
    if session.detail is not None:
        FastJSONResponse(session.detail.model_dump(mode="json"))
    shop_fingerprint(shop)
    return Warmup(tuple(pages), session.done, time.perf_counter() - t0)
