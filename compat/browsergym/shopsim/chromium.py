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
    """Give BrowserGym the Playwright shopsim's ``BrowserSource`` uses, wrapped, once per process.

    Sharing it is what lets BrowserGym's tasks and shopsim's browser harness run in one process: a
    second sync Playwright in the same thread fails to start. A Playwright BrowserGym started itself
    (another benchmark's task came first) is wrapped instead. When ``BrowserSource.shutdown()`` stops the
    shared one, BrowserGym's global is cleared, and its next task starts it again.
    """
    import browsergym.core as core

    from shopsim.adapters.browser_source import shared_playwright

    current = core._PLAYWRIGHT
    if isinstance(current, _Playwright):
        return
    if current is None:
        current = shared_playwright(on_stop=_forget)
    core._set_global_playwright(_Playwright(current))


def _forget() -> None:
    """BrowserGym lets go of the shared Playwright as ``BrowserSource.shutdown()`` stops it."""
    import browsergym.core as core

    core._set_global_playwright(None)
