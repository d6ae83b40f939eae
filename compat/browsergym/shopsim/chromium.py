"""BrowserGym launches Chromium through one global Playwright (its page and its chat window alike)
with no way to pass ``executable_path`` to the chat's launch. Where Playwright's own Chromium is
not installed (Debian: ``apt install chromium``, no ``playwright install``), every launch fails.

:func:`use_shopsim_chromium` puts a thin wrapper around that global Playwright, through BrowserGym's
own setter (``browsergym.core._set_global_playwright``): a ``chromium.launch`` that names no browser
(no ``executable_path``, no ``channel``) gets the Chromium shopsim's harness finds
(:func:`shopsim.adapters.browser_source.find_browser`; ``$SHOPSIM_CHROMIUM`` names one explicitly).
Nothing changes where Playwright's own Chromium is installed, for launches that name a browser, or
for other browser types. Tasks call it when BrowserGym creates them, before BrowserGym launches.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["launch_kwargs", "use_shopsim_chromium"]


def launch_kwargs(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``kwargs`` of a ``chromium.launch`` plus the Chromium to use, when the call names none and one is needed."""
    from shopsim.adapters.browser_source import find_browser

    if "executable_path" in kwargs or "channel" in kwargs:
        return kwargs
    path = find_browser(os.environ.get("SHOPSIM_CHROMIUM") or None, headless=bool(kwargs.get("headless", True)))
    return kwargs if path is None else {**kwargs, "executable_path": path}


class _Chromium:
    """Playwright's ``BrowserType`` with :func:`launch_kwargs` applied to ``launch``."""

    def __init__(self, browser_type: Any):
        self._browser_type = browser_type

    def launch(self, **kwargs: Any) -> Any:
        return self._browser_type.launch(**launch_kwargs(kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser_type, name)


class _Playwright:
    """Playwright as BrowserGym holds it, with ``chromium`` wrapped; everything else passes through."""

    def __init__(self, playwright: Any):
        self._playwright = playwright
        self.chromium = _Chromium(playwright.chromium)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._playwright, name)


def use_shopsim_chromium() -> None:
    """Wrap BrowserGym's global Playwright (starting it, as BrowserGym would) once per process."""
    import browsergym.core as core

    playwright = core._get_global_playwright()
    if not isinstance(playwright, _Playwright):
        core._set_global_playwright(_Playwright(playwright))
