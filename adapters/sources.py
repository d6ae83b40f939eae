"""Page sources: where an environment's pages come from.

* :class:`InProcessSource` wraps a :class:`ShopSession` directly (fastest; the reference).
* :class:`HttpSource` talks to a running ``shopsim serve`` over HTTP: the JSON API, or the HTML
  routes read back with :class:`SimsiteTranslator` (what an HTML-scraping client sees).
* :class:`~shopsim.adapters.browser_source.BrowserSource` (in its own module) drives real headless
  Chromium via Playwright: ``mode="url"`` loads the resolved URL, ``mode="click"`` clicks the real
  element (or fills ``#search_input`` and submits).

All expose ``reset(goal_index, seed) -> PageState``, ``step(action) -> (state, reward, done,
truncated)`` and ``close()``; transport failures become :class:`shopsim.errors.SourceError`.
The in-process and JSON-API sources also ``snapshot() -> token`` and ``restore(token) -> PageState``
(:mod:`shopsim.simsite.snapshots`); the others see pages only and have no state to export.
"""


from __future__ import annotations

import contextlib
import uuid
from typing import Any, ClassVar, Literal

import httpx

from shopsim.adapters.source_base import EpisodeBook, SourceBase, StepOut
from shopsim.errors import ResetNeeded, SourceError
from shopsim.page import Navigation, PageState
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop
from shopsim.simsite.snapshots import SnapshotError
from shopsim.translators.sim_pages import SimsiteTranslator

__all__ = [
    "HttpSource",
    "InProcessSource",
    "http_episode_source",
    "inprocess_episode_source",
]

class InProcessSource(SourceBase):
    """A ShopSession in this process; session id ``<prefix><goal>`` (``fixed_<goal>`` like WebShop's fixed
    goals; :class:`~shopsim.adapters.env.ShopEnv`'s own source uses the bare goal number).
    """

    #: The per-episode ``reset`` options this source reads (ShopEnv passes them on from ``reset(options=)``).
    episode_options: ClassVar[tuple[str, ...]] = ("session_id",)

    def __init__(self, shop: Shop, *, strict: bool = False, max_steps: int | None = None,
                 session_prefix: str = "fixed_"):
        self.shop, self.strict, self.max_steps, self.session_prefix = shop, strict, max_steps, session_prefix
        self.session: ShopSession | None = None
        self.breakdown: dict[str, Any] | None = None

    def reset(self, goal_index: int, seed: int = 0, *, session_id: str | None = None) -> PageState:
        """Start goal ``goal_index`` in a new session, id ``<prefix><goal>`` unless ``session_id`` is given."""
        sid = session_id if session_id is not None else f"{self.session_prefix}{goal_index}"
        self.session = ShopSession(self.shop, self.shop.goal(goal_index), str(sid),
                                   strict=self.strict, max_steps=self.max_steps)
        self.breakdown = None
        return self.session.state

    def step(self, action: str) -> StepOut:
        """Play one action in the session; keeps its reward breakdown for :meth:`reward_info`."""
        if self.session is None:
            raise ResetNeeded("step")
        r = self.session.step(action)
        self.breakdown = r.breakdown.model_dump() if r.breakdown is not None else None
        return r.state, r.reward, r.done, r.truncated

    def reward_info(self, state: PageState) -> dict[str, Any] | None:
        """The last step's reward breakdown (the session's own, richer than the page's), else the page's."""
        return self.breakdown if self.breakdown is not None else state.reward_info

    @property
    def goal_index(self) -> int | None:
        """The goal of the episode in play (after ``restore`` too)."""
        return self.session.goal_index if self.session is not None else None

    def snapshot(self) -> str:
        """The session's state as a token (:meth:`ShopSession.snapshot`)."""
        if self.session is None:
            raise ResetNeeded("snapshot")
        return self.session.snapshot()

    def restore(self, token: str) -> PageState:
        """Continue from a token: its goal, rules and page (the source's own strict/max_steps give way)."""
        self.session = ShopSession.from_snapshot(self.shop, token)
        self.breakdown = None
        return self.session.state


def inprocess_episode_source(shop: Shop, *, strict: bool = False, max_steps: int | None = None,
                             task_mode: str | None = None, interaction_mode: str = "single_turn") -> InProcessSource:
    """The ``webshop`` profile's ``episode_source``: ShopEnv's in-process episodes (session id = goal number)."""
    return InProcessSource(shop, strict=strict, max_steps=max_steps, session_prefix="")


def http_episode_source(base_url: str, *, strict: bool = False, max_steps: int | None = None,
                        task_mode: str | None = None, interaction_mode: str = "single_turn") -> HttpSource:
    """The ``webshop`` profile's ``http_source``: its JSON API's sessions (the episode loop counts steps)."""
    return HttpSource(base_url, strict=strict, max_steps=None)


class HttpSource(SourceBase):
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
        self.episode = EpisodeBook(max_steps)

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
        """Start an episode: a new JSON-API session (the old one deleted), or the HTML start page."""
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
        """Play one action: the JSON API's step, or the link or form it resolves to on the HTML page."""
        if self.api == "json":
            if self.session_id is None:
                raise ResetNeeded("step")
            out = self._json("POST", f"/api/sessions/{self.session_id}/step", json={"action": action})
            return PageState.model_validate(out["page_state"]), out["reward"], out["done"], out["truncated"]
        nav = self.episode.navigation(self.translator, action)
        if not isinstance(nav, Navigation):
            return nav
        method = "POST" if nav.kind == "form" else "GET"
        assert nav.url is not None  # navigation() refuses a Navigation without a url
        return self.episode.landed(self._page(method, nav.url, nav.form or None))

    def snapshot(self) -> str:
        """The server session's state as a token (``POST /api/sessions/{id}/snapshot``)."""
        self._json_api_only("snapshot")
        if self.session_id is None:
            raise ResetNeeded("snapshot")
        return self._snapshot_answer(self._call("POST", f"/api/sessions/{self.session_id}/snapshot"))["snapshot"]

    def restore(self, token: str) -> PageState:
        """Put the open session into a token's state, or open one in it (none open, or it expired)."""
        self._json_api_only("restore")
        if self.session_id is not None:
            r = self._call("POST", f"/api/sessions/{self.session_id}/restore", json={"snapshot": token})
            if r.status_code not in (404, 410):
                return PageState.model_validate(self._snapshot_answer(r)["page_state"])
            self.session_id = None
        out = self._snapshot_answer(self._call("POST", "/api/sessions", json={"snapshot": token}))
        self.session_id = out["session_id"]
        return PageState.model_validate(out["page_state"])

    @property
    def snapshots(self) -> bool:
        """Whether this source can snapshot and restore: the JSON API can, the HTML routes cannot."""
        return self.api == "json"

    def _json_api_only(self, name: str) -> None:
        if self.api != "json":
            raise SnapshotError(f"HttpSource(api='html') cannot {name}: HTML pages carry no session state to export; "
                                "use api='json'")

    @staticmethod
    def _snapshot_answer(r: httpx.Response) -> dict[str, Any]:
        """The JSON answer, a refused token as SnapshotError (the server's one line), other failures as SourceError."""
        if r.status_code == 400 and r.headers.get("content-type", "").startswith("application/json"):
            body = r.json()
            if isinstance(body, dict) and body.get("code") == "invalid_snapshot":
                raise SnapshotError(str(body.get("error")))
        if r.status_code >= 400:
            raise SourceError(f"{r.request.method} {r.request.url.path}: HTTP {r.status_code}: {r.text[:300]}")
        return r.json()

    def _close_session(self) -> None:
        if self.api == "json" and self.session_id is not None:
            with contextlib.suppress(httpx.HTTPError):
                self.client.delete(f"/api/sessions/{self.session_id}")
            self.session_id = None

    def close(self) -> None:
        """Delete the open JSON-API session and close the HTTP client if this source made it."""
        self._close_session()
        if self._own_client:
            self.client.close()
