"""What the web app keeps between requests (``app.state.sessions``): API leases and HTML sessions.

The endpoints of :mod:`shopsim.simsite.web` and :mod:`shopsim.simsite.web_api` are module-level
functions; everything they share lives here, built once by ``create_app``.
"""

from __future__ import annotations

import random
import re
import time
from collections import OrderedDict
from dataclasses import dataclass, field

from shopsim.errors import ConfigError
from shopsim.simsite.goals import SPLITS
from shopsim.simsite.json_api import ClientError
from shopsim.simsite.session import ShopSession
from shopsim.simsite.session_log import SessionLogWriter
from shopsim.simsite.shop import Shop

__all__ = ["AppState", "Lease"]

_FIXED = re.compile(r"^fixed_(\d+)(?:[_.\-].*)?$")


@dataclass
class Lease:
    """An API session and its observation mode, with when it was last used (for the idle TTL)."""

    session: ShopSession
    mode: str
    last_used: float = field(default_factory=time.monotonic)


class AppState:
    """Sessions of both kinds; the app is async-only, so no locks are needed."""

    def __init__(self, shop: Shop, ttl: float, cap: int, seed: int, *, snapshot_key: str | None = None,
                 log: SessionLogWriter | None = None):
        self.shop, self.ttl, self.cap, self.seed = shop, ttl, cap, seed
        self.snapshot_key, self.log = snapshot_key, log
        self.leases: dict[str, Lease] = {}
        self.expired: OrderedDict[str, None] = OrderedDict()
        self.html: OrderedDict[str, tuple[ShopSession, float]] = OrderedDict()

    # API leases
    def sweep(self) -> None:
        """Drop API leases idle past the TTL, remembering their ids so a late call hears 410, not 404."""
        now = time.monotonic()
        for sid in [s for s, lease in self.leases.items() if now - lease.last_used > self.ttl]:
            del self.leases[sid]
            self._mark_expired(sid)

    def _mark_expired(self, sid: str) -> None:
        self.expired[sid] = None
        while len(self.expired) > 100_000:
            self.expired.popitem(last=False)

    def lease(self, sid: str) -> Lease:
        """The live API lease ``sid``, touched; 410 for an expired one, 404 for one never opened."""
        lease = self.leases.get(sid)
        now = time.monotonic()
        if lease is not None and now - lease.last_used > self.ttl:
            del self.leases[sid]
            self._mark_expired(sid)
            lease = None
        if lease is None:
            if sid in self.expired:
                raise ClientError(410, "session_expired",
                                  f"session {sid[:80]} expired after {self.ttl:g}s idle; open a new one")
            raise ClientError(404, "unknown_session", f"unknown session {sid[:80]}")
        lease.last_used = now
        return lease

    # HTML sessions: one ShopSession per id, least recently used dropped beyond the cap
    def html_session(self, sid: str, base: str) -> ShopSession:
        """The HTML session ``sid`` (a finished or idle one starts over), least recently used dropped past the cap."""
        now = time.monotonic()
        entry = self.html.pop(sid, None)
        if entry is not None and (now - entry[1] > self.ttl or entry[0].done):
            entry = None
        session = entry[0] if entry else ShopSession(self.shop, self.shop.goal(self.goal_for(sid)), sid, base_url=base)
        self.html[sid] = (session, now)
        while len(self.html) > self.cap:
            self.html.popitem(last=False)
        return session

    def html_view(self, sid: str) -> ShopSession | None:
        """The HTML session ``sid`` as it stands, for reading only; None when none is open (or it idled out).

        Unlike :meth:`html_session` it neither starts a session nor starts a finished one over, and it
        leaves the least-recently-used order alone: a harness scoring a browser episode through the
        JSON API must see the done page's reward, and must not keep the session alive or change it.
        """
        entry = self.html.get(sid)
        if entry is None or time.monotonic() - entry[1] > self.ttl:
            return None
        return entry[0]

    def goal_for(self, sid: str) -> int:
        """The goal a session id plays: ``fixed_<n>`` or a number is goal n, any other id is drawn from its seed."""
        m = _FIXED.match(sid)
        if m:
            return int(m.group(1))
        if sid.isdigit():
            return int(sid)
        return self.shop.draw_goal_index(random.Random(f"{self.seed}:{sid}"))

    def pick_goal(self, split: str | None, goal: int | None, seed: int | None) -> int:
        """The goal an API session asks for: ``goal`` within ``split``, else one drawn with ``seed``."""
        n = len(self.shop.goals)
        lo, hi = SPLITS[split] if split else (0, n)
        hi = min(n, hi if hi is not None else n)
        if lo >= hi:
            raise ConfigError(f"split {split!r} is empty: this shop has {n} goals")
        if goal is not None:
            index = lo + goal
            if not lo <= index < hi:
                raise ConfigError(f"goal {goal} is outside split {split or 'all'} ({hi - lo} goals)")
            return index
        rng = random.Random(seed)
        return self.shop.draw_goal_index(rng) if split is None else rng.randrange(lo, hi)
