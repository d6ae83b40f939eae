"""``shopsim eval``'s workers, in this process or in spawned worker processes.

Each worker builds its own page source (and browser: one context and page for all its episodes,
cleared between them; images and stylesheets only when screenshots or traces are kept) and runs a
slice of the goals through the one episode loop (:func:`shopsim.agents.episode.run_episode`), whose
step hook writes every step to its ``traces.part<N>.jsonl``; every finished episode goes to the
parent (``agents.evaluation.pool``). With ``trace`` on, each browser episode's Playwright trace is saved as
``traces/goal-<N>.zip`` (with ``failures``, only when the episode's r_success is 0) and its path
recorded in the episode.
:class:`EpisodePlayer` is the part both
executors share: the Ray actors (``agents.evaluation.ray_executor``) play episodes with it too.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from shopsim.adapters.env import ShopEnv
from shopsim.agents.episode import EpisodeResult, Step, agent_counts, counts_since, run_episode
from shopsim.agents.evaluation.config import EvalConfig, run_shop
from shopsim.agents.redact import Scrubber
from shopsim.agents.reports.metrics import episode_row
from shopsim.agents.transfer.replay_goals import ReplayGoals
from shopsim.simsite.profiles import get_profile

__all__ = ["TRACE_DIR", "Clock", "EpisodePlayer", "Slice", "clear_part_dirs", "episode_record", "play_slice", "trace_name"]

TRACE_DIR = "traces"


def trace_name(goal: int) -> str:
    """A goal's trace zip, relative to the run folder (what ``episodes.jsonl`` records)."""
    return f"{TRACE_DIR}/goal-{goal}.zip"


class _Sink(Protocol):
    """Where a worker hands each finished episode."""

    def put(self, item: Any) -> None: ...


def _source(cfg: EvalConfig, stack: ExitStack, part: int) -> Any:
    from shopsim.adapters.browser_source import BrowserSource

    if cfg.adapter == "inprocess":
        return None
    assert cfg.base_url is not None
    if cfg.adapter == "http":  # the profile's own: v8 sessions count actions and end episodes on the server
        make = get_profile(cfg.profile).part("http_source")
        return stack.enter_context(make(cfg.base_url, strict=cfg.strict, max_steps=cfg.max_steps,
                                        task_mode=cfg.task_mode, interaction_mode=cfg.interaction_mode))
    trace: Any = Path(cfg.out) / TRACE_DIR / f".part{part}" if cfg.trace != "off" else False
    # The agent reads text: images and stylesheets only matter to a person looking at screenshots or traces.
    return stack.enter_context(BrowserSource(cfg.base_url, mode=cfg.browser_mode, executable_path=cfg.browser_path,
                                             trace=trace, assets=cfg.screenshots or cfg.trace != "off"))


def _save_trace(source: Any, out: Path, goal: int, keep: bool, scrub: Scrubber) -> str | None:
    """End the episode's trace; keep it as ``traces/goal-<N>.zip`` or delete it. Returns the kept name."""
    source.end_episode()
    made = source.last_trace
    if made is None or not Path(made).exists():
        return None
    if not keep:
        Path(made).unlink()
        return None
    name = trace_name(goal)
    os.replace(made, out / name)
    scrub.zip_file(out / name)  # the browser only saw the shop, unless the agent typed a secret
    return name


@dataclass
class _StepWriter:
    """One episode's step hook: each step's trace row, the products it opened, its screenshots."""

    goal: int
    traces: Any  # anything with ``write``
    bundle: dict[str, Any]
    v8: bool
    scrub: Scrubber
    screenshots: Path | None = None  # where the source saves each step's page, when it does
    source: Any = None
    visited: list[str] = field(default_factory=list)

    @staticmethod
    def _v8_fields(step: Step) -> dict[str, Any]:
        """A v8 step's contract facts, for the replay UI: the state the agent saw, how the step ended, its reward detail."""
        seen = step.info.get("observation_state")
        return {"observation_state": seen.model_dump(mode="json") if seen is not None else None,
                "reward_detail": step.next_info.get("reward_detail"),
                "termination": step.next_info.get("termination"),
                "environment_version": step.next_info.get("environment_version"), **_turn_counts(step)}

    def __call__(self, step: Step) -> None:
        state, new_state = step.info["page_state"], step.next_info["page_state"]
        if new_state.product is not None and new_state.product.id not in self.visited:
            self.visited.append(new_state.product.id)
        row = {
            "goal_index": self.goal, "step": step.index, "observation": step.observation,
            "valid_actions": step.info["valid_actions"], "action": step.action, "reward": step.reward,
            "page_type": state.page_type, "url": state.url, "next_page_type": new_state.page_type,
            "feedback": new_state.feedback.code, **self.bundle,
            **(self._v8_fields(step) if self.v8 else {}),
            **({"shopper_reply": step.next_info["shopper_reply"]} if step.next_info.get("shopper_reply") else {}),
        }
        self.traces.write(json.dumps(self.scrub.data(row) if self.scrub else row) + "\n")
        if self.screenshots is not None:
            shot = self.screenshots / f"{self.goal}-{step.index + 1}.png"
            self.source.screenshot(shot)
            page = shot.with_suffix(".html")  # the page's HTML beside it: scrubbed like every text file
            if self.scrub and page.exists():
                page.write_text(self.scrub.text(page.read_text(encoding="utf-8")), encoding="utf-8")


def _turn_counts(step: Step) -> dict[str, int]:
    """A v8 trace row's model turns, protocol errors and repairs (an action without the agent's own
    counters is one turn; the runtime's own ending, none).
    """
    spent = step.spent or {}
    if "turns" not in spent:
        return {"turns": 0 if step.action is None else 1, "protocol_errors": 0, "repairs": 0}
    return {k: spent.get(k, 0) for k in ("turns", "protocol_errors", "repairs")}


class EpisodePlayer:
    """One worker's shop, page source, env and agent, built once; :meth:`play` runs one goal.

    Shared by the local worker processes (:func:`_worker`) and the Ray actors
    (``agents.evaluation.ray_executor``): both play an episode the same way, so both write the same records.
    ``traces`` is anything with ``write`` (the part file here, an ``io.StringIO`` in an actor).
    """

    def __init__(self, cfg: EvalConfig, part: int, n_goals: int):
        from shopsim.agents.registry import make_agent

        self.cfg, self.part = cfg, part
        #: A watched worker's clock, shared with its parent (see :class:`Clock`); None in-process.
        self.watch: Clock | None = None
        self.scrub = Scrubber.for_run(cfg.agent_options)
        self.replay = ReplayGoals.for_run(cfg)
        # Only the in-process adapter scores purchases here; remote sources are scored by the server.
        shop = run_shop(cfg) if cfg.adapter == "inprocess" else None
        if shop is not None and n_goals > 50:
            shop.prime_nouns()
        self.tracing = cfg.trace != "off" and cfg.adapter == "browser"
        self.v8 = get_profile(cfg.profile).episode_rules  # the env keeps the contract's rules and endings
        self.stack = ExitStack()
        try:
            self.source = None if self.replay else _source(cfg, self.stack, part)
            self.env = ShopEnv(shop, strict=cfg.strict, source=self.source,
                               max_steps=cfg.max_steps if self.v8 else None,
                               task_mode=cfg.task_mode if self.v8 else None,
                               interaction_mode=cfg.interaction_mode if self.v8 else "single_turn")
            self.agent = make_agent(cfg.agent, cfg.seed, cfg.agent_options)
        except BaseException:
            self.stack.close()
            raise

    def __enter__(self) -> EpisodePlayer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the page source (and its browser)."""
        self.stack.close()

    def play(self, g: int, traces: Any) -> dict[str, Any]:
        """Play goal ``g``: its steps go to ``traces``; returns its (scrubbed) episode record."""
        cfg, out = self.cfg, Path(self.cfg.out)
        bundle: dict[str, Any] = {}  # replay: which bundle this episode used, on every record
        if self.replay is not None:
            self.source = self.replay.source(g)
            self.env = ShopEnv(None, source=self.source)
            bundle = {"bundle": self.replay.ref(g).model_dump()}
        try:
            rec = self._episode(g, traces, bundle)
        except Exception:
            if self.tracing:  # the failing episode's trace is the one worth having
                with contextlib.suppress(Exception):
                    _save_trace(self.source, out, g, True, self.scrub)
            raise
        if self.tracing:
            kept = _save_trace(self.source, out, g, cfg.trace == "all" or episode_row(rec).r_success < 1, self.scrub)
            if kept is not None:
                rec["trace"] = kept
        return self.scrub.data(rec)

    def _episode(self, g: int, traces: Any, bundle: dict[str, Any]) -> dict[str, Any]:
        """Play goal ``g`` once through the one episode loop; write its steps; return its episode record."""
        cfg = self.cfg
        shots = cfg.screenshots and self.source is not None and hasattr(self.source, "screenshot")
        writer = _StepWriter(g, traces, bundle, self.v8, self.scrub, source=self.source,
                             screenshots=Path(cfg.out) / "screenshots" if shots else None)
        spent_before = agent_counts(self.agent)
        agent: Any = self.agent if self.watch is None else _Watched(self.agent, self.watch)
        result = run_episode(self.env, agent, g, seed=cfg.seed, max_steps=cfg.max_steps, on_step=writer)
        rec = episode_record(result, self.v8, len(writer.visited), bundle)
        spent = counts_since(self.agent, spent_before)
        if spent is not None:  # an LLM agent's tokens, protocol errors, repairs, fallbacks, retries
            rec["agent_stats"] = spent
        return rec


def episode_record(result: EpisodeResult, v8: bool, unique_items: int = 0,
                   bundle: dict[str, Any] | None = None) -> dict[str, Any]:
    """An episode's ``episodes.jsonl`` record. WebShop runs keep their record shape (resumable
    across versions); v8 records the ending; ``agent_failure`` is there only when the agent failed.
    """
    drop = {"dialogue"} if v8 else {"termination", "environment_version", "turns", "dialogue"}
    if result.agent_failure is None:
        drop.add("agent_failure")
    rec = {**result.model_dump(exclude=drop), "unique_items": unique_items,
           "searches": sum(a.lower().startswith("search[") for a in result.actions), **(bundle or {})}
    if result.dialogue is not None:  # a multi-turn v8 episode: its questions, answers and count
        rec.update(asks=len(result.dialogue), dialogue=result.dialogue)
    return rec


class Clock:
    """What a watched worker is doing, in memory shared with its parent: the goal in play (-1 before
    the first), when its episode began, when the ``act`` in progress began (0: none) and the step.

    Plain stores, no message per step (a pipe round per ``act`` cost ~0.25 ms on a loaded machine);
    the parent reads it a few times a second (``agents.evaluation.pool``). ``time.monotonic`` is
    the machine's clock, the same in both processes.
    """

    GOAL, STARTED, ACTING, STEP = range(4)

    def __init__(self, shared: Any):
        self.shared = shared  # a multiprocessing RawArray("d", 4)

    def start(self, goal: int) -> None:
        """Episode ``goal`` begins."""
        self.shared[self.ACTING], self.shared[self.STEP] = 0.0, 0.0
        self.shared[self.STARTED] = time.monotonic()
        self.shared[self.GOAL] = goal  # last: a reader that sees the new goal sees its start time

    def acting(self, step: int | None) -> None:
        """``act`` number ``step`` begins (None: it returned)."""
        if step is None:
            self.shared[self.ACTING] = 0.0
            self.shared[self.STEP] += 1
        else:
            self.shared[self.ACTING] = time.monotonic()


class _Watched:
    """An agent whose every ``act`` is clocked (:class:`Clock`) for the parent, which kills the process
    when it overruns; everything else is the agent's own.
    """

    def __init__(self, agent: Any, clock: Clock):
        self._agent, self._clock, self._step = agent, clock, 0

    def reset(self, seed: int | None = None) -> None:
        self._agent.reset(seed=seed)

    def act(self, observation: Any, valid_actions: dict[str, Any], info: dict[str, Any]) -> Any:
        self._clock.acting(self._step)
        try:
            return self._agent.act(observation, valid_actions, info)
        finally:
            self._clock.acting(None)
            self._step += 1

    def __getattr__(self, name: str) -> Any:  # ``stats`` and the rest
        return getattr(self._agent, name)


@dataclass(frozen=True)
class Slice:
    """One worker's share of a run: the config (JSON, to cross into a spawned process), its goals, its part."""

    cfg_json: str
    goals: list[int]
    part: int


def play_slice(work: Slice, sink: _Sink, clock: Clock | None = None) -> None:
    """Run the slice's goals in this process; append steps to its part's trace file; hand off episodes.

    ``clock`` (a watched worker process): each episode and each ``act`` is clocked there, so the
    parent can time the agent from outside.
    """
    cfg = EvalConfig.model_validate_json(work.cfg_json)
    with EpisodePlayer(cfg, work.part, len(work.goals)) as player, \
            open(Path(cfg.out) / f"traces.part{work.part}.jsonl", "a", encoding="utf-8") as traces:
        player.watch = clock
        for g in work.goals:
            if clock is not None:
                clock.start(g)
            rec = player.play(g, traces)
            traces.flush()
            sink.put(("episode", rec))


def clear_part_dirs(out: Path) -> None:
    """Remove the per-worker trace folders (``traces/.part<N>``) a run leaves while it runs."""
    for part in (out / TRACE_DIR).glob(".part*"):
        shutil.rmtree(part, ignore_errors=True)
