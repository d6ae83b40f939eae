"""The MCP server's episode rules without the SDK (:mod:`shopsim.adapters.mcp_episodes`): refusals a tool
call can trigger must be ShopsimErrors with a short line, since the SDK hides any other exception's
message behind "Error executing tool ...".
"""

from __future__ import annotations

from typing import Any

import pytest

from shopsim.adapters.mcp_episodes import EpisodeStore
from shopsim.errors import ActionError, ConfigError, SessionError


def _store(shop: Any) -> EpisodeStore:
    return EpisodeStore(lambda profile: shop)


def test_a_negative_seed_is_a_config_error(bundled_shop: Any) -> None:
    with pytest.raises(ConfigError, match=r"^seed must be a non-negative integer \(got -5\)$"):
        _store(bundled_shop).start("a", goal=3, seed=-5)


def test_refusals_quote_a_long_argument_shortened(bundled_shop: Any) -> None:
    store = _store(bundled_shop)
    episode = store.start("a", goal=3)
    with pytest.raises(ActionError) as refused:
        episode.act("search", "x" * 100_000)  # past the query limit: the env refuses it
    assert "limited to" in str(refused.value) and len(str(refused.value)) < 300
    with pytest.raises(SessionError) as unknown:
        store.get("a", "y" * 10_000)
    assert "unknown episode_id" in str(unknown.value) and len(str(unknown.value)) < 300
    with pytest.raises(ActionError) as absent:
        episode.act("click", "z" * 10_000)
    assert "is not on this page" in str(absent.value) and len(str(absent.value)) < 600
