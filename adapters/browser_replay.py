"""``BrowserReplaySource``: a recorded bundle replayed in real headless Chromium, offline.

The same replay rules as :class:`~shopsim.adapters.replay.ReplaySource` (it is a subclass); only
how a page is shown differs: Chromium loads it with every request answered from the bundle.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from shopsim.adapters.browser_obs import (
    DEFAULT_VIEWPORT,
    BrowserMode,
    BrowserObservation,
    PageObserver,
    context_options,
)
from shopsim.adapters.browser_page import EpisodeRecorder, RecordedEpisodes
from shopsim.adapters.bundle import Bundle, BundleStep, normalize_url
from shopsim.adapters.replay import ReplaySource
from shopsim.errors import ResetNeeded, SourceError
from shopsim.page import PageState

__all__ = ["BrowserReplaySource"]


class BrowserReplaySource(RecordedEpisodes, ReplaySource):
    """Replay a bundle in real Chromium: every request is fulfilled from the bundle or aborted.

    Page requests are answered from ``pages/`` (or from the HAR with ``route_from_har(...,
    not_found='abort')`` when the bundle has one and ``use_har``); images, scripts and everything else
    are aborted, so the network is never touched. ``requests`` lists ``(url, 'fulfilled'|'aborted')``.
    JavaScript is off by default: recorded pages are post-script DOM snapshots already.
    Like :class:`~shopsim.adapters.browser_source.BrowserSource` it offers the browser observation
    modes (:meth:`observe`), a Playwright trace and a video per episode.
    """

    def __init__(self, bundle: Bundle | str | Path, *, executable_path: str | None = None, headless: bool = True,
                 javascript: bool = False, use_har: bool = True, timeout_ms: float = 30_000,
                 trace: bool | str | Path = False, video: str | Path | None = None,
                 viewport: tuple[int, int] = DEFAULT_VIEWPORT, **kw: Any):
        from shopsim.adapters import browser_source as sources

        self.recorder, self.observer, self.viewport = EpisodeRecorder(trace, video), PageObserver(), viewport
        super().__init__(bundle, **kw)
        self.javascript, self.timeout_ms = javascript, timeout_ms
        self.use_har = use_har and self.bundle.har_path is not None
        self.requests: list[tuple[str, str]] = []
        self.context: Any = None
        self.page: Any = None
        self._serving: dict[str, BundleStep] = {}
        path = sources.find_browser(executable_path, headless=headless)  # ConfigError when there is none
        try:
            self.browser = sources._Browser.get(path, headless).browser
        except Exception as exc:
            raise SourceError(f"could not launch Chromium for replay: {exc}") from exc

    def _route(self, route: Any) -> None:
        request = route.request
        step = self._serving.get(normalize_url(request.url)) if request.resource_type == "document" else None
        if step is None:
            self.requests.append((request.url, "aborted"))
            route.abort()
            return
        self.requests.append((request.url, "fulfilled"))
        route.fulfill(status=200, headers={"content-type": "text/html; charset=utf-8"},
                      body=self.bundle.pages[step.index])

    def _open(self) -> None:
        self._close_context()
        self.context = self.browser.new_context(java_script_enabled=self.javascript, service_workers="block",
                                                **context_options(self.viewport), **self.recorder.context_options())
        self.context.set_default_timeout(self.timeout_ms)
        self.recorder.start(self.context)
        if self.use_har:
            assert self.bundle.har_path is not None
            self.context.route_from_har(str(self.bundle.har_path), not_found="abort")
            self.context.on("requestfinished", lambda r: self.requests.append((r.url, "fulfilled")))
            self.context.on("requestfailed", lambda r: self.requests.append((r.url, "aborted")))
        else:
            self.context.route("**/*", self._route)
        self.page = self.context.new_page()

    def _page(self, step: BundleStep) -> PageState:
        """Load the recorded page in the browser and translate what Chromium shows."""
        from playwright.sync_api import Error as PlaywrightError

        url = step.final_url or step.url or ""
        self._serving = {normalize_url(url): step, normalize_url(step.url or url): step}
        try:
            if self.page is None:
                self._open()
            self.page.goto(url, wait_until="domcontentloaded")
            html = self.page.content()
        except PlaywrightError as exc:
            raise SourceError(f"browser replay of step {step.index} ({url}) failed: {exc}") from exc
        return self.translator.parse(html, url)

    def reset(self, goal_index: int = 0, seed: int = 0) -> PageState:
        """Open the browser if needed and start the bundle's episode in it."""
        self._open()
        self.requests = []
        return super().reset(goal_index, seed)

    def observe(self, mode: BrowserMode) -> BrowserObservation:
        """The page Chromium shows as a browser observation (``screenshot``, ``axtree``, ``som``, ``dom``)."""
        if self.current is None or self.page is None:
            raise ResetNeeded("observe")
        return self.observer.observe(self.page, self.current, mode)

    def _close_context(self) -> None:
        self.observer.detach()
        if self.context is not None:
            with contextlib.suppress(Exception):
                self.recorder.finish(self.context, self.page)  # saves the trace and video, closes the context
            with contextlib.suppress(Exception):
                self.context.close()
            self.context = self.page = None

    def close(self) -> None:
        """Close the browser and its context."""
        self._close_context()
