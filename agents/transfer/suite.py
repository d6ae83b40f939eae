"""The real-page transfer suite: how much of an agent's sim score survives on real shop pages.

Tasks are defined in ``fixtures/transfer/tasks.json`` (our own goals; the pages are named, never
copied): each names real pages from ``../shared/fixtures/real/`` and a goal in WebShop's format. The
pages are assembled into replay bundles at run time (:func:`build_suite`), each page checked against
the SHA-256 the task was written for. A task either starts on the search page, where any search shows
the recorded results page and its card leads to the recorded item page (``start: search``), or starts
on a real item page (``start: page``) where the shared set has no results page that links to it.
Agents see the parity view (:mod:`shopsim.translators.parity`), the same page kinds and actions as in
the sim; :func:`run_suite` scores them with WebShop's reward and puts the same agent's sim numbers
beside them.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal, Protocol, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from shopsim.adapters.bundle import BundleWriter
from shopsim.errors import ConfigError, first_problem
from shopsim.simsite.models import Goal
from shopsim.translators.parity import ActionModel

__all__ = ["PageSpec", "SuiteNumbers", "SuiteReport", "TaskResult", "TaskSpec", "build_suite", "default_tasks_file",
           "load_tasks", "read_task_file", "run_suite"]

#: The task file in a source checkout (``fixtures/`` is not installed with the package).
TASKS_NAME = Path("fixtures") / "transfer" / "tasks.json"


class PageSpec(BaseModel):
    """One real page of a task: a file under the real-pages folder and how the session reached it."""

    model_config = ConfigDict(extra="forbid")

    file: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    url: str | None = None
    """Where the page was loaded (default: the URL the page gives itself, else for an Amazon or eBay
    results page the site's search URL of the task's query)."""
    card: str | None = None
    """Reached by clicking this result on the previous page (the URL is the one that click resolves to)."""


class TaskSpec(BaseModel):
    """One transfer task: pages from one shop and the goal an agent shops for on them."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    site: Literal["amazon", "ebay", "other"]
    shop: str
    start: Literal["search", "page"]
    query: str | None = None
    pages: list[PageSpec] = Field(min_length=1)
    goal: Goal
    solution: list[str] = Field(min_length=1)
    """Actions that satisfy the goal (r_success 1): proof the task can be done on these pages."""


class TaskFile(BaseModel):
    """``tasks.json``: format marker and the tasks."""

    model_config = ConfigDict(extra="forbid")

    format: Literal["shopsim-transfer-tasks"]
    version: Literal[1]
    tasks: list[TaskSpec] = Field(min_length=1)


class TaskResult(BaseModel):
    """One task's episode."""

    task: str
    shop: str
    start: str
    reward: float
    success: bool
    purchased_id: str | None
    target: str
    steps: int
    actions: list[str]


class SuiteNumbers(BaseModel):
    """An agent's real-page numbers beside the same agent's on the sim (any profile's suite)."""

    agent: str
    action_model: str
    real_score: float | None
    """Mean reward (percent) over the tasks that ran; None when none could run."""
    real_success: float | None
    sim_score: float | None = None
    sim_success: float | None = None
    sim_goals: int = 0
    sim_data: str | None = None

    @property
    def gap(self) -> float | None:
        """Sim score minus real score (points): what transfer loses."""
        if self.sim_score is None or self.real_score is None:
            return None
        return round(self.sim_score - self.real_score, 1)


class SuiteReport(SuiteNumbers):
    """The suite's numbers for one agent, beside the same agent's on the sim."""

    tasks: list[TaskResult]


def default_tasks_file() -> Path:
    """``fixtures/transfer/tasks.json`` under the working directory, else in this source checkout."""
    here = Path.cwd() / TASKS_NAME
    if here.is_file():
        return here
    return Path(__file__).resolve().parents[1] / TASKS_NAME


def load_tasks(path: str | Path | None = None) -> list[TaskSpec]:
    """The task definitions (ConfigError in one line when missing or malformed)."""
    return read_task_file(Path(path) if path is not None else default_tasks_file(), TaskFile)


def read_task_file(path: Path, model: type[BaseModel]) -> list[Any]:
    """The ``tasks`` of a task file validated as ``model`` (a format marker, a version and ``tasks``
    with unique ``id``s): any profile's suite reads its file here, with one-line ConfigErrors.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read the transfer tasks {path}: {exc.strerror or exc} "
                          "(run from a shopsim checkout, or give --tasks FILE)") from exc
    try:
        doc = model.model_validate_json(text)
    except ValidationError as exc:
        where, message = first_problem(exc)
        raise ConfigError(f"{path}: {where or '(top level)'}: {message}") from exc
    tasks = list(doc.tasks)  # type: ignore[attr-defined]
    ids = [t.id for t in tasks]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"{path}: task ids repeat")
    return tasks


class _SearchUrl(Protocol):
    def search_url(self, query: str, page: int = 1) -> str: ...


def _read_page(real: Path, spec: PageSpec, task: str) -> bytes:
    path = real / spec.file
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"task {task}: cannot read {path}: {exc.strerror or exc}") from exc
    if hashlib.sha256(data).hexdigest() != spec.sha256:
        raise ConfigError(f"task {task}: {path} is not the page the task was written for (SHA-256 differs)")
    return data


def build_task(spec: TaskSpec, real: Path, out: Path) -> Path:
    """Assemble one task's pages into a replay bundle at ``out / spec.id``."""
    from shopsim.translators.documents import decode_html
    from shopsim.translators.registry import translator_for

    translator = translator_for(spec.site)
    folder = out / spec.id
    writer: BundleWriter | None = None
    previous = None
    url: str | None
    action: str | None
    for i, page in enumerate(spec.pages):
        data = _read_page(real, page, spec.id)
        html = decode_html(data)  # as every translator's parse does with bytes
        if page.card is not None:
            if previous is None:
                raise ConfigError(f"task {spec.id}: page {i} is reached from a card, but there is no page before it")
            nav = translator.resolve(previous, f"click[{page.card}]")
            if nav.url is None:
                raise ConfigError(f"task {spec.id}: card {page.card!r} is not on {spec.pages[i - 1].file}")
            url, action = nav.url, f"click[{page.card.lower()}]"
        else:
            state = translator.parse(html, page.url)
            url = page.url or state.url
            if not url and state.page_type == "results" and spec.query and spec.site != "other":
                # amazon and ebay (not 'other') are MarketTranslators, which have search_url
                url = cast(_SearchUrl, translator).search_url(spec.query, 1)
            action = None if i == 0 else f"goto[{url}]"
            if not url:
                raise ConfigError(f"task {spec.id}: {page.file} gives no URL of its own: set its url")
        if writer is None:
            writer = BundleWriter(folder, site=spec.site, start_url=url, instruction=spec.goal.instruction_text,
                                  recorder="shopsim transfer-suite (assembled from saved pages)", goal=spec.goal)
        writer.add_page(action, url, data)
        previous = translator.parse(html, url)
    assert writer is not None
    return writer.finish()


def build_suite(real: str | Path, out: str | Path, tasks: list[TaskSpec] | None = None) -> list[tuple[TaskSpec, Path]]:
    """Every task's bundle under ``out`` (a new folder), from the real pages under ``real``."""
    real = Path(real)
    if not real.is_dir():
        raise ConfigError(f"the transfer suite reads real pages from {real}, which is not a folder "
                          "(give --real DIR: ../shared/fixtures/real in the project's layout)")
    tasks = tasks if tasks is not None else load_tasks()
    out = Path(out)
    return [(spec, build_task(spec, real, out)) for spec in tasks]


def run_task(spec: TaskSpec, bundle: Path, agent: Any, *, max_steps: int = 15,
             action_model: ActionModel = "sim") -> TaskResult:
    """Play one task with ``agent`` and score the purchase against the task's goal."""
    from shopsim.agents.transfer.bundle_episode import run_transfer

    res = run_transfer(bundle, spec.goal, agent, max_steps=max_steps, action_model=action_model,
                       start=spec.start, any_search=spec.start == "search", card_pages=spec.start == "search")
    return TaskResult(task=spec.id, shop=spec.shop, start=spec.start, reward=round(res.reward, 4),
                      success=res.r_success == 1.0, purchased_id=res.purchased_id, target=spec.goal.asin,
                      steps=res.steps, actions=res.actions)


def sim_numbers(make: Callable[[], Any], goals: int, *, seed: int = 0, max_steps: int = 15,
                data: str | Path | None = None, profile: str = "webshop") -> tuple[float, float]:
    """The agent's score and success rate (percent) on the first ``goals`` goals (tasks) of the
    ``profile``'s sim catalog ``data`` (default: the profile's bundled one).
    """
    from shopsim.adapters.env import ShopEnv
    from shopsim.agents.episode import run_episode
    from shopsim.agents.reports.metrics import summarize
    from shopsim.simsite.profiles import open_shop
    from shopsim.simsite.shop import ShopConfig

    shop = open_shop(ShopConfig(data_dir=data, seed=seed, profile=profile))
    env = ShopEnv(shop)
    agent = make()
    results = [run_episode(env, agent, g, seed=seed, max_steps=max_steps) for g in range(min(goals, len(shop.goals)))]
    summary = summarize(results)
    return summary.score, 100 * summary.success_rate


def run_suite(agent_name: str, real: str | Path, work: str | Path, *, tasks: list[TaskSpec] | None = None,
              seed: int = 0, max_steps: int = 15, sim_goals: int = 100, action_model: ActionModel = "sim",
              agent_options: dict[str, Any] | None = None, sim_data: str | Path | None = None) -> SuiteReport:
    """Build the suite under ``work``, run ``agent_name`` on every task and on ``sim_goals`` sim goals."""
    from shopsim.agents.registry import make_agent

    def make() -> Any:
        return make_agent(agent_name, seed, agent_options)

    built = build_suite(real, work, tasks)
    rows = [run_task(spec, bundle, make(), max_steps=max_steps, action_model=action_model) for spec, bundle in built]
    n = len(rows)
    report = SuiteReport(agent=agent_name, action_model=action_model, tasks=rows,
                         real_score=round(100 * sum(r.reward for r in rows) / n, 1),
                         real_success=round(100 * sum(r.success for r in rows) / n, 1))
    if sim_goals > 0:
        score, success = sim_numbers(make, sim_goals, seed=seed, max_steps=max_steps, data=sim_data)
        report.sim_score, report.sim_success, report.sim_goals = round(score, 1), round(success, 1), sim_goals
        report.sim_data = None if sim_data is None else str(sim_data)
    return report
