"""shopsim's WebShop goals as BrowserGym tasks: ``import browsergym.shopsim`` registers
``browsergym/shopsim.<split>.<n>`` for WebShop's test, eval and train splits, and
``browsergym/shopsim.v8.<split>.<n>`` for the shopsim-v8 profile's tasks (docs/harnesses.md).

Registering reads no catalog: the ids come from :mod:`browsergym.shopsim.ids`, and the shop is
started (or reached at ``$SHOPSIM_URL``) by the first task that is reset. Each id is what
BrowserGym's ``register_task`` would make (a ``BrowserEnv`` over the task with its split and goal
frozen), entered into Gymnasium's registry directly: ``gym.register`` compares every new id with
all registered ones, which for WebShop's 12,087 goals took over 20 s instead of a fraction of one.
"""

from __future__ import annotations

from functools import partial
from typing import Any

try:
    import browsergym.core  # noqa: F401  (the package ships with shopsim; BrowserGym is the optional extra)
except ImportError as exc:
    raise ImportError(f"browsergym.shopsim needs browsergym-core: pip install 'shopsim[browsergym]' ({exc})") from None

import gymnasium as gym
from browsergym.core.env import BrowserEnv
from browsergym.core.registration import frozen_partial
from browsergym.shopsim.ids import split_names
from browsergym.shopsim.task import ShopsimTask
from browsergym.shopsim.v8_task import ShopsimV8Task
from gymnasium.envs.registration import EnvSpec

from shopsim.simsite.goals import SPLITS

__all__ = ["ALL_SHOPSIM_TASK_IDS", "make_browser_env", "make_v8_browser_env", "register_all"]

#: Every registered id (``browsergym/`` included), split by split in goal order, WebShop's then v8's.
ALL_SHOPSIM_TASK_IDS: list[str] = []


def make_browser_env(split: str, goal: int, *env_args: Any, **env_kwargs: Any) -> BrowserEnv:
    """The entry point of ``browsergym/shopsim.<split>.<goal>``: BrowserGym's env over that task."""
    return BrowserEnv(frozen_partial(ShopsimTask, split=split, goal=goal), *env_args, **env_kwargs)


def make_v8_browser_env(split: str, goal: int, *env_args: Any, **env_kwargs: Any) -> BrowserEnv:
    """The entry point of ``browsergym/shopsim.v8.<split>.<goal>``: BrowserGym's env over that v8 task."""
    return BrowserEnv(frozen_partial(ShopsimV8Task, split=split, goal=goal), *env_args, **env_kwargs)


def register_all() -> None:
    """Register every id once per process (later calls do nothing)."""
    if ALL_SHOPSIM_TASK_IDS:
        return
    for v8, make in ((False, make_browser_env), (True, make_v8_browser_env)):
        for split in SPLITS:
            for n, name in enumerate(split_names(split, v8)):
                env_id = f"browsergym/{name}"
                if env_id not in gym.registry:
                    gym.registry[env_id] = EnvSpec(id=env_id, entry_point=partial(make, split, n),
                                                   nondeterministic=False)
                ALL_SHOPSIM_TASK_IDS.append(env_id)


register_all()
