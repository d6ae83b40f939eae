"""``shopsim eval``: run an agent over goals through any page source, in parallel, resumably.

Each worker process builds its own shop, page source (and browser) and runs a slice of the goals.
Every step goes to ``traces.jsonl``; every finished episode to ``episodes.jsonl`` (which makes a
run resumable: goals already there are skipped); ``summary.json`` holds the metrics.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import AbstractContextManager, ExitStack
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel

from shopsim.adapters.env import ShopEnv
from shopsim.agents.evaluate import EpisodeResult, Summary, summarize
from shopsim.errors import ConfigError
from shopsim.simsite.shop import Shop, ShopConfig

__all__ = ["ADAPTERS", "EvalConfig", "run_eval", "start_server"]

ADAPTERS = ("inprocess", "http", "browser")


class EvalConfig(BaseModel):
    """Everything an evaluation run depends on (saved as ``config.json`` in the run folder)."""

    agent: str = "rule"
    adapter: Literal["inprocess", "http", "browser"] = "inprocess"
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


class _Server(AbstractContextManager):
    """A uvicorn server for a shop on a free loopback port, in a daemon thread."""

    def __init__(self, shop: Shop):
        import uvicorn

        from shopsim.simsite.web import create_app

        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        cfg = uvicorn.Config(create_app(shop, max_sessions=10_000), host="127.0.0.1", port=self.port,
                             log_level="warning", lifespan="off")
        self.server = uvicorn.Server(cfg)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> _Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise ConfigError("the shop server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def start_server(shop: Shop) -> _Server:
    """Serve ``shop`` on 127.0.0.1 for the duration of a ``with`` block."""
    return _Server(shop)


def _shop(cfg: EvalConfig) -> Shop:
    return Shop.from_config(ShopConfig(data_dir=cfg.data, num_products=cfg.num_products,
                                       human_goals=cfg.human_goals, seed=cfg.seed))


def _source(cfg: EvalConfig, stack: ExitStack) -> Any:
    from shopsim.adapters.sources import BrowserSource, HttpSource

    if cfg.adapter == "inprocess":
        return None
    assert cfg.base_url is not None
    if cfg.adapter == "http":
        return stack.enter_context(HttpSource(cfg.base_url, strict=cfg.strict, max_steps=None))
    return stack.enter_context(BrowserSource(cfg.base_url, mode=cfg.browser_mode, executable_path=cfg.browser_path))


def _worker(cfg_json: str, goals: list[int], part: int) -> list[dict[str, Any]]:
    """Run ``goals`` in this process; append steps to this part's trace file."""
    from shopsim.agents.registry import make_agent

    cfg = EvalConfig.model_validate_json(cfg_json)
    shop = _shop(cfg)
    if len(goals) > 50:
        shop.prime_nouns()
    out = Path(cfg.out)
    done: list[dict[str, Any]] = []
    with ExitStack() as stack:
        source = _source(cfg, stack)
        env = ShopEnv(shop, strict=cfg.strict, source=source)
        agent = make_agent(cfg.agent, cfg.seed)
        traces = stack.enter_context(open(out / f"traces.part{part}.jsonl", "a", encoding="utf-8"))
        for g in goals:
            agent.reset(seed=cfg.seed + g)
            obs, info = env.reset(seed=cfg.seed, options={"goal": g})
            reward, steps, finished, truncated, actions = 0.0, 0, False, False, []
            visited: list[str] = []
            while not finished and steps < cfg.max_steps:
                action = agent.act(obs, info["valid_actions"], info)
                state = info["page_state"]
                obs_next, reward, terminated, truncated, info_next = env.step(action)
                new_state = info_next["page_state"]
                if new_state.product is not None and new_state.product.id not in visited:
                    visited.append(new_state.product.id)
                traces.write(json.dumps({
                    "goal_index": g, "step": steps, "observation": obs, "valid_actions": info["valid_actions"],
                    "action": action, "reward": reward, "page_type": state.page_type, "url": state.url,
                    "next_page_type": new_state.page_type, "feedback": new_state.feedback.code,
                }) + "\n")
                actions.append(action)
                obs, info = obs_next, info_next
                steps += 1
                finished = terminated or truncated
                if cfg.screenshots and source is not None and hasattr(source, "screenshot"):
                    source.screenshot(out / "screenshots" / f"{g}-{steps}.png")
            result = EpisodeResult(goal_index=g, reward=reward, steps=steps, done=finished, truncated=truncated,
                                   reward_info=info.get("reward_info"), actions=actions)
            rec = {**result.model_dump(), "unique_items": len(visited),
                   "searches": sum(a.lower().startswith("search[") for a in actions)}
            traces.flush()
            done.append(rec)
    return done


def run_eval(cfg: EvalConfig, progress: bool = True) -> tuple[Summary, dict[str, Any]]:
    """Run (or resume) an evaluation and write its files; returns the summary and extra figures."""
    out = Path(cfg.out)
    (out / "screenshots").mkdir(parents=True, exist_ok=True)
    episodes_path = out / "episodes.jsonl"
    finished: dict[int, dict[str, Any]] = {}
    if episodes_path.exists():
        for line in episodes_path.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                finished[rec["goal_index"]] = rec
    todo = [g for g in cfg.goals if g not in finished]
    (out / "config.json").write_text(cfg.model_dump_json(indent=2))
    t0 = time.perf_counter()
    with ExitStack() as stack:
        if cfg.adapter != "inprocess" and cfg.base_url is None:
            server = stack.enter_context(start_server(_shop(cfg)))
            cfg = cfg.model_copy(update={"base_url": server.base_url})
        workers = max(1, min(cfg.workers, len(todo))) if todo else 1
        slices = [todo[i::workers] for i in range(workers)]
        with open(episodes_path, "a", encoding="utf-8") as ep_file:
            if workers == 1:
                results = _worker(cfg.model_dump_json(), slices[0], 0) if todo else []
                for rec in results:
                    ep_file.write(json.dumps(rec) + "\n")
                    finished[rec["goal_index"]] = rec
            else:
                with ProcessPoolExecutor(max_workers=workers) as pool:
                    futures = [pool.submit(_worker, cfg.model_dump_json(), s, i) for i, s in enumerate(slices)]
                    for n, fut in enumerate(as_completed(futures), 1):
                        for rec in fut.result():
                            ep_file.write(json.dumps(rec) + "\n")
                            finished[rec["goal_index"]] = rec
                        if progress:
                            print(f"  worker {n}/{workers} done", file=sys.stderr)
    elapsed = time.perf_counter() - t0
    _merge_traces(out)
    records = [finished[g] for g in cfg.goals if g in finished]
    summary = summarize([EpisodeResult(**{k: r[k] for k in EpisodeResult.model_fields}) for r in records])
    extra = {
        "unique_items": sum(r["unique_items"] for r in records) / max(1, len(records)),
        "searches_per_episode": sum(r["searches"] for r in records) / max(1, len(records)),
        "seconds": elapsed, "episodes_run_now": len(todo), "adapter": cfg.adapter, "agent": cfg.agent,
    }
    (out / "summary.json").write_text(json.dumps({**summary.model_dump(), **extra}, indent=2))
    return summary, extra


def _merge_traces(out: Path) -> None:
    """Fold per-worker trace parts into ``traces.jsonl`` (sorted by goal and step, deterministic)."""
    rows = []
    for part in sorted(out.glob("traces*.jsonl")):
        rows += [json.loads(line) for line in part.read_text().splitlines() if line.strip()]
    rows.sort(key=lambda r: (r["goal_index"], r["step"]))
    seen, unique = set(), []
    for r in rows:
        key = (r["goal_index"], r["step"])
        if key not in seen:
            seen.add(key)
            unique.append(r)
    tmp = out / "traces.jsonl.tmp"
    tmp.write_text("".join(json.dumps(r) + "\n" for r in unique))
    for part in out.glob("traces.part*.jsonl"):
        part.unlink()
    os.replace(tmp, out / "traces.jsonl")
