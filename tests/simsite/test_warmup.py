"""Start-up warm-up of WebShop's app: it runs before the server accepts a request, and the first
purchase after start-up is scored exactly as later ones are (and as an in-process session scores it).
"""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from shopsim.routes import done_path
from shopsim.simsite.server import ServerThread, ShopServer, Warmup
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.simsite.web import create_app
from shopsim.translators.sim_pages import SimsiteTranslator


@pytest.fixture(scope="module")
def fresh_shop() -> Shop:
    """A shop of its own: no other test has scored a purchase or rendered a page on it."""
    return Shop.from_config(ShopConfig())


def _buy(c: httpx.Client, goal: int) -> dict:
    """Goal ``goal``'s session: search its instruction, open the first result, buy it; the last step's body."""
    created = c.post("/api/sessions", json={"goal": goal}).json()
    sid, words = created["session_id"], created["page_state"]["instruction"].lower().split()[:4]
    results = c.post(f"/api/sessions/{sid}/step", json={"action": f"search[{' '.join(words)}]"}).json()
    asin = results["page_state"]["results"][0]["id"].lower()
    c.post(f"/api/sessions/{sid}/step", json={"action": f"click[{asin}]"})
    return c.post(f"/api/sessions/{sid}/step", json={"action": "click[buy now]"}).json()


def _in_process(shop: Shop, goal: int) -> tuple[float, dict | None]:
    s = ShopSession(shop, shop.goal(goal), "ref")
    s.step("search[" + " ".join((s.state.instruction or "").lower().split()[:4]) + "]")
    s.step(f"click[{s.state.results[0].id.lower()}]")
    r = s.step("click[buy now]")
    return r.reward, r.state.reward_info


def test_first_purchase_after_start_up_scores_as_later_ones(fresh_shop):
    app = create_app(fresh_shop)
    assert app.state.warmup is None
    with ServerThread(app, lifespan="on", start_timeout_s=120) as srv, httpx.Client(base_url=srv.base_url, timeout=60) as c:
        report = app.state.warmup
        assert isinstance(report, Warmup) and report.purchased
        assert report.pages == ("search", "results", "item", "item_detail", "done")
        # the warm-up's session is no session of the app: nothing a client could see or collide with
        assert c.get("/api/health").json()["open_sessions"] == 0 and not app.state.sessions.html
        first = [_buy(c, g) for g in (4, 9)]
        later = [_buy(c, g) for g in (4, 9)]
    for a, b, g in zip(first, later, (4, 9), strict=True):
        assert a["done"] and (a["reward"], a["reward_info"]) == (b["reward"], b["reward_info"])
        assert (a["reward"], a["reward_info"]) == _in_process(fresh_shop, g)


def test_warm_up_finishes_before_the_first_request_is_answered(fresh_shop):
    """Poll from the moment the server thread starts: the first answer already finds the warm-up done."""
    app = create_app(fresh_shop)
    server = ShopServer(app, port=0, lifespan="on")
    server.config.port = _free_port()
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{server.config.port}/api/health", timeout=5)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and thread.is_alive(), "the server did not come up"
                time.sleep(0.002)
        assert r.status_code == 200
        assert isinstance(app.state.warmup, Warmup)  # set at the end of the warm-up, before the socket opened
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_browsers_buy_now_as_the_first_request_is_scored_as_later_ones(fresh_shop):
    """BrowserGym's Buy Now is an HTML form POST to /done: as a server's very first request (no page
    loaded, nothing bought before on it) it finds the warm-up done and scores as a later one does."""
    app = create_app(fresh_shop)
    s = ShopSession(fresh_shop, fresh_shop.goal(4), "fixed_4")
    s.step("search[" + " ".join((s.state.instruction or "").lower().split()[:4]) + "]")
    asin = s.state.results[0].id
    s.step(f"click[{asin.lower()}]")
    want = s.step("click[buy now]")
    tr = SimsiteTranslator()
    with ServerThread(app, lifespan="on", start_timeout_s=120) as srv, httpx.Client(base_url=srv.base_url, timeout=60) as c:
        assert isinstance(app.state.warmup, Warmup) and app.state.warmup.purchased
        pages = [c.post(done_path("fixed_4", asin, {}), data={}) for _ in range(2)]
    assert [p.status_code for p in pages] == [200, 200]
    first, later = (tr.parse(p.text) for p in pages)
    assert first.page_type == later.page_type == "done" and first.purchase is not None
    assert (first.reward, first.reward_info) == (later.reward, later.reward_info) == (want.reward, want.state.reward_info)
