"""``shopsim eval``: run an agent over goals through any page source, in parallel, resumably.

Each worker process builds its own shop, page source (and browser) and runs a slice of the goals.
Every step goes to ``traces.jsonl``; every finished episode to ``episodes.jsonl`` as soon as it ends
(which makes a run resumable: goals already there are skipped, even after a crash; what resuming
drops and reruns is reported on stderr and in ``summary.json``'s ``"resume"``); at the end
``episodes.jsonl`` is rewritten in goal order (so equal runs give equal files), ``summary.json``
holds the metrics with bootstrap intervals (``agents.metrics``) and ``report.html`` shows them.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from contextlib import ExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, TextIO

from pydantic import BaseModel

from shopsim.adapters.env import ShopEnv
from shopsim.agents.base import PolicyFailure
from shopsim.agents.evaluate import EpisodeResult, Summary, agent_counts, counts_since, sum_counts
from shopsim.agents.metrics import compute_metrics
from shopsim.agents.replay_goals import ReplayGoals
from shopsim.simsite.shop import Shop, ShopConfig

if TYPE_CHECKING:
    from shopsim.simsite.server import ServerThread

__all__ = ["ADAPTERS", "EvalConfig", "run_eval", "start_server"]

ADAPTERS = ("inprocess", "http", "browser", "replay")


class EvalConfig(BaseModel):
    """Everything an evaluation run depends on (saved as ``config.json`` in the run folder)."""

    agent: str = "rule"
    adapter: Literal["inprocess", "http", "browser", "replay"] = "inprocess"
    browser_mode: Literal["url", "click"] = "click"
    data: str | None = None
    num_products: int | None = None
    human_goals: bool = False
    goals: list[int]
    workers: int = 1
    seed: int = 0
    out: str
    max_steps: int = 15
    strict: bool = False
    base_url: str | None = None
    browser_path: str | None = None
    screenshots: bool = False
    agent_options: dict[str, str] = {}
    bundle: str | None = None
    goal_file: str | None = None
    bundle_map: str | None = None
    profile: str = "webshop"
    task_mode: Literal["standard", "persona"] | None = None
    engine: str | None = None


def start_server(shop: Shop) -> ServerThread:
    """Serve ``shop`` on 127.0.0.1 for the duration of a ``with`` block (uvicorn is imported only here)."""
    from shopsim.simsite.server import serve_shop

    return serve_shop(shop)


def _shop(cfg: EvalConfig) -> Any:
    from shopsim.simsite.profiles import open_shop

    return open_shop(ShopConfig(data_dir=cfg.data, num_products=cfg.num_products, human_goals=cfg.human_goals,
                                seed=cfg.seed, profile=cfg.profile, extra={"engine": cfg.engine} if cfg.engine else {}))


def _source(cfg: EvalConfig, stack: ExitStack) -> Any:
    from shopsim.adapters.sources import BrowserSource, HttpSource

    if cfg.adapter == "inprocess":
        return None
    assert cfg.base_url is not None
    if cfg.adapter == "http":
        return stack.enter_context(HttpSource(cfg.base_url, strict=cfg.strict, max_steps=None))
    return stack.enter_context(BrowserSource(cfg.base_url, mode=cfg.browser_mode, executable_path=cfg.browser_path))


class _Sink(Protocol):
    """Where a worker hands each finished episode (a list, or a manager queue across processes)."""

    def put(self, item: dict[str, Any]) -> None: ...


def _worker(cfg_json: str, goals: list[int], part: int, sink: _Sink | None = None) -> list[dict[str, Any]]:
    """Run ``goals`` in this process; append steps to this part's trace file; hand off episodes."""
    from shopsim.agents.registry import make_agent

    cfg = EvalConfig.model_validate_json(cfg_json)
    replay = ReplayGoals.for_run(cfg)
    # Only the in-process adapter scores purchases here; remote sources are scored by the server.
    shop = _shop(cfg) if cfg.adapter == "inprocess" else None
    if shop is not None and len(goals) > 50:
        shop.prime_nouns()
    out = Path(cfg.out)
    done: list[dict[str, Any]] = []
    with ExitStack() as stack:
        source = None if replay else _source(cfg, stack)
        v8 = cfg.profile == "shopsim-v8"
        env = ShopEnv(shop, strict=cfg.strict, source=source, max_steps=cfg.max_steps if v8 else None,
                      task_mode=cfg.task_mode if v8 else None)
        agent = make_agent(cfg.agent, cfg.seed, cfg.agent_options)
        traces = stack.enter_context(open(out / f"traces.part{part}.jsonl", "a", encoding="utf-8"))
        for g in goals:
            bundle: dict[str, Any] = {}  # replay: which bundle this episode used, on every record
            if replay is not None:
                source = replay.source(g)
                env = ShopEnv(None, source=source)
                bundle = {"bundle": replay.ref(g).model_dump()}
            agent.reset(seed=cfg.seed + g)
            spent_before = agent_counts(agent)
            obs, info = env.reset(seed=cfg.seed, options={"goal": g})
            reward, steps, finished, truncated, actions = 0.0, 0, False, False, []
            visited: list[str] = []
            while not finished and steps < cfg.max_steps:
                state = info["page_state"]
                try:
                    action = agent.act(obs, info["valid_actions"], info)
                except PolicyFailure as failure:  # the runtime ends the episode (generation_length)
                    obs, reward, terminated, truncated, info = env.terminate(failure.code)
                    finished = True
                    break
                obs_next, reward, terminated, truncated, info_next = env.step(action)
                new_state = info_next["page_state"]
                if new_state.product is not None and new_state.product.id not in visited:
                    visited.append(new_state.product.id)
                traces.write(json.dumps({
                    "goal_index": g, "step": steps, "observation": obs, "valid_actions": info["valid_actions"],
                    "action": action, "reward": reward, "page_type": state.page_type, "url": state.url,
                    "next_page_type": new_state.page_type, "feedback": new_state.feedback.code, **bundle,
                    **({"termination": info_next.get("termination"),
                        "environment_version": info_next.get("environment_version")} if v8 else {}),
                }) + "\n")
                actions.append(action)
                obs, info = obs_next, info_next
                steps += 1
                finished = terminated or truncated
                if cfg.screenshots and source is not None and hasattr(source, "screenshot"):
                    source.screenshot(out / "screenshots" / f"{g}-{steps}.png")
            result = EpisodeResult(goal_index=g, reward=reward, steps=steps, done=finished, truncated=truncated,
                                   reward_info=info.get("reward_info"), actions=actions)
            result.termination = info.get("termination")
            result.environment_version = info.get("environment_version")
            # WebShop runs keep their record shape (resumable across versions); v8 records the ending.
            rec = {**result.model_dump(exclude=None if v8 else {"termination", "environment_version"}),
                   "unique_items": len(visited),
                   "searches": sum(a.lower().startswith("search[") for a in actions), **bundle}
            spent = counts_since(agent, spent_before)
            if spent is not None:  # an LLM agent's tokens, protocol errors, repairs, fallbacks, retries
                rec["agent_stats"] = spent
            traces.flush()
            done.append(rec)
            if sink is not None:
                sink.put(rec)
    return done


class _Progress:
    """A one-line progress bar on stderr (episodes done / total, rate, ETA); silent off a TTY."""

    def __init__(self, total: int, enabled: bool, stream: TextIO | None = None):
        self.stream = stream if stream is not None else sys.stderr
        self.total, self.done = total, 0
        self.enabled = enabled and total > 0 and bool(getattr(self.stream, "isatty", lambda: False)())
        self.t0 = self.last = time.monotonic()

    def update(self, n: int = 1) -> None:
        self.done += n
        now = time.monotonic()
        if self.enabled and (now - self.last >= 0.1 or self.done >= self.total):
            self.last = now
            rate = self.done / max(now - self.t0, 1e-9)
            eta = (self.total - self.done) / rate if rate > 0 else 0.0
            filled = int(30 * self.done / self.total)
            bar = "#" * filled + "." * (30 - filled)
            self.stream.write(f"\r  eval [{bar}] {self.done}/{self.total}  {rate:.1f} ep/s  ETA {eta:.0f}s ")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()


def _lines(path: Path) -> Iterator[tuple[bytes, bool]]:
    """The lines of ``path``, each with whether it is the file's unterminated last line (a torn write)."""
    data = path.read_bytes()
    lines = data.splitlines()
    for i, line in enumerate(lines):
        yield line, i == len(lines) - 1 and not data.endswith((b"\n", b"\r"))


def _record(line: bytes, keys: tuple[str, ...]) -> dict[str, Any] | None:
    """``line`` as a JSON object whose ``keys`` are integers, else None (the line is dropped)."""
    try:
        rec = json.loads(line.decode("utf-8"))
    except ValueError:  # UnicodeDecodeError included
        return None
    if not isinstance(rec, dict):
        return None
    if not all(isinstance(rec.get(k), int) and not isinstance(rec.get(k), bool) for k in keys):
        return None
    return rec


def _read_episodes(path: Path, dropped: Counter[str] | None = None) -> dict[int, dict[str, Any]]:
    """Finished episodes by goal (the last record of a goal wins).

    Every other line is dropped and counted in ``dropped``: ``truncated`` (the unterminated last
    line a killed run leaves), ``garbage`` (anything else that is not an episode record, blank
    lines included) and ``duplicate`` (an earlier record of a goal recorded again).
    """
    dropped = Counter() if dropped is None else dropped
    finished: dict[int, dict[str, Any]] = {}
    if path.exists():
        for line, torn in _lines(path):
            rec = _record(line, ("goal_index",))
            if rec is None:
                dropped["truncated" if torn and line.strip() else "garbage"] += 1
                continue
            if rec["goal_index"] in finished:
                dropped["duplicate"] += 1
            finished[rec["goal_index"]] = rec
    return finished


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def _run_todo(cfg: EvalConfig, todo: list[int], ep_file: TextIO, finished: dict[int, dict[str, Any]],
              bar: _Progress) -> None:
    """Run ``todo`` in one or more processes, writing each episode as it finishes."""
    def take(rec: dict[str, Any]) -> None:
        ep_file.write(json.dumps(rec) + "\n")
        ep_file.flush()
        finished[rec["goal_index"]] = rec
        bar.update()

    workers = max(1, min(cfg.workers, len(todo)))
    slices = [todo[i::workers] for i in range(workers)]
    if workers == 1:
        class _Direct:
            def put(self, item: dict[str, Any]) -> None:
                take(item)

        _worker(cfg.model_dump_json(), slices[0], 0, _Direct())
        return
    import multiprocessing as mp
    import queue

    # Spawn, not fork: the parent may hold a server thread and a Playwright browser that a forked
    # child would inherit half-alive.
    ctx = mp.get_context("spawn")
    with ctx.Manager() as manager, ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        q = manager.Queue()
        pending = {pool.submit(_worker, cfg.model_dump_json(), s, i, q) for i, s in enumerate(slices)}

        def drain() -> None:
            while True:
                try:
                    take(q.get_nowait())
                except queue.Empty:
                    return

        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            drain()
            for fut in done:
                fut.result()  # a worker's error ends the run; finished episodes are kept
        drain()


def _resume_note(out: Path, resume: dict[str, Any]) -> str:
    """One line that says what resuming ``out`` kept, dropped and reruns."""
    def counts(what: dict[str, int]) -> str:
        return ", ".join(f"{n} {reason}" for reason, n in what.items() if n) or "none"

    rerun = f" ({resume['episodes_rerun']} interrupted, rerun from the start)" if resume["episodes_rerun"] else ""
    return (f"shopsim eval: resuming {out}: {resume['episodes_done']} episodes already done, "
            f"{resume['episodes_run_now']} to run now{rerun}; dropped episodes.jsonl lines: "
            f"{counts(resume['episode_lines_dropped'])}; dropped trace lines: {counts(resume['trace_lines_dropped'])}")


def run_eval(cfg: EvalConfig, progress: bool = True) -> tuple[Summary, dict[str, Any]]:
    """Run (or resume) an evaluation and write its files; returns the summary and extra figures.

    Resuming a run folder keeps its finished episodes and drops what a killed or damaged run left
    behind (torn or garbage lines, duplicates, steps of unfinished episodes). What was dropped and
    what runs now goes to ``extra["resume"]`` and ``summary.json``'s ``"resume"`` and, with
    ``progress``, one line on stderr: repairs are never silent.
    """
    from shopsim.agents.report import write_report

    out = Path(cfg.out)
    replay = ReplayGoals.for_run(cfg)
    if replay is not None:  # every goal has its bundle before anything is written or run
        replay.check(cfg.goals)
    episodes_path = out / "episodes.jsonl"
    resuming = episodes_path.exists() or any(out.glob("traces*.jsonl"))
    episode_drops: Counter[str] = Counter()
    trace_drops: Counter[str] = Counter()
    unfinished: set[int] = set()
    finished = _read_episodes(episodes_path, episode_drops)
    if replay is not None:
        replay.check_resume(out, finished, cfg.goals)
    (out / "screenshots").mkdir(parents=True, exist_ok=True)
    if episodes_path.exists():  # normalise: a torn last line must not swallow the next record
        _write_atomic(episodes_path, "".join(json.dumps(finished[g]) + "\n" for g in sorted(finished)))
    # Drop steps of episodes a killed run left unfinished (they are rerun from the start).
    _merge_traces(out, keep=set(finished), dropped=trace_drops, unfinished=unfinished, always=resuming)
    todo = [g for g in dict.fromkeys(cfg.goals) if g not in finished]
    resume: dict[str, Any] | None = None
    if resuming:
        resume = {
            "episodes_done": len(dict.fromkeys(cfg.goals)) - len(todo), "episodes_run_now": len(todo),
            "episodes_rerun": len(unfinished.intersection(todo)),
            "episode_lines_dropped": {k: episode_drops[k] for k in ("truncated", "garbage", "duplicate")},
            "trace_lines_dropped": {k: trace_drops[k] for k in ("truncated", "garbage", "unfinished", "duplicate")},
        }
        if progress:
            print(_resume_note(out, resume), file=sys.stderr, flush=True)
    (out / "config.json").write_text(cfg.model_dump_json(indent=2))
    t0 = time.perf_counter()
    bar = _Progress(len(todo), progress)
    try:
        with ExitStack() as stack:
            if todo and cfg.adapter in ("http", "browser") and cfg.base_url is None:
                served = _shop(cfg)
                if len(todo) > 50:
                    served.prime_nouns()
                server = stack.enter_context(start_server(served))
                cfg = cfg.model_copy(update={"base_url": server.base_url})
            if todo:
                with open(episodes_path, "a", encoding="utf-8") as ep_file:
                    _run_todo(cfg, todo, ep_file, finished, bar)
    finally:
        bar.close()
    elapsed = time.perf_counter() - t0
    _merge_traces(out, keep=set(finished), dropped=trace_drops)
    _write_atomic(episodes_path, "".join(json.dumps(finished[g]) + "\n" for g in sorted(finished)))
    records = [finished[g] for g in dict.fromkeys(cfg.goals) if g in finished]
    metrics = compute_metrics(records)
    summary = Summary(**{k: getattr(metrics, k) for k in Summary.model_fields})
    head = metrics.headline()
    extra = {
        "unique_items": metrics.unique_items, "searches_per_episode": metrics.searches_per_episode,
        "ci": head["ci"], "failures": head["failures"], "primary_failures": head["primary_failures"],
        "seconds": elapsed, "episodes_run_now": len(todo), "adapter": cfg.adapter, "agent": cfg.agent,
    }
    if cfg.profile != "webshop":
        versions = sorted({str(r["environment_version"]) for r in records if r.get("environment_version")})
        extra.update(profile=cfg.profile, environment_version=versions[0] if len(versions) == 1 else versions,
                     terminations=metrics.terminations)
    spend = sum_counts(records)
    if spend is not None:
        extra["agent_stats"] = spend
    if replay is not None:
        extra["bundles"] = replay.summary([g for g in dict.fromkeys(cfg.goals) if g in finished])
    if resume is not None:  # with anything the final merge dropped (nothing, unless a worker misbehaved)
        resume["trace_lines_dropped"] = {k: trace_drops[k] for k in resume["trace_lines_dropped"]}
        extra["resume"] = resume
    _write_atomic(out / "summary.json", json.dumps({**head, **extra}, indent=2))
    extra["report"] = str(write_report(out))
    return summary, extra


def _merge_traces(out: Path, keep: set[int] | None = None, dropped: Counter[str] | None = None,
                  unfinished: set[int] | None = None, always: bool = False) -> None:
    """Fold per-worker trace parts into ``traces.jsonl`` (sorted by goal and step, deterministic).

    With ``keep``, steps of other goals (episodes a killed run never finished) are dropped and their
    goals added to ``unfinished``. Every dropped line is counted in ``dropped``: ``truncated``,
    ``garbage``, ``unfinished`` or ``duplicate`` (a goal's step seen twice). Without parts the files
    are only read when ``always`` (to check a resumed run's ``traces.jsonl``).
    """
    dropped = Counter() if dropped is None else dropped
    parts = sorted(out.glob("traces.part*.jsonl"))
    if not parts and not (always and (out / "traces.jsonl").exists()):
        return
    rows = []
    for part in [out / "traces.jsonl", *parts]:
        if part.exists():
            for line, torn in _lines(part):
                row = _record(line, ("goal_index", "step"))
                if row is None:
                    dropped["truncated" if torn and line.strip() else "garbage"] += 1
                elif keep is not None and row["goal_index"] not in keep:
                    dropped["unfinished"] += 1
                    if unfinished is not None:
                        unfinished.add(row["goal_index"])
                else:
                    rows.append(row)
    rows.sort(key=lambda r: (r["goal_index"], r["step"]))
    seen, unique = set(), []
    for r in rows:
        key = (r["goal_index"], r["step"])
        if key in seen:
            dropped["duplicate"] += 1
        else:
            seen.add(key)
            unique.append(r)
    _write_atomic(out / "traces.jsonl", "".join(json.dumps(r) + "\n" for r in unique))
    for part in parts:
        part.unlink()
