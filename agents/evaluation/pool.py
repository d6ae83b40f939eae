"""``shopsim eval``'s local executor: goals played in this process, or in worker processes it watches.

A built-in agent with one worker and no ``--agent-timeout`` plays in this process (the fastest way:
the shop is shared). Otherwise (two or more workers, a timeout, or an agent that is not built in:
``module:Class`` or an entry point, code we do not know) every worker is a spawned process, timed
from outside: only a process can be stopped in ``while True: pass`` or survive ``os._exit``. When
one ``act`` or one episode overruns its limit, or the process ends in the middle of an episode, the
parent kills it, records that episode as the agent's failure (``agent_failure``: kind and reason,
reward 0) and starts a fresh process for the rest of its goals, on a new trace part (the dead
one's last line may be torn). Each worker clocks its episodes and ``act`` calls in memory it
shares with the parent (``worker.Clock``: no message per step) and sends its records over a pipe
of its own, so a killed one cannot corrupt or lock what the others send. Any other worker error ends the run with one
``ShopsimError`` line (never a worker's traceback); on any way out every worker is killed, so an
aborted run leaves no browser behind.
"""

from __future__ import annotations

import contextlib
import pickle
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

from shopsim.agents.episode import AgentFailure, EpisodeResult
from shopsim.agents.evaluation.config import EvalConfig, forget_shop
from shopsim.agents.evaluation.worker import Clock, Slice, episode_record, play_slice
from shopsim.agents.redact import Scrubber
from shopsim.errors import ShopsimError, SourceError
from shopsim.simsite.profiles import get_profile

__all__ = ["isolated", "run_todo"]

Take = Callable[[dict[str, Any]], None]


def isolated(cfg: EvalConfig, workers: int) -> bool:
    """Whether the run's episodes are played in watched worker processes (see the module's docstring)."""
    from shopsim.agents.registry import AGENTS

    timed = cfg.step_timeout is not None or cfg.episode_timeout is not None
    return workers > 1 or timed or cfg.agent not in AGENTS


def run_todo(cfg: EvalConfig, todo: list[int], take: Take) -> None:
    """Run ``todo``; ``take`` gets each episode record as it finishes (the agent's failures included).

    A worker's own error ends the run (raised here as a ``ShopsimError``, finished episodes kept);
    any way out of here (error, Ctrl-C, SIGTERM turned into an exception) kills the workers first.
    """
    workers = max(1, min(cfg.workers, len(todo)))
    slices = [todo[i::workers] for i in range(workers)]
    if not isolated(cfg, workers):
        class _Direct:
            def put(self, item: Any) -> None:
                take(item[1])

        play_slice(Slice(cfg.model_dump_json(), slices[0], 0), _Direct())
        return
    _Pool(cfg, take).run(slices)


class _PipeSink:
    """A worker process's end of its pipe to the parent."""

    def __init__(self, conn: Connection):
        self.conn = conn

    def put(self, item: Any) -> None:
        self.conn.send(item)


def _sendable(part: int, exc: BaseException) -> Exception:
    """``exc`` as the parent can raise it: ours as they are, anything else as one ``SourceError`` line."""
    if isinstance(exc, ShopsimError):
        with contextlib.suppress(Exception):
            pickle.dumps(exc)
            return exc
    return SourceError(f"worker {part}: {type(exc).__name__}: {exc}")


def _child(work: Slice, conn: Connection, shared: Any) -> None:
    """A worker process: its episodes (clocked), then ``done``; an error goes to the parent."""
    sink = _PipeSink(conn)
    try:
        play_slice(work, sink, Clock(shared))
        sink.put(("done",))
    except KeyboardInterrupt:  # Ctrl-C reaches the whole process group; the parent reports it
        return
    except BaseException as exc:  # everything goes to the parent, which ends the run
        with contextlib.suppress(Exception):
            sink.put(("error", _sendable(work.part, exc)))


@dataclass
class _Worker:
    """One worker process as the parent sees it: its goals not yet reported and its clock."""

    part: int
    goals: list[int]
    proc: Any
    conn: Connection
    clock: Any  # the RawArray its :class:`Clock` writes

    def in_play(self) -> int | None:
        """The goal of the episode in play (clocked and not yet reported), else None."""
        goal = int(self.clock[Clock.GOAL])
        return goal if goal in self.goals else None


class _Pool:
    """The parent's side: start, listen to, time, kill and replace worker processes."""

    def __init__(self, cfg: EvalConfig, take: Take):
        import multiprocessing as mp

        # Spawn, not fork: the parent may hold a server thread and a Playwright browser that a forked
        # child would inherit half-alive.
        self.mp = mp.get_context("spawn")
        self.cfg, self.take = cfg, take
        self.workers: dict[int, _Worker] = {}
        self.parts = 0
        self.v8 = get_profile(cfg.profile).episode_rules
        self.scrub = Scrubber.for_run(cfg.agent_options)

    def start(self, goals: list[int]) -> None:
        """A new worker process for ``goals``, on the next unused trace part."""
        part, self.parts = self.parts, self.parts + 1
        recv, send = self.mp.Pipe(duplex=False)
        clock = self.mp.RawArray("d", 4)
        clock[Clock.GOAL] = -1
        proc = self.mp.Process(target=_child, args=(Slice(self.cfg.model_dump_json(), goals, part), send, clock),
                               daemon=True)
        proc.start()
        send.close()  # the child holds the only writing end: its death reads as end of file here
        self.workers[part] = _Worker(part, list(goals), proc, recv, clock)

    def run(self, slices: list[list[int]]) -> None:
        if self.cfg.adapter == "inprocess":  # the workers load their own: the parent's copy would only hold memory
            forget_shop()
        try:
            for goals in slices:
                self.start(goals)
            while self.workers:
                ready = wait([w.conn for w in self.workers.values()], timeout=0.2)
                for w in list(self.workers.values()):
                    if w.conn in ready:
                        self.receive(w)
                    elif not w.proc.is_alive() and not w.conn.poll():
                        self.ended(w)
                self.enforce_limits()
        finally:
            for w in self.workers.values():
                w.proc.kill()
            for w in self.workers.values():
                w.proc.join(timeout=30)
                w.conn.close()

    def receive(self, w: _Worker) -> None:
        """Act on one message from ``w`` (its end of file: the process is gone)."""
        try:
            msg = w.conn.recv()
        except Exception:  # EOF, or half a message from a process that died while sending
            self.ended(w)
            return
        kind = msg[0]
        if kind == "episode":
            w.goals.remove(msg[1]["goal_index"])
            self.take(msg[1])
        elif kind == "done":
            self.retire(w)
        else:  # "error": the run ends with it
            raise msg[1]

    def enforce_limits(self) -> None:
        """Kill a worker whose agent overran ``--agent-timeout``; its episode is the agent's failure."""
        now, step_s, episode_s = time.monotonic(), self.cfg.step_timeout, self.cfg.episode_timeout
        for w in list(self.workers.values()):
            if w.in_play() is None:
                continue
            acting, started, step = w.clock[Clock.ACTING], w.clock[Clock.STARTED], int(w.clock[Clock.STEP])
            if step_s is not None and acting > 0 and now - acting > step_s:
                self.fail(w, AgentFailure("step_timeout", f"the agent's act() at step {step} ran past "
                                                          f"the {step_s:g} s step limit (--agent-timeout)"))
            elif episode_s is not None and now - started > episode_s:
                self.fail(w, AgentFailure("episode_timeout", f"the episode ran past the {episode_s:g} s "
                                                             f"episode limit at step {step} (--agent-timeout)"))

    def ended(self, w: _Worker) -> None:
        """``w``'s process is gone without ``done``: mid-episode, the agent's failure; else the run's end."""
        w.proc.join(timeout=5)
        code = w.proc.exitcode
        how = f"was killed by {signal.Signals(-code).name}" if code is not None and code < 0 else f"exited with code {code}"
        if w.in_play() is None:  # before its first episode (building the shop, the agent) or between two
            self.retire(w)
            raise SourceError(f"worker {w.part} stopped before finishing its goals (its process {how})")
        self.fail(w, AgentFailure("exit", f"the worker process {how} during the episode (the agent called "
                                          "os._exit, or crashed the interpreter)"))

    def fail(self, w: _Worker, failure: AgentFailure) -> None:
        """Kill ``w``, record its episode as ``failure`` and start a fresh worker for its other goals."""
        goal, steps = w.in_play(), int(w.clock[Clock.STEP])
        assert goal is not None
        self.retire(w)
        result = EpisodeResult(goal_index=goal, reward=0.0, steps=steps, done=False, truncated=False,
                               agent_failure=failure.record())
        self.take(self.scrub.data(episode_record(result, self.v8)))
        rest = [g for g in w.goals if g != goal]
        if rest:
            self.start(rest)

    def retire(self, w: _Worker) -> None:
        """Stop ``w`` (killed if still running) and forget it."""
        if w.proc.is_alive():
            w.proc.kill()
        w.proc.join(timeout=30)
        w.conn.close()
        del self.workers[w.part]
