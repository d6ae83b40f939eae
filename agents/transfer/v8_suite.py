"""The v8 real-page transfer suite: a v8 agent on real Chinese shop pages, beside its sim score.

Tasks live in ``fixtures/transfer/tasks_v8.json``: our own requests and targets over pages of
``../shared/fixtures/real/`` named by file (never copied; each checked against the SHA-256 it was
written for). A task starts on a results page (any search shows it; a product opens from its card,
or from its item page when the task names one) or on an item page. Episodes run in
:class:`~shopsim.agents.transfer.v8_session.RealV8Session` and score with v8's reward on the
product's facts as the page shows them (title, attributes, options, price vs the task's goal).

A task runs only where its pages read as it needs: a page that is absent, changed, or not read
yet (another page type, the target or an option missing, its recorded solution not succeeding)
is skipped with the reason, so the suite reports what today's translators can carry.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from shopsim.agents.transfer.bundle_episode import ScriptedAgent
from shopsim.agents.transfer.suite import SuiteNumbers, TaskResult, read_task_file, sim_numbers
from shopsim.agents.transfer.v8_session import RealV8Session, Start, card_product, v8_product
from shopsim.errors import ConfigError
from shopsim.page import PageState
from shopsim.simsite.v8.records import V8Product, V8Task

__all__ = ["Prepared", "V8SuiteReport", "V8TaskResult", "V8TaskSpec", "default_v8_tasks_file", "load_v8_tasks",
           "prepare_task", "run_v8_suite", "run_v8_task"]

TASKS_NAME = Path("fixtures") / "transfer" / "tasks_v8.json"


class V8PageSpec(BaseModel):
    """One saved page: its file under the real-pages folder, its SHA-256 and the URL it was loaded from."""

    model_config = ConfigDict(extra="forbid")

    file: str
    sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    url: str | None = None


class V8Goal(BaseModel):
    """The private target, in v8's task fields (the agent sees ``instruction`` only)."""

    model_config = ConfigDict(extra="forbid")

    instruction: str = Field(min_length=1)
    attributes: list[str] = Field(default_factory=list)
    options: dict[str, str] = Field(default_factory=dict)
    price_upper: float | None = None


class V8TaskSpec(BaseModel):
    """One task: the pages (the first is where it starts; later ones are item pages of its results)."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    shop: str
    start: Start
    pages: list[V8PageSpec] = Field(min_length=1)
    target: str = Field(min_length=1)
    """The product the task was written for (its id as the page uses it): v8's gold product."""
    goal: V8Goal
    solution: list[str] = Field(min_length=1)
    """Actions that reach ``r_success`` 1: proof the task can be done on the pages as read."""


class _TaskFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["shopsim-transfer-tasks-v8"]
    version: Literal[1]
    tasks: list[V8TaskSpec] = Field(min_length=1)


class V8TaskResult(TaskResult):
    """One task's episode with its v8 reward detail, or why it did not run."""

    detail: dict[str, Any] | None = None
    skipped: str | None = None


class V8SuiteReport(SuiteNumbers):
    """The suite's numbers for one agent (over the tasks that ran), beside its v8 sim numbers."""

    tasks: list[V8TaskResult]
    skipped: list[V8TaskResult] = Field(default_factory=list)


def default_v8_tasks_file() -> Path:
    """``fixtures/transfer/tasks_v8.json`` under the working directory, else in this source checkout."""
    here = Path.cwd() / TASKS_NAME
    return here if here.is_file() else Path(__file__).resolve().parents[2] / TASKS_NAME


def load_v8_tasks(path: str | Path | None = None) -> list[V8TaskSpec]:
    """The v8 task definitions (ConfigError in one line when missing or malformed)."""
    return read_task_file(Path(path) if path is not None else default_v8_tasks_file(), _TaskFile)


@dataclass(frozen=True)
class Prepared:
    """A task whose pages read as it needs: the start page, item pages by id, the task and its gold."""

    spec: V8TaskSpec
    start_page: PageState
    items: dict[str, PageState]
    task: V8Task
    gold: V8Product

    def session(self, max_actions: int = 30) -> RealV8Session:
        """A fresh episode of this task."""
        return RealV8Session(self.start_page, self.items, self.task, self.gold, start=self.spec.start,
                             max_actions=max_actions)


def _read(real: Path, page: V8PageSpec) -> PageState | str:
    """The translated page, or why it cannot be used."""
    from shopsim.translators.documents import decode_html
    from shopsim.translators.registry import translate_html

    path = real / page.file
    try:
        data = path.read_bytes()
    except OSError as exc:
        return f"page {page.file} is absent ({exc.strerror or exc})"
    if hashlib.sha256(data).hexdigest() != page.sha256:
        return f"page {page.file} is not the page the task was written for (SHA-256 differs)"
    return translate_html(decode_html(data), page.url)


def _shown(spec: V8TaskSpec, start: PageState, items: dict[str, PageState]) -> PageState | None:
    """The target's product page: the start page, its recorded item page, else its results card."""
    if spec.start == "product":
        return start if start.product is not None and start.product.id == spec.target else None
    return items.get(spec.target) or card_product(start, spec.target)


def _unmet(spec: V8TaskSpec, start: PageState, shown: PageState | None) -> str | None:
    """Why the pages as read cannot carry the task (a page type, the target or an option missing)."""
    want = "results" if spec.start == "search" else "item"
    if start.page_type != want:
        return f"{spec.pages[0].file} reads as {start.page_type}, not {want}: {start.reason or 'not read yet'}"
    if shown is None or shown.product is None:
        return f"target {spec.target} is not on the page as read today"
    for axis, value in spec.goal.options.items():
        if value not in shown.product.options.get(axis, []):
            return f"the page as read shows no option {axis}={value}"
    return None


def prepare_task(spec: V8TaskSpec, real: str | Path) -> Prepared | str:
    """The task ready to play, or the reason it is skipped (absent, changed or not yet read pages)."""
    states = [_read(Path(real), page) for page in spec.pages]
    problem = next((s for s in states if isinstance(s, str)), None)
    if problem is not None:
        return problem
    pages = [s for s in states if isinstance(s, PageState)]
    start, items = pages[0], {p.product.id: p for p in pages[1:] if p.product is not None}
    shown = _shown(spec, start, items)
    why = _unmet(spec, start, shown)
    if why is not None:
        return why
    assert shown is not None  # _unmet says why when it is
    task = V8Task(task_id=0, asin=spec.target, instruction=spec.goal.instruction,
                  attributes=list(spec.goal.attributes), options=list(spec.goal.options.items()),
                  price_upper=spec.goal.price_upper)
    ready = Prepared(spec=spec, start_page=start, items=items, task=task, gold=v8_product(shown))
    proof = run_v8_task(ready, ScriptedAgent(spec.solution), max_steps=len(spec.solution))
    if not proof.success:
        return f"its solution does not succeed on the pages as read today ({_components(proof.detail)})"
    return ready


def _components(detail: dict[str, Any] | None) -> str:
    if detail is None:
        return "no purchase"
    d = detail
    return (f"r_type {d['r_type']:g}, r_att {d['m_att']}/{d['n_att']}, r_option {d['m_opt']}/{d['n_opt']}, "
            f"r_price {d['r_price']:g}: {d['price_reason'] or 'no budget'}")


def run_v8_task(ready: Prepared, agent: Any, *, max_steps: int = 15) -> V8TaskResult:
    """Play one prepared task with ``agent`` (``act(observation, valid_actions, info)``) and score it."""
    spec = ready.spec
    session = ready.session()
    if hasattr(agent, "reset"):
        agent.reset(seed=0)
    actions: list[str] = []
    while not session.done and session.actions < max_steps:
        info = session.info(spec.goal.instruction)
        action = agent.act(session.observation(), info["valid_actions"], info)
        actions.append(action)
        session.step(action)
    detail = session.detail.model_dump(mode="json") if session.detail is not None else None
    return V8TaskResult(task=spec.id, shop=spec.shop, start=spec.start, target=spec.target,
                        reward=round(session.reward, 4), success=bool(detail and detail["r_success"] == 1.0),
                        purchased_id=session.bought, steps=session.actions, actions=actions, detail=detail)


def run_v8_suite(agent_name: str, real: str | Path, work: str | Path | None = None, *,
                 tasks: list[V8TaskSpec] | None = None, seed: int = 0, max_steps: int = 15, sim_goals: int = 100,
                 action_model: str = "sim", agent_options: dict[str, Any] | None = None,
                 sim_data: str | Path | None = None) -> V8SuiteReport:
    """Run ``agent_name`` on every task whose pages read as it needs, and on ``sim_goals`` v8 sim tasks.

    ``work`` is unused (v8 tasks need no bundles) and ``action_model`` must be the default: a v8
    page has one action model, its own.
    """
    from shopsim.agents.registry import make_agent

    if action_model != "sim":
        raise ConfigError("the v8 transfer suite runs v8's own action model: drop --action-model")
    if not Path(real).is_dir():
        raise ConfigError(f"the transfer suite reads real pages from {real}, which is not a folder "
                          "(give --real DIR: ../shared/fixtures/real in the project's layout)")

    def make() -> Any:
        return make_agent(agent_name, seed, agent_options)

    ran: list[V8TaskResult] = []
    skipped: list[V8TaskResult] = []
    for spec in tasks if tasks is not None else load_v8_tasks():
        ready = prepare_task(spec, real)
        if isinstance(ready, str):
            skipped.append(V8TaskResult(task=spec.id, shop=spec.shop, start=spec.start, target=spec.target, reward=0.0,
                                        success=False, purchased_id=None, steps=0, actions=[], skipped=ready))
        else:
            ran.append(run_v8_task(ready, make(), max_steps=max_steps))
    n = len(ran)
    report = V8SuiteReport(agent=agent_name, action_model="v8", tasks=ran, skipped=skipped,
                           real_score=round(100 * sum(r.reward for r in ran) / n, 1) if n else None,
                           real_success=round(100 * sum(r.success for r in ran) / n, 1) if n else None)
    if sim_goals > 0:
        score, success = sim_numbers(make, sim_goals, seed=seed, max_steps=max_steps, data=sim_data,
                                     profile="shopsim-v8")
        report.sim_score, report.sim_success, report.sim_goals = round(score, 1), round(success, 1), sim_goals
        report.sim_data = None if sim_data is None else str(sim_data)
    return report
