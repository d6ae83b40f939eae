"""``shopsim eval``: run an agent over goals through any page source, in parallel, resumably.

Each worker process builds its own shop, page source (and browser) and runs a slice of the goals
(``agents.evaluation.worker``); with ``executor="ray"`` Ray actors play them and send every record and
step back here, to be written the same way (``agents.evaluation.ray_executor``). Every step goes to ``traces.jsonl``; every finished episode to
``episodes.jsonl`` as soon as it ends (which makes a run resumable: goals already there are
skipped, even after a crash; what resuming drops and reruns is reported on stderr and in
``summary.json``'s ``"resume"``); at the end ``episodes.jsonl`` is rewritten in goal order (so equal
runs give equal files), ``summary.json`` holds the metrics with bootstrap intervals
(``agents.reports.metrics``), the breakdown by kind of goal (``agents.reports.breakdown``), the cost
(``agents.reports.cost``) and the run's metadata (``agents.evaluation.run_meta``), and ``report.html`` shows them.

A run stopped by Ctrl-C, SIGTERM or an error still writes ``summary.json`` (``"status":
"aborted"`` and the ``"reason"``) over the episodes it finished, then re-raises; rerunning the
same command resumes it. Secrets never reach the folder (``agents.redact``).
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shopsim.agents.episode import agent_failure_counts, sum_counts
from shopsim.agents.evaluation.config import EvalConfig, forget_shop, run_shop
from shopsim.agents.evaluation.pool import run_todo
from shopsim.agents.evaluation.run_files import merge_traces, read_episodes, resume_note, write_atomic
from shopsim.agents.evaluation.run_meta import run_metadata
from shopsim.agents.evaluation.worker import TRACE_DIR, clear_part_dirs
from shopsim.agents.redact import Scrubber
from shopsim.agents.reports.breakdown import breakdown, goal_groups
from shopsim.agents.reports.cost import cost_summary
from shopsim.agents.reports.metrics import Summary, asking_split, compute_metrics
from shopsim.agents.transfer.replay_goals import ReplayGoals
from shopsim.errors import ConfigError
from shopsim.progress import Progress
from shopsim.simsite.profiles import get_profile
from shopsim.simsite.shop import Shop

if TYPE_CHECKING:
    from shopsim.simsite.server import ServerThread

__all__ = ["RunTerminated", "run_eval", "start_server"]

class RunTerminated(KeyboardInterrupt):
    """SIGTERM during a run, raised in the main thread so the run can say it was stopped."""


def start_server(shop: Shop, skin: str = "webshop", perturb: str = "none", seed: int = 0) -> ServerThread:
    """Serve ``shop`` on 127.0.0.1 in ``skin`` (perturbed by ``perturb``) for the duration of a ``with`` block
    (uvicorn is imported only here).
    """
    from shopsim.simsite.perturb import parse_perturb
    from shopsim.simsite.server import serve_shop

    return serve_shop(shop, skin=skin, perturb=parse_perturb(perturb, seed))


@contextmanager
def _sigterm_raises() -> Iterator[None]:
    """Turn SIGTERM into :class:`RunTerminated` for the block (main thread only; restored after)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise RunTerminated("SIGTERM")

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _abort_reason(exc: BaseException) -> str:
    if isinstance(exc, RunTerminated):
        return "terminated (SIGTERM)"
    if isinstance(exc, KeyboardInterrupt):
        return "interrupted (Ctrl-C)"
    return f"{type(exc).__name__}: {exc}"


def _goal_groups(cfg: EvalConfig, replay: ReplayGoals | None, goals: list[int]) -> dict[int, dict[str, str]]:
    """Each goal's groups (``agents.reports.breakdown``); the shop is loaded only when some goal needs them."""
    if not goals:
        return {}
    if replay is not None:
        return {g: goal_groups(replay.goals[g]) for g in goals}
    shop = run_shop(cfg)
    out = {}
    for g in goals:
        goal = shop.goal(g)
        product = shop.product(goal.asin) if shop.profile.goal_kind == "task" else None
        out[g] = goal_groups(goal, product, cfg.task_mode)
    return out


def run_eval(cfg: EvalConfig, progress: bool = True) -> tuple[Summary, dict[str, Any]]:
    """Run (or resume) an evaluation and write its files; returns the summary and extra figures.

    Resuming a run folder keeps its finished episodes and drops what a killed or damaged run left
    behind (torn or garbage lines, duplicates, steps of unfinished episodes). What was dropped and
    what runs now goes to ``extra["resume"]`` and ``summary.json``'s ``"resume"`` and, with
    ``progress``, one line on stderr: repairs are never silent.
    """
    _check_config(cfg)
    started = datetime.now(UTC)
    replay = ReplayGoals.for_run(cfg)
    if replay is not None:  # every goal has its bundle before anything is written or run
        replay.check(cfg.goals)
    folder = _open_folder(cfg, replay)
    if folder.resume is not None and progress:
        print(resume_note(Path(cfg.out), folder.resume), file=sys.stderr, flush=True)
    scrub = Scrubber.for_run(cfg.agent_options)
    (Path(cfg.out) / "config.json").write_text(scrub.text(cfg.saved_json()))
    meta = run_metadata(cfg, started=started, goals=replay.goals if replay is not None else None)
    bar = Progress("eval", len(folder.todo), " ep", enabled=None if progress else False)
    ctx = _Run(cfg=cfg, out=Path(cfg.out), finished=folder.finished, scrub=scrub, meta=meta, t0=time.perf_counter(),
               todo=folder.todo, replay=replay, resume=folder.resume, trace_drops=folder.trace_drops)
    try:
        with _sigterm_raises():
            _play(ctx, folder, bar)
    except BaseException as exc:
        bar.close()
        forget_shop()
        try:  # best effort: the folder must say the run stopped, but never hide why it did
            _finish(ctx, status="aborted", reason=scrub.text(_abort_reason(exc)))
        except Exception as report_error:
            print(f"shopsim eval: could not write the aborted run's summary: {report_error}", file=sys.stderr)
        raise
    bar.close()
    forget_shop()
    return _finish(ctx, status="complete")


def _check_config(cfg: EvalConfig) -> None:
    """Refuse option combinations that cannot run, before anything is written."""
    if cfg.trace != "off" and cfg.adapter != "browser":
        raise ConfigError(f"--trace {cfg.trace} records Playwright traces of a real browser: it needs "
                          f"--adapter browser (this run uses --adapter {cfg.adapter})")
    if cfg.address is not None and cfg.executor != "ray":
        raise ConfigError(f"--address {cfg.address} names a Ray cluster: it needs --executor ray")
    if cfg.executor == "ray" and (cfg.step_timeout is not None or cfg.episode_timeout is not None):
        raise ConfigError("--agent-timeout is enforced by the local executor's worker processes: "
                          "it needs --executor local")
    for name, limit in (("step", cfg.step_timeout), ("episode", cfg.episode_timeout)):
        if limit is not None and not 0 < limit < float("inf"):
            raise ConfigError(f"--agent-timeout: the {name} limit must be a positive number of seconds, not {limit}")
    if cfg.executor == "ray":  # without Ray, one line that says how to get it
        from shopsim.agents.evaluation.ray_executor import require_ray

        require_ray()


@dataclass
class _Folder:
    """A run folder made ready to play: what is finished, what is left, and what resuming repaired."""

    finished: dict[int, dict[str, Any]]
    groups: dict[int, dict[str, str]]
    todo: list[int]
    resume: dict[str, Any] | None
    trace_drops: Counter[str]


def _open_folder(cfg: EvalConfig, replay: ReplayGoals | None) -> _Folder:
    """Read (and repair) what a previous run left in ``cfg.out`` and say which goals are still to play."""
    out = Path(cfg.out)
    episodes_path = out / "episodes.jsonl"
    resuming = episodes_path.exists() or any(out.glob("traces*.jsonl"))
    episode_drops: Counter[str] = Counter()
    trace_drops: Counter[str] = Counter()
    unfinished: set[int] = set()
    finished = read_episodes(episodes_path, episode_drops)
    if replay is not None:
        replay.check_resume(out, finished, cfg.goals)
    (out / "screenshots").mkdir(parents=True, exist_ok=True)
    if cfg.trace != "off":
        (out / TRACE_DIR).mkdir(exist_ok=True)
    groups = _goal_groups(cfg, replay, [g for g in dict.fromkeys(cfg.goals)
                                        if "goal_groups" not in finished.get(g, {})])
    for g, rec in finished.items():
        if "goal_groups" not in rec and g in groups:
            rec["goal_groups"] = groups[g]
    if episodes_path.exists():  # normalise: a torn last line must not swallow the next record
        write_atomic(episodes_path, "".join(json.dumps(finished[g]) + "\n" for g in sorted(finished)))
    # Drop steps of episodes a killed run left unfinished (they are rerun from the start).
    merge_traces(out, keep=set(finished), dropped=trace_drops, unfinished=unfinished, always=resuming)
    todo = [g for g in dict.fromkeys(cfg.goals) if g not in finished]
    resume: dict[str, Any] | None = None
    if resuming:
        resume = {
            "episodes_done": len(dict.fromkeys(cfg.goals)) - len(todo), "episodes_run_now": len(todo),
            "episodes_rerun": len(unfinished.intersection(todo)),
            "episode_lines_dropped": {k: episode_drops[k] for k in ("truncated", "garbage", "duplicate")},
            "trace_lines_dropped": {k: trace_drops[k] for k in ("truncated", "garbage", "unfinished", "duplicate")},
        }
    return _Folder(finished=finished, groups=groups, todo=todo, resume=resume, trace_drops=trace_drops)


def _play(ctx: _Run, folder: _Folder, bar: Progress) -> None:
    """Play the goals left to do, appending each finished episode's record as it arrives."""
    if not folder.todo:
        return
    cfg = ctx.cfg
    with ExitStack() as stack:
        # Ray actors serve their own shop: the driver's 127.0.0.1 may be out of their reach.
        if cfg.adapter in ("http", "browser") and cfg.base_url is None and cfg.executor == "local":
            served = run_shop(cfg)
            if len(folder.todo) > 50:
                served.prime_nouns()
            server = stack.enter_context(start_server(served, cfg.skin, cfg.perturb, cfg.seed))
            cfg = cfg.model_copy(update={"base_url": server.base_url})
        ep_file = stack.enter_context(open(ctx.out / "episodes.jsonl", "a", encoding="utf-8"))

        def take(rec: dict[str, Any]) -> None:
            g = rec["goal_index"]
            if g in folder.groups:
                rec["goal_groups"] = folder.groups[g]
            ep_file.write(json.dumps(rec) + "\n")
            ep_file.flush()
            folder.finished[g] = rec
            bar.update()

        if cfg.executor == "ray":
            from shopsim.agents.evaluation.ray_executor import run_todo_ray

            ctx.ray = asdict(run_todo_ray(cfg, folder.todo, take))
        else:
            run_todo(cfg, folder.todo, take)


@dataclass
class _Run:
    """What writing a run's summary needs (at the end, or when it is aborted)."""

    cfg: EvalConfig
    out: Path
    finished: dict[int, dict[str, Any]]
    scrub: Scrubber
    meta: dict[str, Any]
    t0: float
    todo: list[int]
    replay: ReplayGoals | None
    resume: dict[str, Any] | None
    trace_drops: Counter[str]
    #: The Ray executor's figures (address, actors, retries), when it ran.
    ray: dict[str, Any] | None = None


def _finish(ctx: _Run, *, status: str, reason: str | None = None) -> tuple[Summary, dict[str, Any]]:
    """Fold traces, rewrite episodes in goal order, write ``summary.json`` and ``report.html``."""
    from shopsim.agents.reports.report import write_report

    cfg, out, finished, scrub, trace_drops = ctx.cfg, ctx.out, ctx.finished, ctx.scrub, ctx.trace_drops
    elapsed = time.perf_counter() - ctx.t0
    # A complete run keeps the steps of finished episodes; an aborted one keeps every step (the
    # viewer shows the unfinished episode's; resuming drops them and says so).
    merge_traces(out, keep=set(finished) if status == "complete" else None, dropped=trace_drops)
    clear_part_dirs(out)
    write_atomic(out / "episodes.jsonl", "".join(json.dumps(finished[g]) + "\n" for g in sorted(finished)))
    goals = list(dict.fromkeys(cfg.goals))
    records = [finished[g] for g in goals if g in finished]
    metrics = compute_metrics(records)
    summary = metrics.summary()
    head = metrics.headline()
    extra: dict[str, Any] = {
        "status": status, **({"reason": reason, "episodes_missing": len(goals) - len(records)} if reason else {}),
        "unique_items": metrics.unique_items, "searches_per_episode": metrics.searches_per_episode,
        "ci": head["ci"], "failures": head["failures"], "primary_failures": head["primary_failures"],
        "seconds": elapsed, "episodes_run_now": len(ctx.todo), "adapter": cfg.adapter, "agent": cfg.agent,
        "executor": cfg.executor,
    }
    if ctx.ray is not None:
        extra["ray"] = ctx.ray
    if get_profile(cfg.profile).episode_rules:
        versions = sorted({str(r["environment_version"]) for r in records if r.get("environment_version")})
        turns = [int(r["turns"]) for r in records if r.get("turns") is not None]
        extra.update(profile=cfg.profile, environment_version=versions[0] if len(versions) == 1 else versions,
                     terminations=metrics.terminations,
                     turns={"total": sum(turns), "per_episode": sum(turns) / len(turns) if turns else 0.0})
    extra["breakdown"] = {axis: {g: s.model_dump() for g, s in groups.items()}
                          for axis, groups in breakdown(records).items()}
    asking = asking_split(records)
    if asking is not None:  # a multi-turn run: reward with and without asking the shopper
        extra["asking"] = asking
    failed = agent_failure_counts(r.get("agent_failure") for r in records)
    if failed is not None:  # episodes the agent itself failed (raised, exited, bad action, timed out)
        extra["agent_failures"] = failed
    spend = sum_counts(records)
    if spend is not None:
        extra["agent_stats"] = spend
    cost = cost_summary(records, cfg.price_per_1k_tokens)
    if cost is not None:
        extra["cost"] = cost.model_dump()
    if cfg.trace != "off":
        kept = [r["trace"] for r in records if r.get("trace")]
        extra["traces"] = {"mode": cfg.trace, "folder": TRACE_DIR, "kept": len(kept),
                           "example": kept[0] if kept else None}
    replay = ctx.replay
    if replay is not None:
        extra["bundles"] = replay.summary([g for g in goals if g in finished])
    resume = ctx.resume
    if resume is not None:  # with anything the final merge dropped (nothing, unless a worker misbehaved)
        resume["trace_lines_dropped"] = {k: trace_drops[k] for k in resume["trace_lines_dropped"]}
        extra["resume"] = resume
    extra["run"] = ctx.meta
    extra = scrub.data(extra)
    write_atomic(out / "summary.json", json.dumps({**head, **extra}, indent=2))
    extra["report"] = str(write_report(out))
    return summary, extra
