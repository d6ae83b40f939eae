"""Ray actors over :class:`ShopEnv`, for Ray-based RL trainers: ``ShopEnvActor`` and ``EnvPool``.

``ShopEnvActor`` is a Ray actor that builds one shop (from a :class:`ShopConfig`, or a data folder
or prepared store) when it starts and holds one :class:`ShopEnv` over it; ``EnvPool(n, config)``
starts ``n`` of them and steps them in batches, one remote call per actor per batch::

    pool = EnvPool(8, ShopConfig(data_dir="store/"))
    starts = pool.reset([3] * 8, seeds=range(8))       # [(obs, info)] * 8
    outs = pool.step(["search[red shoes]"] * 8)         # [(obs, reward, terminated, truncated, info)]
    tokens = pool.snapshot()                            # one opaque token per env
    pool.restore([tokens[0]] * 8)                       # a GRPO group from one state

Results are exactly what a local ``ShopEnv`` returns for the same goals, seeds and actions,
``info`` included: its ``page_state`` and ``feedback`` stay pydantic models (they pickle; call
``.model_dump()`` for JSON). Actors share nothing but the data's files: each is a process with
its own shop (a prepared store's pages are shared through the OS page cache on one machine).
Importing this module needs Ray (``pip install shopsim[ray]``); nothing else in shopsim does.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from shopsim.adapters.env import ShopEnv
from shopsim.adapters.ray_local import start_local
from shopsim.errors import ConfigError
from shopsim.simsite.profiles import open_shop
from shopsim.simsite.shop import ShopConfig

try:
    import ray
    from ray.exceptions import RayTaskError
except ImportError as exc:  # the one module that needs Ray says how to get it
    raise ImportError(f"shopsim.adapters.ray needs Ray, which is not installed: pip install shopsim[ray] ({exc})") \
        from exc

__all__ = ["EnvPool", "ShopEnvActor", "shop_config"]

StepResult = tuple[Any, float, bool, bool, dict[str, Any]]


def shop_config(config: ShopConfig | str | Path | None) -> ShopConfig:
    """``config`` as a :class:`ShopConfig`: a path is a data folder or prepared store; None is the bundled shop."""
    if config is None:
        return ShopConfig()
    if isinstance(config, ShopConfig):
        return config
    if isinstance(config, str | Path):
        return ShopConfig(data_dir=str(config))
    raise ConfigError(f"a shop config is a ShopConfig, a data path or None, not {type(config).__name__}")


@ray.remote
class ShopEnvActor:
    """One :class:`ShopEnv` in a Ray actor, over a shop the actor builds once; methods mirror the env's."""

    def __init__(self, config: ShopConfig | str | Path | None = None, **env_kwargs: Any):
        self.env = ShopEnv(open_shop(shop_config(config)), **env_kwargs)

    def reset(self, goal: int | None = None, seed: int | None = None) -> tuple[Any, dict[str, Any]]:
        """``env.reset(seed=seed, options={"goal": goal})``; no goal: a seeded draw, as ``ShopEnv`` does."""
        return self.env.reset(seed=seed, options={"goal": goal} if goal is not None else None)

    def step(self, action: str) -> StepResult:
        """Step the actor's env; its ``(obs, reward, terminated, truncated, info)``."""
        return self.env.step(action)

    def snapshot(self) -> str:
        """The actor's env state as an opaque snapshot token."""
        return self.env.snapshot()

    def restore(self, token: str) -> tuple[Any, dict[str, Any]]:
        """Put the actor's env into a snapshot token's state; ``(obs, info)`` as ``reset`` gives."""
        return self.env.restore(token)

    def close(self) -> None:
        """Close the actor's env."""
        self.env.close()


class EnvPool:
    """``n`` :class:`ShopEnvActor` s stepped in batches; item ``i`` of every list is env ``i``'s.

    ``num_cpus`` is each actor's CPU reservation (1, as Ray's default; ``0.25`` packs four envs
    per core: a step takes about a millisecond and an env waits for its trainer otherwise).
    ``env_kwargs`` go to ``ShopEnv`` (``observation_mode``, ``strict``, ``max_steps``, ``task_mode``).
    """

    def __init__(self, n: int, config: ShopConfig | str | Path | None = None, *, num_cpus: float = 1,
                 **env_kwargs: Any):
        if n < 1:
            raise ConfigError(f"EnvPool needs at least one env, not {n}")
        cfg = shop_config(config)
        if not ray.is_initialized():  # a local cluster on the loopback; call ray.init() first for another
            start_local(ray)
        # @ray.remote gives the class .options()/.remote(); mypy (Ray untyped here) sees the plain class.
        self.actors = [ShopEnvActor.options(num_cpus=num_cpus).remote(cfg, **env_kwargs)  # type: ignore[attr-defined]
                       for _ in range(n)]

    def __len__(self) -> int:
        return len(self.actors)

    def __enter__(self) -> EnvPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reset(self, goals: Sequence[int | None], seeds: Iterable[int | None] | None = None
              ) -> list[tuple[Any, dict[str, Any]]]:
        """Start an episode in every env: env ``i`` on ``goals[i]`` (None: a draw seeded by ``seeds[i]``)."""
        seeds = list(seeds) if seeds is not None else [None] * len(self)
        self._check("goals", goals)
        self._check("seeds", seeds)
        return self._gather([a.reset.remote(g, s) for a, g, s in zip(self.actors, goals, seeds, strict=True)])

    def step(self, actions: Sequence[str | None]) -> list[StepResult | None]:
        """Step every env with its action; an env whose action is None is left as it is (its result is None)."""
        self._check("actions", actions)
        refs = {i: a.step.remote(act) for i, (a, act) in enumerate(zip(self.actors, actions, strict=True))
                if act is not None}
        done = dict(zip(refs, self._gather(list(refs.values())), strict=True))
        return [done.get(i) for i in range(len(self))]

    def snapshot(self) -> list[str]:
        """Every env's state as a token (``ShopEnv.snapshot``); any env over the same shop can restore it."""
        return self._gather([a.snapshot.remote() for a in self.actors])

    def restore(self, tokens: Sequence[str]) -> list[tuple[Any, dict[str, Any]]]:
        """Put env ``i`` into ``tokens[i]``'s state; ``[token] * len(pool)`` branches one state into all."""
        self._check("tokens", tokens)
        return self._gather([a.restore.remote(t) for a, t in zip(self.actors, tokens, strict=True)])

    def close(self) -> None:
        """Close every env and end its actor."""
        actors, self.actors = self.actors, []
        if actors:
            closing = [a.close.remote() for a in actors]
            ray.wait(closing, num_returns=len(closing), timeout=30)
        for actor in actors:
            ray.kill(actor)

    def _check(self, what: str, items: Sequence[Any]) -> None:
        if len(items) != len(self):
            raise ConfigError(f"EnvPool of {len(self)} envs got {len(items)} {what}: give one per env")

    @staticmethod
    def _gather(refs: list[Any]) -> list[Any]:
        """The results, or the env's own error (a ``SessionError``, ``SnapshotError``...) as raised locally."""
        try:
            return ray.get(refs)
        except RayTaskError as exc:
            cause = exc.cause
            raise (cause if isinstance(cause, BaseException) else exc) from None
