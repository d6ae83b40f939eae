"""AgentLab's side: ``ShopsimEnvArgs`` (what an experiment pickles to rebuild its env in a worker) and
:func:`shopsim_benchmark`, an AgentLab ``Benchmark`` over one split.

``ShopsimEnvArgs`` subclasses ``browsergym.experiments.loop.EnvArgs`` when that package (installed
by the ``browsergym`` extra, and with AgentLab) is importable, and otherwise a dataclass of our own with the same fields and
``make_env``. Either way, unpickling one in a fresh worker imports this package, which registers
every ``browsergym/shopsim.*`` id before the worker calls ``gym.make``: AgentLab's own EnvArgs
only imports the benchmark packages it knows by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import gymnasium as gym
from browsergym.shopsim import register_all
from browsergym.shopsim.ids import BENCHMARK, split_names

from shopsim.errors import ConfigError

__all__ = ["ShopsimEnvArgs", "shopsim_benchmark"]


@dataclasses.dataclass
class _EnvArgs:
    """The fields of AgentLab's ``EnvArgs`` (browsergym-experiments), for when it is not installed."""

    task_name: str
    task_seed: int | None = None
    max_steps: int | None = None
    headless: bool = True
    record_video: bool = False
    wait_for_user_message: bool = False
    viewport: dict[str, int] | None = None
    slow_mo: int | None = None
    storage_state: str | Path | dict[str, Any] | None = None
    task_kwargs: dict[str, Any] | None = None


def _base() -> type:
    try:
        from browsergym.experiments.loop import EnvArgs
    except ImportError:
        return _EnvArgs
    return EnvArgs  # type: ignore[no-any-return]


@dataclasses.dataclass
class ShopsimEnvArgs(_base()):  # type: ignore[misc]
    """Arguments that rebuild one ``browsergym/shopsim.*`` env, in this process or a fresh worker."""

    def __setstate__(self, state: dict[str, Any]) -> None:
        register_all()  # importing this module already did; kept explicit, as the reason this class exists
        self.__dict__.update(state)

    def make_env(self, action_mapping: Any, exp_dir: str | Path, exp_task_kwargs: dict[str, Any] | None = None,
                 use_raw_page_output: bool = False) -> gym.Env[Any, Any]:
        """The env, as AgentLab's ``EnvArgs.make_env`` builds it (video under ``exp_dir`` when asked)."""
        register_all()
        extra: dict[str, Any] = {}
        if self.record_video:
            extra["record_video_dir"] = exp_dir
        if self.viewport:
            extra["viewport"] = self.viewport
        if self.slow_mo is not None:
            extra["slow_mo"] = self.slow_mo
        if self.storage_state:
            extra["pw_context_kwargs"] = {"storage_state": self.storage_state}
        if self.task_kwargs or exp_task_kwargs:
            extra["task_kwargs"] = {**(self.task_kwargs or {}), **(exp_task_kwargs or {})}
        if use_raw_page_output:
            extra["use_raw_page_output"] = True
        return gym.make(f"browsergym/{self.task_name}", disable_env_checker=True, max_episode_steps=self.max_steps,
                        headless=self.headless, wait_for_user_message=self.wait_for_user_message,
                        action_mapping=action_mapping, **extra)


def shopsim_benchmark(split: str = "test", *, goals: int | None = None, seeds: Sequence[int] = (0,),
                      max_steps: int = 15, headless: bool = True) -> Any:
    """An AgentLab ``Benchmark`` over the first ``goals`` goals of ``split`` (all when None), once per seed.

    Needs browsergym-experiments (the ``browsergym`` extra installs it; AgentLab brings it too), whose
    ``Benchmark`` AgentLab runs; the actions are BrowserGym's bid set (``click``, ``fill``, ...).
    WebShop's step limit (15) is the default.
    """
    try:
        import pandas as pd
        from browsergym.experiments.benchmark import Benchmark, HighLevelActionSetArgs
    except ImportError:
        raise ConfigError("shopsim_benchmark needs browsergym-experiments: pip install 'shopsim[browsergym]' "
                          "(or agentlab, which brings it); the tasks themselves need only browsergym-core") from None
    names = split_names(split)[:goals]
    env_args = [ShopsimEnvArgs(task_name=name, task_seed=seed, max_steps=max_steps, headless=headless)
                for name in names for seed in seeds]
    given = {"name": f"{BENCHMARK}_{split}", "high_level_action_set_args": HighLevelActionSetArgs(subsets=("bid",)),
             "is_multi_tab": False, "supports_parallel_seeds": True, "backends": [], "env_args_list": env_args,
             "task_metadata": pd.DataFrame({"task_name": names})}  # in split order (its default is a set's)
    known = {f.name for f in dataclasses.fields(Benchmark)}  # its fields changed between releases
    return Benchmark(**{k: v for k, v in given.items() if k in known})
