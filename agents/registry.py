"""Agents by name, for the command line and the evaluation runner.

An agent is named three ways: a registered name (``rule``, ``heuristic``, ``llm``, ...; add one with
:func:`register_agent`), an entry point in the ``shopsim.agents`` group of an installed package, or
``module:attribute`` (a class or a factory). Options given as strings (``--agent-option``) are
converted to the types the agent's constructor declares (:mod:`shopsim.agents.options`).
"""

from __future__ import annotations

import importlib
import inspect
import multiprocessing as mp
from collections.abc import Callable
from dataclasses import dataclass
from importlib.metadata import entry_points
from multiprocessing.connection import Connection
from typing import Any

from shopsim.agents.base import Agent
from shopsim.agents.options import convert_options
from shopsim.errors import ConfigError, ShopsimError, did_you_mean

__all__ = ["AGENTS", "ENTRY_POINT_GROUP", "agent_names", "check_agent", "make_agent", "register_agent"]

ENTRY_POINT_GROUP = "shopsim.agents"
AgentFactory = Callable[[int, dict[str, Any]], Agent]


@dataclass(frozen=True)
class _Entry:
    factory: AgentFactory
    options: Callable[..., Any] | str | None
    """What declares the options (a class or function, or its ``module:name``), or None: strings
    passed as given."""


AGENTS: dict[str, _Entry] = {}


def register_agent(name: str, factory: AgentFactory, options: Callable[..., Any] | str | None = None) -> None:
    """Make ``factory(seed, options)`` available as agent ``name``.

    ``options`` is the class (or function) whose signature declares the agent's options, so
    command-line strings are converted and checked; without it they are passed as strings.
    """
    AGENTS[name] = _Entry(factory, options)


def agent_names() -> list[str]:
    """Registered names and installed entry points."""
    return sorted(set(AGENTS) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def _load(spec: str) -> Any:
    module, _, attr = spec.partition(":")
    try:
        obj: Any = importlib.import_module(module)
        for part in attr.split("."):
            obj = getattr(obj, part)
    except ImportError as exc:
        raise ConfigError(f"agent {spec!r}: cannot import {module!r} ({exc})") from None
    except AttributeError:
        raise ConfigError(f"agent {spec!r}: {module!r} has no {attr!r}") from None
    except (Exception, SystemExit) as exc:  # the module's own code failed while it was imported
        raise ConfigError(f"agent {spec!r}: importing {module!r} {_what_it_did(exc)}") from None
    return obj


def _what_it_did(exc: BaseException) -> str:
    """How the agent's own code failed, for a one-line error (``sys.exit`` is a failure too, not an exit)."""
    if isinstance(exc, SystemExit):
        return f"called sys.exit({exc.code!r})"
    return f"raised {type(exc).__name__}: {exc}"


def _from_object(obj: Any, name: str, seed: int, options: dict[str, Any]) -> Agent:
    """An agent from a class or factory: ``seed`` is passed when its signature takes one."""
    if not callable(obj):
        raise ConfigError(f"agent {name!r} is not a class or a factory")
    kwargs = convert_options(obj, options, name)
    target = obj.__init__ if inspect.isclass(obj) else obj
    try:
        takes_seed = "seed" in inspect.signature(target).parameters
    except (TypeError, ValueError):
        takes_seed = False
    try:
        agent = obj(seed=seed, **kwargs) if takes_seed else obj(**kwargs)
    except ShopsimError:
        raise
    except (Exception, SystemExit) as exc:  # the agent's own code: one line, never a traceback (nor exit 0)
        raise ConfigError(f"agent {name!r} could not be built: its constructor {_what_it_did(exc)}") from None
    if not all(callable(getattr(agent, m, None)) for m in ("reset", "act")):
        raise ConfigError(f"agent {name!r} built a {type(agent).__name__}, which has no reset() and act()")
    return agent  # type: ignore[no-any-return]


def make_agent(name: str, seed: int = 0, options: dict[str, Any] | None = None) -> Agent:
    """Build agent ``name`` (registered, an entry point, or ``module:Class``) with ``seed`` and options."""
    options = dict(options or {})
    entry = AGENTS.get(name)
    if entry is not None:
        declared = _load(entry.options) if isinstance(entry.options, str) else entry.options
        kwargs = convert_options(declared, options, name) if declared is not None else options
        return entry.factory(seed, kwargs)
    return _from_object(_user_object(name), name, seed, options)


def check_agent(name: str, seed: int = 0, options: dict[str, Any] | None = None) -> None:
    """Fail early, in one line, on an unknown agent or bad options, without running a user agent's code
    beyond its import: ``shopsim eval`` builds those in its worker processes, where an agent that exits
    or crashes cannot take the run with it. Built-in agents are built (they check their own settings).
    """
    if name in AGENTS:
        make_agent(name, seed, options)
        return
    problem = _check_in_child(name, dict(options or {}))
    if problem is not None:
        raise ConfigError(problem)


#: How long importing a user's agent module may take in the checking process before it is refused.
IMPORT_TIMEOUT_S = 120.0


def _check_user_agent(name: str, options: dict[str, Any], conn: Connection) -> None:
    """In a spawned process: import a user's agent and check its options; send None or the one-line error
    (after ``True``: the process started, so an end of file from here on is the agent module's doing).
    """
    conn.send(True)
    try:
        obj = _user_object(name)
        if not callable(obj):
            raise ConfigError(f"agent {name!r} is not a class or a factory")
        convert_options(obj, options, name)
    except ShopsimError as exc:
        conn.send(str(exc))
    except BaseException as exc:  # the module's own code, past what _load catches (an entry point's exit)
        conn.send(f"agent {name!r}: loading it {_what_it_did(exc)}")
    else:
        conn.send(None)


def _check_in_child(name: str, options: dict[str, Any]) -> str | None:
    """What is wrong with a user's agent (None: nothing), found by importing it in a spawned process:
    a module that calls ``os._exit(0)`` while it is imported would end this one with exit 0, where no
    ``except`` can stop it; there it ends only the check, and the run is refused in one line.
    """
    ctx = mp.get_context("spawn")
    recv, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_check_user_agent, args=(name, options, send), daemon=True)
    proc.start()
    send.close()  # the child holds the only writer: its exit reads as end of file here
    started = False
    try:
        started = recv.poll(IMPORT_TIMEOUT_S) and recv.recv()
        if not started or not recv.poll(IMPORT_TIMEOUT_S):
            return f"agent {name!r}: importing it took longer than {IMPORT_TIMEOUT_S:g} s; refused"
        answer: str | None = recv.recv()
        return answer
    except EOFError:
        proc.join(5)
        if not started:  # spawn imports the calling script again: an unguarded main() call runs there too
            return (f"agent {name!r}: the process that checks it ended as it started (exit code {proc.exitcode}); "
                    "a script that calls shopsim.cli.main needs the call under `if __name__ == \"__main__\":`")
        return (f"agent {name!r}: importing it ended the process (exit code {proc.exitcode}) before it could be "
                "checked; an agent's module must not exit when it is imported")
    finally:
        recv.close()
        proc.join(5)
        if proc.is_alive():
            proc.kill()
            proc.join()


def _user_object(name: str) -> Any:
    """The class or factory ``module:attribute`` or an installed entry point names."""
    if ":" in name:
        return _load(name)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if ep.name == name:
            try:
                return ep.load()
            except Exception as exc:
                raise ConfigError(f"agent {name!r}: its entry point {ep.value!r} failed to load: {exc}") from None
    names = agent_names()
    raise ConfigError(f"unknown agent {name!r}; available: {', '.join(names)}, or module:Class."
                      f"{did_you_mean(name, names)}")


def _builtin() -> None:
    from shopsim.agents.heuristic import HeuristicAgent
    from shopsim.agents.random_agent import RandomAgent
    from shopsim.agents.rule import RuleAgent

    register_agent("rule", lambda seed, opts: RuleAgent(**opts), RuleAgent)
    register_agent("random", lambda seed, opts: RandomAgent(seed=seed, **opts), RandomAgent)
    register_agent("heuristic", lambda seed, opts: HeuristicAgent(seed=seed, **opts), HeuristicAgent)
    register_agent("llm", _make_llm, "shopsim.agents.llm:LLMAgent")  # imported when used
    register_agent("human", _make_human, "shopsim.agents.human:HumanAgent")


def _make_llm(seed: int, opts: dict[str, Any]) -> Agent:
    """The LLM agent; options: base_url, model, api_key (else the SHOPSIM_LLM_* env vars), and the rest."""
    from shopsim.agents.llm import LLMAgent

    return LLMAgent(seed=seed, **opts)


def _make_human(seed: int, opts: dict[str, Any]) -> Agent:
    """A person at the terminal."""
    from shopsim.agents.human import HumanAgent

    return HumanAgent(**opts)


_builtin()
