"""What ShopSimulator's runtime allows an agent per episode and per turn (seeds 003/004 §terminations).

Core constants, so that agents (which never import the shop) and the shop's sessions read one source.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["MAX_ACTIONS", "MAX_TOKENS_PER_TURN", "InteractionMode"]

InteractionMode = Literal["single_turn", "multi_turn"]
#: Model turns (= agent actions) an episode may use before the runtime ends it as ``action_limit``.
MAX_ACTIONS: dict[str, int] = {"single_turn": 30, "multi_turn": 40}
#: Tokens a model turn may generate; a reply cut at this cap without one legal call is ``generation_length``.
MAX_TOKENS_PER_TURN = 4096
