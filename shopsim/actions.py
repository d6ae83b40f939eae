"""WebShop's action grammar: ``search[keywords]`` and ``click[element]``, split into name and argument.

The sim's session, every translator and the replay source read actions with :func:`parse_action`,
so an action means the same on every site.
"""

from __future__ import annotations

__all__ = ["parse_action"]


def parse_action(action: str) -> tuple[str, str | None]:
    """Split ``name[arg]`` like WebShop does (greedy: the last ``]`` closes the argument).

    ``'click[Buy Now]'`` -> ``('click', 'Buy Now')``; a string without brackets -> ``(action, None)``.
    Newlines inside the argument are accepted (WebShop's regex rejects them; we do not need to).
    """
    if not isinstance(action, str):
        return "", None
    open_at = action.find("[")
    if open_at <= 0 or not action.endswith("]"):
        return action, None
    return action[:open_at], action[open_at + 1 : -1]
