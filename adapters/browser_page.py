"""The Chromium context and page a :class:`~shopsim.adapters.browser_source.BrowserSource` drives,
and the trace and video it records of each episode.

Why reuse: a new context and page cost a renderer process start (about 150 ms, most of a short
episode); one context and page per source, kept across episodes, cost four protocol calls between
episodes instead. Why that stays independent: before each episode the context's cookies go, the
shop origin's storage (local and session storage, IndexedDB, cache storage, service workers) is
cleared, and so are ``window.name`` and the tab's history, so nothing an earlier episode left is
visible to a later one. What carries over is Chromium's HTTP cache, which holds what the server
sent (the same bytes again); the shop's pages are never cached across episodes since every
episode has its own session id in its URLs.

Video needs a page per episode (a recording is saved when its page closes), so recording video
falls back to a fresh context per episode.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from shopsim.adapters.browser_obs import context_options

__all__ = ["ASSET_PATHS", "EpisodePage", "EpisodeRecorder", "RecordedEpisodes"]

#: What ``assets=False`` blocks, under the shop's origin: the sim's stylesheet and images
#: (``/static/style.css``, ``/static/img/...``), which a text observation never reads. Chromium blocks
#: them itself (CDP ``Network.setBlockedURLs``): a Playwright route would take each request through
#: the client, which costs more than serving it.
ASSET_PATHS = ("/static/*",)

_CLEAR_JS = """() => {
  try { sessionStorage.clear(); } catch (e) {}
  try { localStorage.clear(); } catch (e) {}
  window.name = '';
}"""


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


class EpisodePage:
    """Opens the page for each episode: the kept one, cleared, or a fresh context and page.

    ``recorder`` is the source's :class:`EpisodeRecorder`: a kept context is traced chunk by chunk,
    a fresh one per episode as a whole.
    """

    def __init__(self, browser: Any, recorder: EpisodeRecorder, *, viewport: tuple[int, int], timeout_ms: float,
                 reuse: bool = True, assets: bool = True):
        self.browser, self.recorder = browser, recorder
        self.viewport, self.timeout_ms, self.assets = viewport, timeout_ms, assets
        self.reuse = reuse and recorder.video_dir is None
        self.context: Any = None
        self.page: Any = None
        self._cdp: Any = None

    def open(self, url: str, wait_until: str) -> Any:
        """Load ``url``, the episode's first page, with nothing left from an earlier episode; tracing started."""
        if not (self.reuse and self.page is not None and not self.page.is_closed() and self._forgot(_origin(url))):
            self.close()
            self.context = self.browser.new_context(**context_options(self.viewport),
                                                    **self.recorder.context_options())
            self.context.set_default_timeout(self.timeout_ms)
            self.page = self.context.new_page()
            self._cdp = self.context.new_cdp_session(self.page) if self.reuse or not self.assets else None
            if not self.assets:
                self._cdp.send("Network.enable")
                self._cdp.send("Network.setBlockedURLs", {"urls": [_origin(url) + path for path in ASSET_PATHS]})
        self.recorder.start(self.context)
        self.page.goto(url, wait_until=wait_until)
        if self.reuse:  # the tab's history is this page alone, in every episode alike
            self._cdp.send("Page.resetNavigationHistory")
        return self.page

    def _forgot(self, origin: str) -> bool:
        """Clear what the last episode left: cookies, the origin's storage, ``window.name``.

        False when the kept page cannot be cleared (it crashed): a fresh context replaces it.
        """
        from playwright.sync_api import Error as PlaywrightError

        try:
            self.context.clear_cookies()
            self.page.evaluate(_CLEAR_JS)  # session storage is the tab's: only the page itself can clear it
            self._cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
            if self.recorder.trace_dir is not None:  # else the trace opens with a snapshot of the last page
                self.page.goto("about:blank")
        except PlaywrightError:
            return False
        return True

    def finish(self) -> None:
        """End the episode: save its trace (and video); close the context unless it is kept."""
        if self.context is None:
            return
        try:
            self.recorder.finish(self.context, self.page, owned=not self.reuse)
        except Exception:  # the browser may already be gone; the context is lost either way
            self._drop()
            return
        if not self.reuse:
            self.context = self.page = self._cdp = None

    def close(self) -> None:
        """End the episode and close the context, kept or not."""
        self.finish()
        if self.context is not None:
            self.recorder.stop(self.context)
            self._drop()

    def _drop(self) -> None:
        with contextlib.suppress(Exception):  # the browser may already be gone
            self.context.close()
        self.context = self.page = self._cdp = None


class EpisodeRecorder:
    """Per-episode Playwright trace zips and videos for a browser source.

    ``trace`` (a folder, or True for a temporary one) saves ``episode-<n>.zip`` with screenshots,
    DOM snapshots and sources, for ``playwright show-trace``; ``video`` (a folder) saves
    ``episode-<n>.webm``. A source calls :meth:`context_options` when it creates a context,
    :meth:`start` once the context exists and :meth:`finish` before closing it (``owned=False`` for a
    context the caller owns: tracing then goes chunk by chunk and the context stays open).
    """

    def __init__(self, trace: bool | str | os.PathLike[str] = False, video: str | os.PathLike[str] | None = None):
        if trace is True:
            self.trace_dir: Path | None = Path(tempfile.mkdtemp(prefix="shopsim-trace-"))
        elif trace is False or trace is None:
            self.trace_dir = None
        else:
            self.trace_dir = Path(trace)
        self.video_dir = Path(video) if video is not None else None
        for folder in (self.trace_dir, self.video_dir):
            if folder is not None:
                folder.mkdir(parents=True, exist_ok=True)
        self.episode = 0
        self.last_trace: Path | None = None
        self.last_video: Path | None = None
        self._tracing: Any = None  # the context being traced
        self._chunked = False  # tracing was started on a caller's context: later episodes are chunks
        self._active = False

    def context_options(self) -> dict[str, Any]:
        """``new_context`` keywords: ``record_video_dir`` when recording video."""
        return {"record_video_dir": str(self.video_dir / "raw")} if self.video_dir is not None else {}

    def start(self, context: Any) -> None:
        """Begin an episode: start tracing ``context`` when tracing."""
        self.episode += 1
        self._active = True
        if self.trace_dir is None:
            return
        if self._tracing is context and self._chunked:
            context.tracing.start_chunk(title=f"episode {self.episode}")
        else:
            context.tracing.start(screenshots=True, snapshots=True, sources=True, title=f"episode {self.episode}")
        self._tracing = context

    def finish(self, context: Any, page: Any, *, owned: bool = True) -> None:
        """End the episode: save the trace; close an owned ``context`` and save its video."""
        if not self._active:
            if owned and context is not None:
                context.close()
            return
        self._active = False
        name = f"episode-{self.episode}"
        if self.trace_dir is not None and self._tracing is context and context is not None:
            path = self.trace_dir / f"{name}.zip"
            if owned:
                context.tracing.stop(path=str(path))
                self._tracing = None
            else:
                context.tracing.stop_chunk(path=str(path))
                self._chunked = True
            self.last_trace = path
        if not owned:
            return
        video = getattr(page, "video", None) if self.video_dir is not None and page is not None else None
        context.close()
        if video is not None:
            path = self.video_dir / f"{name}.webm"  # type: ignore[operator]
            video.save_as(str(path))  # waits for the closed page's video to be written
            video.delete()
            self.last_video = path

    def stop(self, context: Any) -> None:
        """Stop tracing a caller's context for good (the source is closing)."""
        if self._tracing is context and context is not None:
            with contextlib.suppress(Exception):
                context.tracing.stop()
        self._tracing, self._chunked = None, False


class RecordedEpisodes:
    """``last_trace`` / ``last_video`` of a browser source that records its episodes (``self.recorder``)."""

    recorder: EpisodeRecorder

    @property
    def last_trace(self) -> Path | None:
        """The trace zip of the last finished episode (None when not tracing)."""
        return self.recorder.last_trace

    @property
    def last_video(self) -> Path | None:
        """The video of the last finished episode (None when not recording video)."""
        return self.recorder.last_video
