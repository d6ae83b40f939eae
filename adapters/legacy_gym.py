"""Legacy ``gym`` (0.21–0.26) support for WebShop's ids, when that package is importable.

WebShop registers ``WebAgentTextEnv-v0`` and ``WebAgentSiteEnv-v0`` in OpenAI Gym's registry, and
its users (AgentGym, verl-agent) still call ``gym.make`` on them; shopsim's own ids live in
Gymnasium. This module registers WebShop's ids in gym's registry exactly as WebShop does and gives
the environments a text space that is a real ``gym.spaces.Space``, so gym's space checks accept it.

gym's runtime checkers cannot check WebShop's API itself: 0.24.0's ``check_env`` refuses a reset that
returns WebShop's ``(obs, None)`` pair and 0.24.1–0.26's ``PassiveEnvChecker`` calls ``np.isnan`` on the
(text) observation. Where gym's ``EnvSpec`` can say so (0.25+), the ids are registered without the
checker; on 0.24 pass ``disable_env_checker=True`` to ``gym.make``, as with WebShop itself.
"""

from __future__ import annotations

import dataclasses
import importlib
import string
from types import ModuleType
from typing import Any

__all__ = ["WEBSHOP_IDS", "legacy_gym", "legacy_text_space", "register_legacy_ids"]

#: WebShop's gym ids and the compatibility package's entry points.
WEBSHOP_IDS = {
    "WebAgentTextEnv-v0": "web_agent_site.envs:WebAgentTextEnv",
    "WebAgentSiteEnv-v0": "web_agent_site.envs:WebAgentSiteEnv",
}
_SAMPLE_CHARS = string.ascii_lowercase + " "


def legacy_gym() -> ModuleType | None:
    """The importable ``gym`` package when it is 0.21–0.26 (not Gymnasium's shim), else None."""
    try:
        gym = importlib.import_module("gym")
    except Exception:  # not installed, or an install that fails on import: no legacy ids then
        return None
    version = getattr(gym, "__version__", "")
    parts = version.split(".")
    if len(parts) < 2 or parts[0] != "0" or not parts[1].isdigit() or not 21 <= int(parts[1]) <= 26:
        return None
    return gym


def legacy_text_space(gym: ModuleType, max_length: int, *, min_length: int = 0, actions: bool = False) -> Any:
    """A ``gym.spaces.Space`` of strings of ``min_length..max_length`` characters.

    An action space samples WebShop actions (``search[...]`` of a few lower-case words), so a
    checker's random step is a real action; an observation space samples plain text.
    """

    class WebShopText(gym.spaces.Space):  # type: ignore[name-defined,misc]
        """Text of bounded length (pages or actions); gym's ``Text`` only exists from 0.25."""

        def __init__(self, seed: int | None = None) -> None:
            super().__init__(None, None, seed)
            self.min_length, self.max_length, self.actions = min_length, max_length, actions

        def contains(self, x: object) -> bool:
            return isinstance(x, str) and self.min_length <= len(x) <= self.max_length

        def sample(self, mask: object = None) -> str:
            rng = self.np_random
            size = int(rng.integers(1, 13)) if hasattr(rng, "integers") else int(rng.randint(1, 13))
            picks = rng.choice(list(_SAMPLE_CHARS), size=size)
            word = "".join(picks).strip() or "shoes"
            return f"search[{word}]" if self.actions else word

        def __repr__(self) -> str:
            return f"WebShopText({self.min_length}, {self.max_length})"

        def __eq__(self, other: object) -> bool:
            return (isinstance(other, WebShopText) and other.min_length == self.min_length
                    and other.max_length == self.max_length and other.actions == self.actions)

        __hash__ = None  # type: ignore[assignment]

    return WebShopText()


def register_legacy_ids() -> bool:
    """Register WebShop's ids in legacy gym's registry (idempotent); False when there is no such gym."""
    gym = legacy_gym()
    if gym is None:
        return False
    registration = gym.envs.registration
    registry = registration.registry
    spec_fields = {f.name for f in dataclasses.fields(registration.EnvSpec)} if dataclasses.is_dataclass(
        registration.EnvSpec) else set()
    for env_id, entry_point in WEBSHOP_IDS.items():
        known = env_id in registry if hasattr(registry, "__contains__") else env_id in registry.env_specs
        if known:
            continue
        extra = {"disable_env_checker": True} if "disable_env_checker" in spec_fields else {}
        registration.register(id=env_id, entry_point=entry_point, **extra)
    return True
