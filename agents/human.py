"""Play the shop yourself in a terminal: the page in rich text, numbered clickables, typed choices.

Useful to feel what agents face and to record human baselines. Input and output are parameters so
the loop is testable with a scripted player.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, TextIO

from shopsim.render import render_rich

__all__ = ["HumanAgent"]

HELP = "Type a number to click, 's <query>' to search (or just the words on a search page), 'q' to quit."


class HumanAgent:
    """Prints each page and asks for an action until the input is valid; ``q`` raises KeyboardInterrupt."""

    name = "human"

    def __init__(self, input_fn: Callable[[str], str] = input, output: TextIO | None = None):
        self.input_fn = input_fn
        self.output = output

    def reset(self, seed: int | None = None) -> None:
        """Nothing to forget: the person remembers."""

    def _print(self, text: str = "") -> None:
        print(text, file=self.output if self.output is not None else sys.stdout)

    def act(self, observation: str, valid_actions: dict[str, Any], info: dict[str, Any]) -> str:
        """Show the page and the choices; return the chosen ``search[...]`` or ``click[...]``."""
        state = info.get("page_state")
        has_search = bool(valid_actions.get("has_search_bar"))
        clicks = [c for c in valid_actions.get("clickables", []) if c != "search"]
        self._print("=" * 72)
        self._print(render_rich(state) if state is not None else observation)
        feedback = info.get("feedback")
        if feedback is not None and getattr(feedback, "code", "ok") != "ok":
            self._print(f"! {getattr(feedback, 'message', '')}")
        for i, c in enumerate(clicks, 1):
            self._print(f"  {i:>2}. {c}")
        if has_search:
            self._print("  s <query>  search")
        search_page = has_search and (state is None or state.page_type == "search")
        while True:
            raw = self.input_fn("> ").strip()
            if raw.lower() in ("q", "quit", "exit"):
                raise KeyboardInterrupt("the player quit")
            if raw.isdigit() and 1 <= int(raw) <= len(clicks):
                return f"click[{clicks[int(raw) - 1]}]"
            if raw.lower().startswith("s ") and has_search and raw[2:].strip():
                return f"search[{raw[2:].strip()}]"
            if raw and search_page and not raw.isdigit():
                return f"search[{raw}]"
            if raw.lower() in clicks:
                return f"click[{raw.lower()}]"
            self._print(f"Not a valid choice: {raw!r}. {HELP}")
