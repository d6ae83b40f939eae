"""``shopsim eval --executor ray``: episodes in Ray actors, written by the driver like the local executor.

Each actor builds one :class:`~shopsim.agents.evaluation.worker.EpisodePlayer` (shop, page source,
browser, agent) when it starts and plays goals one at a time; an episode's record, its trace lines
and any files it made (screenshots, Playwright trace zips) travel back to the driver, which writes
them where the local executor's workers write them. So ``episodes.jsonl``, ``traces.jsonl`` and
``summary.json`` are the same, resuming works the same way, and actors on other machines need no
shared run folder. What they do need: shopsim and Ray of the same versions, and the data, bundles
and goal files at the same paths (a path that is relative resolves from the driver's working
directory, which each actor enters when its machine has it). With ``--adapter http|browser`` and
no ``--url`` each actor serves its own shop on its own 127.0.0.1, since the driver's may be out of
reach.

An actor that dies (killed, out of memory, its node lost) costs only its unfinished episodes: they
go back in the queue for another actor, a fresh actor takes its place, and a goal whose actor dies
:data:`MAX_ATTEMPTS` times ends the run with one clear error (finished episodes kept; rerunning
resumes). An error inside an episode ends the run as it does locally. Ray is imported only when
this executor runs: the core never needs it.
"""

from __future__ import annotations

import contextlib
import io
import logging
import os
import shutil
import sys
import tempfile
from collections import Counter, deque
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from shopsim.adapters.ray_local import join, start_local
from shopsim.agents.evaluation.config import EvalConfig, run_shop
from shopsim.agents.evaluation.worker import TRACE_DIR, EpisodePlayer
from shopsim.errors import ConfigError, SourceError

__all__ = ["INSTALL_HINT", "MAX_ATTEMPTS", "RayExecutor", "RayStats", "require_ray", "run_todo_ray"]

INSTALL_HINT = "pip install shopsim[ray]"
#: Times a goal may lose its actor before the run stops.
MAX_ATTEMPTS = 3
#: Goals queued on each actor at once, so an actor never waits for the driver between episodes.
IN_FLIGHT = 2
#: Seconds to let actors close their browsers at the end before they are killed.
CLOSE_TIMEOUT_S = 30


def require_ray() -> Any:
    """The ``ray`` module, or a :class:`ConfigError` that says how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigError(f"--executor ray needs Ray, which is not installed: {INSTALL_HINT}") from exc
    return ray


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class EpisodeActor:
    """A Ray actor's body (wrapped with ``ray.remote`` by the driver): one player, many episodes.

    It works in a temporary folder of its own; files an episode leaves there are sent back with
    the record and removed. Errors are returned, not raised, so the driver sees the cause itself.
    """

    def __init__(self, cfg_json: str, part: int, n_goals: int, cwd: str):
        with contextlib.suppress(OSError):  # relative paths resolve as they do for the driver
            os.chdir(cwd)
        self.work: Path | None = None
        self.stack = ExitStack()
        self.player: EpisodePlayer | None = None
        self.error: BaseException | None = None
        try:
            cfg = EvalConfig.model_validate_json(cfg_json)
            if cfg.screenshots or (cfg.trace != "off" and cfg.adapter == "browser"):  # episodes make files
                self.work = _work_dir()
                cfg = cfg.model_copy(update={"out": str(self.work)})
            if cfg.adapter in ("http", "browser") and cfg.base_url is None:
                from shopsim.simsite.perturb import parse_perturb
                from shopsim.simsite.server import serve_shop

                served = run_shop(cfg)
                if n_goals > 50:
                    served.prime_nouns()
                server = self.stack.enter_context(serve_shop(served, skin=cfg.skin, perturb=parse_perturb(cfg.perturb, cfg.seed)))
                cfg = cfg.model_copy(update={"base_url": server.base_url})
            self.player = self.stack.enter_context(EpisodePlayer(cfg, part, n_goals))
        except Exception as exc:  # reported by the first play(), where the driver reads it
            self.error = _portable(exc)
            self.close()

    def play(self, goal: int) -> tuple[str, Any, str, dict[str, bytes]]:
        """``("episode", record, trace lines, files)`` or ``("error", exception, "", files)``."""
        if self.error is not None or self.player is None:
            return "error", self.error, "", {}
        lines = io.StringIO()
        try:
            rec = self.player.play(goal, lines)
        except Exception as exc:
            return "error", _portable(exc), "", self._files()
        return "episode", rec, lines.getvalue(), self._files()

    def _files(self) -> dict[str, bytes]:
        """Files the episode left (screenshots and pages, kept trace zips), relative to the run folder."""
        if self.work is None:
            return {}
        found = [p for p in (self.work / "screenshots").iterdir() if p.is_file()]
        found += [p for p in (self.work / TRACE_DIR).glob("goal-*.zip") if p.is_file()]
        out = {}
        for path in found:
            out[path.relative_to(self.work).as_posix()] = path.read_bytes()
            path.unlink()
        return out

    def close(self) -> None:
        """Close the page source, browser and server; remove the temporary folder."""
        try:
            self.stack.close()
        finally:
            if self.work is not None:
                shutil.rmtree(self.work, ignore_errors=True)


def _work_dir() -> Path:
    """A temporary run folder for this actor; folders of actors that died (killed, never closed) go first."""
    tmp = Path(tempfile.gettempdir())
    for old in tmp.glob("shopsim-ray-*-*"):
        pid = old.name.split("-")[2]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(old, ignore_errors=True)
    work = Path(tempfile.mkdtemp(prefix=f"shopsim-ray-{os.getpid()}-"))
    (work / "screenshots").mkdir()
    (work / TRACE_DIR).mkdir()
    return work


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # someone else's process: alive
        return True
    return True


def _portable(exc: BaseException) -> BaseException:
    """``exc`` if it survives pickling, else a :class:`SourceError` that names it."""
    import pickle

    try:
        pickle.loads(pickle.dumps(exc))
        return exc
    except Exception:
        return SourceError(f"{type(exc).__name__}: {exc}")


@dataclass
class RayStats:
    """What a Ray run did besides its episodes (``summary.json``'s ``"ray"``)."""

    address: str | None
    actors: int
    episode_retries: int = 0
    actors_replaced: int = 0


def connect(cfg: EvalConfig) -> bool:
    """Join ``cfg.address``'s cluster, or start a local one sized by ``cfg.workers``; True if we started
    (or joined) it here, and so must shut it down. A Ray already initialised in this process is used as is.
    """
    ray = require_ray()
    if ray.is_initialized():
        return False
    try:
        if cfg.address:
            join(ray, cfg.address, logging_level=logging.ERROR)
        else:
            start_local(ray, max(1, cfg.workers), logging_level=logging.ERROR)  # 127.0.0.1 only, no dashboard
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as exc:
        where = f"the Ray cluster at {cfg.address}" if cfg.address else "a local Ray cluster"
        raise ConfigError(f"--executor ray: cannot start or reach {where}: {_first_line(exc)}") from exc
    return True


class RayExecutor:
    """Runs a run's goals on ``cfg.workers`` Ray actors; :meth:`run` hands each record to ``take``.

    ``actors`` holds the live actor handles while :meth:`run` runs (a test may ``ray.kill`` one).
    """

    def __init__(self, cfg: EvalConfig, *, max_attempts: int = MAX_ATTEMPTS):
        self.cfg, self.max_attempts = cfg, max_attempts
        self.actors: list[Any] = []
        self.stats = RayStats(address=cfg.address, actors=0)

    def run(self, todo: list[int], take: Callable[[dict[str, Any]], None]) -> RayStats:
        """Play ``todo``; trace lines go to ``traces.part0.jsonl`` before ``take`` gets the record."""
        if not todo:
            return self.stats
        ray = require_ray()
        started = connect(self.cfg)
        try:
            self._run(ray, todo, take)
        finally:
            self._stop(ray)
            if started:
                ray.shutdown()
        return self.stats

    def _new_actor(self, ray: Any, part: int, n_goals: int) -> Any:
        remote = ray.remote(EpisodeActor).options(num_cpus=1, max_restarts=0)
        return remote.remote(self.cfg.model_dump_json(), part, n_goals, os.getcwd())

    def _run(self, ray: Any, todo: list[int], take: Callable[[dict[str, Any]], None]) -> None:
        from ray.exceptions import RayActorError, RayTaskError

        cfg, out = self.cfg, Path(self.cfg.out)
        workers = max(1, min(cfg.workers, len(todo)))
        per_actor = -(-len(todo) // workers)
        cpus = ray.cluster_resources().get("CPU", 0)
        if cpus < workers:  # an actor reserves one CPU: the rest wait for one (or for the cluster to grow)
            print(f"shopsim eval: warning: the Ray cluster has {cpus:g} CPUs for {workers} actors of one CPU each; "
                  "actors beyond that wait until CPUs free up", file=sys.stderr)
        self.actors = [self._new_actor(ray, i, per_actor) for i in range(workers)]
        self.stats.actors = workers
        generation = [0] * workers
        load = [0] * workers
        pending, attempts = deque(todo), Counter[int]()
        flying: dict[Any, tuple[int, int, int]] = {}  # ref -> (slot, actor generation, goal)
        with open(out / "traces.part0.jsonl", "a", encoding="utf-8") as traces:
            while pending or flying:
                for slot in range(workers):
                    while pending and load[slot] < IN_FLIGHT:
                        g = pending.popleft()
                        flying[self.actors[slot].play.remote(g)] = (slot, generation[slot], g)
                        load[slot] += 1
                (ref,), _ = ray.wait(list(flying), num_returns=1)
                slot, gen, g = flying.pop(ref)
                load[slot] -= 1
                try:
                    kind, payload, lines, files = ray.get(ref)
                except RayActorError as exc:  # the actor died: the goal goes to another one
                    attempts[g] += 1
                    if attempts[g] >= self.max_attempts:
                        raise SourceError(f"goal {g}: the Ray actor playing it died, {attempts[g]} of "
                                          f"{self.max_attempts} attempts (last: {_first_line(exc)}); finished "
                                          f"episodes are kept in {out}; run the same command again to resume") from exc
                    pending.appendleft(g)
                    self.stats.episode_retries += 1
                    if gen == generation[slot]:  # replace it once, whatever else it was running
                        with contextlib.suppress(Exception):
                            ray.kill(self.actors[slot])
                        self.actors[slot] = self._new_actor(ray, slot, per_actor)
                        generation[slot] += 1
                        self.stats.actors_replaced += 1
                    continue
                except RayTaskError as exc:
                    raise SourceError(f"goal {g} on Ray actor {slot}: {_first_line(exc.cause)}") from exc
                for rel, data in files.items():
                    path = out / rel
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(data)
                if kind == "error":  # as the local executor does: the worker's own exception ends the run
                    raise payload if isinstance(payload, BaseException) else SourceError(f"goal {g}: {payload}")
                traces.write(lines)
                traces.flush()
                take(payload)

    def _stop(self, ray: Any) -> None:
        """Let the actors close their browsers and servers, then kill them (any way out of :meth:`run`)."""
        actors, self.actors = self.actors, []
        if actors:
            with contextlib.suppress(Exception):  # a dead actor's close fails: nothing to close
                closing = [a.close.remote() for a in actors]
                ray.wait(closing, num_returns=len(closing), timeout=CLOSE_TIMEOUT_S)
        for actor in actors:
            with contextlib.suppress(Exception):
                ray.kill(actor)


def run_todo_ray(cfg: EvalConfig, todo: list[int], take: Callable[[dict[str, Any]], None]) -> RayStats:
    """:func:`shopsim.agents.evaluation.worker.run_todo`'s counterpart on Ray actors."""
    return RayExecutor(cfg).run(todo, take)
