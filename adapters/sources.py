"""Page sources: where an environment's pages come from.

* :class:`InProcessSource` wraps a :class:`ShopSession` directly (fastest; the reference).
* :class:`HttpSource` talks to a running ``shopsim serve`` over HTTP: the JSON API, or the HTML
  routes read back with :class:`SimsiteTranslator` (what an HTML-scraping client sees).
* :class:`BrowserSource` drives real headless Chromium via Playwright: ``mode="url"`` loads the
  resolved URL, ``mode="click"`` clicks the real element (or fills ``#search_input`` and submits).

All expose ``reset(goal_index, seed) -> PageState``, ``step(action) -> (state, reward, done,
truncated)`` and ``close()``; transport failures become :class:`shopsim.errors.SourceError`.
"""


from __future__ import annotations

import contextlib
import uuid
from typing import Any, Literal

import httpx

from shopsim.adapters.browser_source import (  # re-exported: their home before the split
    BROWSER_ARGS,
    BrowserSource,
    EpisodeRecorder,
    _Browser,  # noqa: F401  (the shared Chromium; tests and replay use it)
    find_browser,
    playwright_ffmpeg,
)
from shopsim.adapters.source_base import EpisodeBook, SourceBase, StepOut
from shopsim.errors import SourceError
from shopsim.page import PageState
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop
from shopsim.translators.simsite import SimsiteTranslator

__all__ = [
    "BROWSER_ARGS",
    "BrowserSource",
    "EpisodeRecorder",
    "HttpSource",
    "InProcessSource",
    "find_browser",
    "playwright_ffmpeg",
]

_Base, _Episode = SourceBase, EpisodeBook  # the names before the split


class InProcessSource(_Base):
    """A ShopSession in this process; session id ``fixed_<goal>`` like WebShop's fixed goals."""

    def __init__(self, shop: Shop, *, strict: bool = False, max_steps: int | None = None):
        self.shop, self.strict, self.max_steps = shop, strict, max_steps
        self.session: ShopSession | None = None

    def reset(self, goal_index: int, seed: int = 0) -> PageState:
        self.session = ShopSession(self.shop, self.shop.goal(goal_index), f"fixed_{goal_index}",
                                   strict=self.strict, max_steps=self.max_steps)
        return self.session.state

    def step(self, action: str) -> StepOut:
        if self.session is None:
            raise SourceError("step() before reset()")
        r = self.session.step(action)
        return r.state, r.reward, r.done, r.truncated


class HttpSource(_Base):
    """A running shopsim server: ``api="json"`` (JSON API leases) or ``api="html"`` (HTML routes)."""

    def __init__(
        self,
        base_url: str,
        *,
        api: Literal["json", "html"] = "json",
        strict: bool = False,
        max_steps: int | None = None,
        timeout: float = 30.0,
        client: httpx.Client | None = None,
    ):
        self.base_url = base_url.rstrip("/")
        self.api, self.strict, self.max_steps = api, strict, max_steps
        self.client = client or httpx.Client(base_url=self.base_url, timeout=timeout)
        self._own_client = client is None
        self.session_id: str | None = None
        self.translator = SimsiteTranslator()
        self.episode = _Episode(max_steps)

    def _call(self, method: str, url: str, **kw: Any) -> httpx.Response:
        try:
            r = self.client.request(method, url, **kw)
        except httpx.HTTPError as exc:
            raise SourceError(f"{method} {url}: {type(exc).__name__}: {exc}") from exc
        return r

    def _json(self, method: str, url: str, **kw: Any) -> dict[str, Any]:
        r = self._call(method, url, **kw)
        if r.status_code >= 400:
            raise SourceError(f"{method} {url}: HTTP {r.status_code}: {r.text[:300]}")
        return r.json()

    def reset(self, goal_index: int, seed: int = 0) -> PageState:
        if self.api == "json":
            self._close_session()
            body = {"goal": goal_index, "seed": seed, "strict": self.strict, "max_steps": self.max_steps}
            out = self._json("POST", "/api/sessions", json=body)
            self.session_id = out["session_id"]
            return PageState.model_validate(out["page_state"])
        self.session_id = f"fixed_{goal_index}_{uuid.uuid4().hex[:12]}"
        return self.episode.start(self._page("GET", f"/{self.session_id}"))

    def _page(self, method: str, url: str, form: dict[str, str] | None = None) -> PageState:
        r = self._call(method, url, data=form, follow_redirects=True)
        if r.status_code >= 400:
            raise SourceError(f"{method} {url}: HTTP {r.status_code}: {r.text[-300:]}")
        return self.translator.parse(r.text, str(r.url))

    def step(self, action: str) -> StepOut:
        if self.api == "json":
            if self.session_id is None:
                raise SourceError("step() before reset()")
            out = self._json("POST", f"/api/sessions/{self.session_id}/step", json={"action": action})
            return PageState.model_validate(out["page_state"]), out["reward"], out["done"], out["truncated"]
        early = self.episode.before()
        if early is not None:
            return early
        assert self.episode.state is not None
        nav = self.translator.resolve(self.episode.state, action)
        if nav.kind in ("none", "select") or nav.url is None:
            return self.episode.refuse(nav.feedback)
        method = "POST" if nav.kind == "form" else "GET"
        return self.episode.landed(self._page(method, nav.url, nav.form or None))

    def _close_session(self) -> None:
        if self.api == "json" and self.session_id is not None:
            with contextlib.suppress(httpx.HTTPError):
                self.client.delete(f"/api/sessions/{self.session_id}")
            self.session_id = None

    def close(self) -> None:
        self._close_session()
        if self._own_client:
            self.client.close()
