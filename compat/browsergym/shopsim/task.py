"""``ShopsimTask``: one WebShop goal as a BrowserGym task.

``setup`` opens the goal's HTML session (``/fixed_<goal>_s<seed>``) on the shop of
:mod:`browsergym.shopsim.server`; ``validate`` reads the session through the JSON API, read-only
(``GET /api/sessions/{id}``: on the done page it holds the reward and its breakdown), so no
step scrapes the page; ``cheat`` walks the oracle's path (:mod:`browsergym.shopsim.oracle`).
The session id depends on the goal and the seed only, so equal seeds give equal episodes: the same
pages, URLs and observations.
"""

from __future__ import annotations

from typing import Any

import httpx
from browsergym.core.task import AbstractBrowserTask
from browsergym.shopsim.chromium import use_shopsim_chromium
from browsergym.shopsim.ids import BENCHMARK, goal_index
from browsergym.shopsim.oracle import OraclePlan, oracle_plan, walk
from browsergym.shopsim.server import oracle_shop, shop_url

from shopsim import routes
from shopsim.errors import ConfigError

__all__ = ["ShopsimTask"]

#: Our pages are server-rendered and static once loaded: no need for BrowserGym's 1 s slow motion.
SLOW_MO_MS = 0
#: Playwright's default timeout; a first page load may wait for a cold server.
TIMEOUT_MS = 10_000


class ShopsimTask(AbstractBrowserTask):
    """Buy what goal ``n`` of ``split`` asks for; the reward is the shop's own (1.0 = a perfect purchase)."""

    @classmethod
    def get_task_id(cls) -> str:
        """BrowserGym's name for this task family."""
        return BENCHMARK

    def __init__(self, seed: int | None, split: str, goal: int) -> None:
        super().__init__(seed if seed is not None else 0)
        self.seed = seed if seed is not None else 0
        self.split, self.goal, self.goal_index = split, goal, goal_index(split, goal)
        self.slow_mo, self.timeout = SLOW_MO_MS, TIMEOUT_MS
        self.session_id = f"fixed_{self.goal_index}_s{self.seed}"
        self.base_url = ""
        self._client: httpx.Client | None = None
        use_shopsim_chromium()  # BrowserGym launches right after creating the task

    def _view(self) -> dict[str, Any]:
        """The session as ``GET /api/sessions/{id}`` shows it (read-only)."""
        if self._client is None:
            raise ConfigError("call setup() before validate() or cheat()")
        r = self._client.get(f"/api/sessions/{self.session_id}")
        if r.status_code != 200:
            raise ConfigError(f"{self.base_url}: session {self.session_id}: {r.json().get('error', r.text[:200])}")
        return dict(r.json())

    def setup(self, page: Any) -> tuple[str, dict[str, Any]]:
        """Open the goal's session in ``page``; the goal is the page's instruction."""
        self.base_url = shop_url()
        self._client = httpx.Client(base_url=self.base_url, timeout=30)
        health = self._client.get("/api/health").json()
        if self.goal_index >= health["goals"]:
            raise ConfigError(f"task {BENCHMARK}.{self.split}.{self.goal}: goal {self.goal_index} is not served "
                              f"by {self.base_url}, which has {health['goals']} goals (set SHOPSIM_DATA for more)")
        page.goto(routes.index_url(self.base_url, self.session_id))
        state = self._view()["page_state"]
        info = {"session_id": self.session_id, "goal_index": self.goal_index, "shop_url": self.base_url}
        return str(state["instruction"]), info

    def validate(self, page: Any, chat_messages: list[Any]) -> tuple[float, bool, str, dict[str, Any]]:
        """The session's reward and breakdown, read from the JSON API: 0 until the purchase, then the final reward."""
        view = self._view()
        state = view["page_state"]
        reward = float(state.get("reward") or 0.0) if view["done"] else 0.0
        info = {"page_type": state["page_type"], "reward_info": state.get("reward_info")}
        return reward, bool(view["done"]), "", info

    def oracle(self) -> OraclePlan:
        """The oracle's path for this goal (the served shop must be the one the oracle reads)."""
        plan = oracle_plan(oracle_shop(), self.goal_index)
        shown = self._view()["page_state"]["instruction"]
        if shown != plan.instruction:
            raise ConfigError(f"{self.base_url} serves another goal {self.goal_index} than the oracle's shop: "
                              "set SHOPSIM_SERVE_ARGS to the options that server was started with")
        return plan

    def cheat(self, page: Any, chat_messages: list[Any]) -> None:
        """Walk the oracle's path in ``page``: search the instruction, open the best product, pick its options, buy."""
        walk(page, self.oracle(), self.base_url, self.session_id)

    def teardown(self) -> None:
        """Close the API client; the server stays up for the next task of this process."""
        if self._client is not None:
            self._client.close()
            self._client = None
