"""The paper's rule baseline: search the instruction, click the first result, buy it."""

from __future__ import annotations

from typing import Any

__all__ = ["RuleAgent"]


class RuleAgent:
    """WebShop's rule baseline (score 45.6 in the paper): no options, no comparison."""

    name = "rule"

    def reset(self, seed: int | None = None) -> None:
        """Stateless; nothing to reset."""

    def act(self, observation: str, valid_actions: dict[str, Any], info: dict[str, Any]) -> str:
        """Search page -> search the instruction; results -> first product; item -> buy now."""
        state = info.get("page_state")
        clickables = valid_actions.get("clickables", [])
        if valid_actions.get("has_search_bar") and (state is None or state.page_type == "search"):
            return f"search[{info.get('instruction') or ''}]"
        if state is not None and state.page_type == "results":
            products = [c.arg for c in state.clickables if c.kind == "product"]
            return f"click[{products[0]}]" if products else "click[back to search]"
        if "buy now" in clickables:
            return "click[buy now]"
        return "click[< prev]" if "< prev" in clickables else "click[back to search]"
