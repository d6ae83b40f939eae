"""``ShopsimV8Task``: one shopsim-v8 task as a BrowserGym task, played on the v8 service's HTML view.

``setup`` opens a session (``POST /api/sessions``) for the task's index on the service of
:func:`browsergym.shopsim.server.v8_shop_url` and loads its page (``/shop/{lease}``, see
:mod:`shopsim.simsite.v8.html_view`); ``validate`` reads ``r_strict`` from ``GET /api/sessions/{lease}``;
``cheat`` walks the path v8's ``check-goals`` oracle finds (:func:`shopsim.agents.reachability_v8.check_v8_goal`),
which needs the service's shop in this process (not with ``$SHOPSIM_V8_URL``). ``teardown`` releases the lease.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpx
from browsergym.core.task import AbstractBrowserTask
from browsergym.shopsim.chromium import use_shopsim_chromium
from browsergym.shopsim.ids import goal_index, task_name
from browsergym.shopsim.server import v8_local_shop, v8_shop_url
from browsergym.shopsim.task import SLOW_MO_MS, TIMEOUT_MS

from shopsim.errors import ConfigError

if TYPE_CHECKING:
    from shopsim.agents.reachability import GoalReach

__all__ = ["ShopsimV8Task", "result_page", "walk_v8"]


def result_page(reach: GoalReach) -> int:
    """The results page (1-based) the oracle's product is listed on (v8 imported here: registering loads none)."""
    from shopsim.simsite.v8.search import PAGE_SIZE

    return (int(reach.best_rank or 1) - 1) // PAGE_SIZE + 1


class ShopsimV8Task(AbstractBrowserTask):
    """Buy what v8 task ``n`` of ``split`` asks for; the reward is the service's ``r_strict``."""

    @classmethod
    def get_task_id(cls) -> str:
        """BrowserGym's name for this task family."""
        return "shopsim.v8"

    def __init__(self, seed: int | None, split: str, goal: int) -> None:
        super().__init__(seed if seed is not None else 0)
        self.split, self.goal, self.goal_index = split, goal, goal_index(split, goal, v8=True)
        self.slow_mo, self.timeout = SLOW_MO_MS, TIMEOUT_MS
        self.base_url, self.lease_id, self.task_id = "", "", -1
        self._client: httpx.Client | None = None
        use_shopsim_chromium()

    def _get(self, path: str) -> Any:
        if self._client is None:
            raise ConfigError("call setup() before validate() or cheat()")
        r = self._client.get(path)
        if r.status_code != 200:
            raise ConfigError(f"{self.base_url}{path}: {r.json().get('error', r.text[:200])}")
        return r.json()

    def setup(self, page: Any) -> tuple[str, dict[str, Any]]:
        """Open a session for the task and load its page; the goal is the instruction the agent is shown."""
        self.base_url = v8_shop_url()
        self._client = httpx.Client(base_url=self.base_url, timeout=60)
        ids = self._get("/api/tasks")["task_ids"]
        if self.goal_index >= len(ids):
            raise ConfigError(f"task {task_name(self.split, self.goal, v8=True)}: task index {self.goal_index} is not "
                              f"served by {self.base_url}, which has {len(ids)} tasks")
        self.task_id = int(ids[self.goal_index])
        r = self._client.post("/api/sessions", json={"task_id": self.task_id})
        if r.status_code != 201:
            raise ConfigError(f"{self.base_url}: task {self.task_id}: {r.json().get('error', r.text[:200])}")
        created = r.json()
        self.lease_id = created["lease_id"]
        page.goto(f"{self.base_url}/shop/{self.lease_id}")
        info = {"lease_id": self.lease_id, "task_id": self.task_id, "goal_index": self.goal_index,
                "shop_url": self.base_url}
        return str(created["task_instruction"]), info

    def validate(self, page: Any, chat_messages: list[Any]) -> tuple[float, bool, str, dict[str, Any]]:
        """``r_strict`` and its breakdown from the JSON API: 0 until the episode ends."""
        view = self._get(f"/api/sessions/{self.lease_id}")
        info = {"termination": view["termination"], "reward_detail": view["reward_detail"]}
        return float(view["reward"]), bool(view["done"]), "", info

    def oracle(self) -> GoalReach:
        """The ``check-goals`` oracle's best purchase for this task (``best_asin`` set, else a ConfigError)."""
        from shopsim.agents.reachability_v8 import check_v8_goal

        shop = v8_local_shop()
        if shop is None:
            raise ConfigError("the oracle needs the v8 service started in this process: unset SHOPSIM_V8_URL")
        reach = check_v8_goal(shop, self.goal_index)
        if reach.best_asin is None or reach.best_rank is None:
            raise ConfigError(f"task {self.task_id}: a search of its request finds no product: no path to walk")
        return reach

    def cheat(self, page: Any, chat_messages: list[Any]) -> None:
        """Walk the ``check-goals`` oracle's best purchase in ``page``."""
        reach = self.oracle()
        walk_v8(page, reach.instruction, result_page(reach), str(reach.best_asin), reach.best_options)

    def teardown(self) -> None:
        """Release the lease (its slot goes back) and close the client."""
        if self._client is not None:
            if self.lease_id:
                self._client.delete(f"/api/sessions/{self.lease_id}")
            self._client.close()
            self._client = None


def _click(page: Any, action: str) -> None:
    """Press the button that submits ``action`` (compared as attributes: no quoting in a selector)."""
    buttons = page.locator("button[name=action]")
    for i in range(buttons.count()):
        if buttons.nth(i).get_attribute("value") == action:
            with page.expect_navigation():
                buttons.nth(i).click()
            return
    raise ConfigError(f"{page.url}: no button for {action!r}")


def walk_v8(page: Any, query: str, result_page: int, asin: str, options: dict[str, str]) -> None:
    """Search ``query``, turn to ``result_page``, open ``asin``, choose ``options``, buy."""
    page.fill("#search_input", query)
    with page.expect_navigation():
        page.click("[data-action=search]")
    for _ in range(result_page - 1):
        _click(page, "click[next >]")
    _click(page, f"click[{asin}]")
    for axis, value in options.items():
        _click(page, f"click[{axis}={value}]")
    _click(page, "click[buy now]")
