"""Moved to :mod:`shopsim.render`; this module re-exports it so existing imports keep working.

``observation(state, "html")`` is no longer drawn here: the sim's HTML page comes from simsite,
which translators do not import. Use :func:`shopsim.adapters.env.observation` for all four modes.
"""

from __future__ import annotations

from shopsim.render import (
    ObservationMode,
    format_price,
    observation,
    render_rich,
    render_simple,
    valid_actions,
)

__all__ = ["ObservationMode", "format_price", "observation", "render_rich", "render_simple", "valid_actions"]
