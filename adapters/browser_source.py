"""``BrowserSource``: real headless Chromium against a running shop, with traces, video and
browser observations; and how shopsim finds and shares one Chromium per process.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from typing import Any, Literal

from shopsim.adapters.browser_obs import (
    DEFAULT_VIEWPORT,
    BrowserMode,
    BrowserObservation,
    PageObserver,
    context_options,
)
from shopsim.adapters.source_base import EpisodeBook, SourceBase, StepOut
from shopsim.errors import ConfigError, ResetNeeded, SourceError
from shopsim.links import PageUrls
from shopsim.page import Navigation, PageState
from shopsim.translators.sim_pages import SimsiteTranslator

__all__ = ["BROWSER_ARGS", "BrowserSource", "EpisodeRecorder", "find_browser", "playwright_ffmpeg"]

BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    # Re-raster a changed tile whole: partial raster left 1-level differences on anti-aliased
    # rounded corners between two screenshots of the same page (about 1 in 50 runs).
    "--disable-partial-raster",
]


def find_browser(explicit: str | os.PathLike[str] | None = None) -> str | None:
    """A Chromium to launch: the explicit path, then Playwright's own (None = let it pick), then the system one.

    Returns the executable path, or None when Playwright's bundled browser should be used.
    """
    if explicit is not None:
        if not Path(explicit).exists():
            raise ConfigError(f"browser not found at {explicit}")
        return str(explicit)
    cache = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")
    if cache != "0" and any(Path(cache).glob("chromium*/chrome-linux*/chrome")):
        return None
    for path in ("/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium") or ""):
        if path and Path(path).exists():
            return path
    raise ConfigError("no Chromium found: pass executable_path, run `playwright install chromium`, or install chromium")


def playwright_ffmpeg() -> Path | None:
    """The ffmpeg Playwright records videos with, where its registry looks for it; None when absent.

    Debian's chromium package brings no ffmpeg, and Playwright only reports the missing binary when
    a recording page opens; checking first turns that into one clear ConfigError.
    """
    import json
    import sys

    import playwright

    package = Path(playwright.__file__).parent / "driver" / "package"
    try:
        meta = json.loads((package / "browsers.json").read_text(encoding="utf-8"))
        revision = next(b["revision"] for b in meta["browsers"] if b["name"] == "ffmpeg")
    except (OSError, ValueError, KeyError, StopIteration):
        return None
    root = os.environ.get("PLAYWRIGHT_BROWSERS_PATH")
    if root == "0":
        base = package / ".local-browsers"
    elif root:
        base = Path(root)
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Caches" / "ms-playwright"
    elif sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home())) / "ms-playwright"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "ms-playwright"
    name = {"darwin": "ffmpeg-mac", "win32": "ffmpeg-win64.exe"}.get(sys.platform, "ffmpeg-linux")
    path = base / f"ffmpeg-{revision}" / name
    return path if path.exists() else None


class _Browser:
    """One Playwright + browser per process (launching Chromium is the slow part)."""

    _instance: _Browser | None = None

    def __init__(self, executable_path: str | None, headless: bool):
        from playwright.sync_api import sync_playwright

        self.pw = sync_playwright().start()
        try:
            self.browser = self.pw.chromium.launch(executable_path=executable_path, headless=headless, args=BROWSER_ARGS)
        except Exception:
            self.pw.stop()
            raise
        self.key = (executable_path, headless)

    @classmethod
    def get(cls, executable_path: str | None, headless: bool) -> _Browser:
        inst = cls._instance
        if inst is None or not inst.browser.is_connected():
            cls._instance = inst = cls(executable_path, headless)
        return inst

    @classmethod
    def shutdown(cls) -> None:
        if cls._instance is not None:
            try:
                cls._instance.browser.close()
            finally:
                cls._instance.pw.stop()
                cls._instance = None


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


class BrowserSource(RecordedEpisodes, SourceBase):
    """Real headless Chromium against a running server; a fresh browser context per episode.

    ``page=`` drives a Playwright page the caller owns instead (no context is created or closed; reset
    navigates it). ``trace=``/``video=`` record each episode (:class:`EpisodeRecorder`;
    ``last_trace``/``last_video`` say where). :meth:`observe` gives the browser observation modes
    (:mod:`shopsim.adapters.browser_obs`) at a fixed ``viewport``.
    """

    def __init__(
        self,
        base_url: str,
        *,
        mode: Literal["url", "click"] = "url",
        executable_path: str | None = None,
        headless: bool = True,
        max_steps: int | None = None,
        timeout_ms: float = 30_000,
        trace: bool | str | os.PathLike[str] = False,
        video: str | os.PathLike[str] | None = None,
        page: Any = None,
        viewport: tuple[int, int] = DEFAULT_VIEWPORT,
    ):
        self.base_url = base_url.rstrip("/")
        self.mode, self.timeout_ms = mode, timeout_ms
        self.translator = SimsiteTranslator()
        self.episode = EpisodeBook(max_steps)
        self.viewport = (int(viewport[0]), int(viewport[1]))
        self.own_page = page is None
        if page is not None and video is not None:
            raise ConfigError("video= records a context the source creates; with page=, create your context "
                              "with record_video_dir yourself")
        if video is not None and playwright_ffmpeg() is None:
            raise ConfigError("video= needs the ffmpeg Playwright records with: run `playwright install ffmpeg`")
        self.context: Any = None if page is None else page.context
        self.page: Any = page
        self.recorder = EpisodeRecorder(trace, video)
        self.observer = PageObserver()
        self.session_id: str | None = None
        self._goal: int | None = None
        self.browser: Any = None
        if page is not None:
            return
        try:
            self.browser = _Browser.get(find_browser(executable_path), headless).browser
        except ConfigError:
            raise
        except Exception as exc:
            raise SourceError(f"could not launch Chromium: {exc}") from exc

    def _absolute(self, url: str) -> str:
        return url if url.startswith(("http://", "https://")) else self.base_url + url

    def _read(self) -> PageState:
        return self.translator.parse(self.page.content(), self.page.url)

    def reset(self, goal_index: int, seed: int = 0) -> PageState:
        """End the previous episode and open a fresh session for goal ``goal_index`` in the browser."""
        from playwright.sync_api import Error as PlaywrightError

        self.end_episode()
        try:
            if self.own_page:
                self.context = self.browser.new_context(**context_options(self.viewport),
                                                        **self.recorder.context_options())
                self.context.set_default_timeout(self.timeout_ms)
                self.page = self.context.new_page()
            else:
                self.page.set_viewport_size({"width": self.viewport[0], "height": self.viewport[1]})
            self.recorder.start(self.context)
            self.session_id, self._goal = f"fixed_{goal_index}_{uuid.uuid4().hex[:12]}", goal_index
            self.page.goto(f"{self.base_url}/{self.session_id}")
            return self.episode.start(self._checked(self._read()))
        except PlaywrightError as exc:
            raise SourceError(f"browser reset failed: {exc}") from exc

    def observe(self, mode: BrowserMode) -> BrowserObservation:
        """The current page as a browser observation (``screenshot``, ``axtree``, ``som``, ``dom``).

        The episode's session id reads as ``fixed_<goal>`` in text (WebShop's session name), so the
        same seed and actions give the same text on every run.
        """
        if self.episode.state is None or self.page is None:
            raise ResetNeeded("observe")
        redact = {self.session_id: f"fixed_{self._goal}"} if self.session_id else None
        return self.observer.observe(self.page, self.episode.state, mode, redact=redact)

    def _checked(self, state: PageState) -> PageState:
        if state.page_type == "unknown":
            raise SourceError(f"browser landed on an unreadable page {self.page.url}: {state.reason}")
        return state

    def step(self, action: str) -> StepOut:
        """Carry out ``action`` in the browser (by URL or by clicking) and read the page it leads to."""
        from playwright.sync_api import Error as PlaywrightError

        nav = self.episode.navigation(self.translator, action)
        if not isinstance(nav, Navigation):
            return nav
        try:
            if self.mode == "click":
                self._click(nav)
            else:
                self._goto(nav)
            return self.episode.landed(self._checked(self._read()))
        except PlaywrightError as exc:
            raise SourceError(f"browser step {action!r} failed: {exc}") from exc

    def _goto(self, nav: Navigation) -> None:
        url = nav.url or ""
        if nav.kind == "form" and nav.form.get("search_query") is not None:
            # a GET cannot carry the form; WebShop's form posts and redirects to the results URL
            state = self.episode.state
            assert state is not None
            links = PageUrls(state)
            links.keywords, links.page = nav.form["search_query"].split(" "), 1
            url = links.results(1)
        self.page.goto(self._absolute(url))

    def _click(self, nav: Navigation) -> None:
        page = self.page
        if nav.kind == "form" and "search_query" in nav.form:
            page.fill("#search_input", nav.form["search_query"])
            with page.expect_navigation():
                page.click("button.search-btn")
            return
        if not nav.selector or page.locator(nav.selector).count() == 0:
            # Click mode must click the real element: a missing one is a broken page, not a detour.
            raise SourceError(f"click mode: no element matches {nav.selector!r} on {page.url}")
        with page.expect_navigation():
            page.locator(nav.selector).first.click()

    def end_episode(self) -> None:
        """Finish the episode now: save its trace and video, close an owned context (reset and close do this)."""
        self.observer.detach()
        if not self.own_page:
            with contextlib.suppress(Exception):  # the caller's page may be gone
                self.recorder.finish(self.context, self.page, owned=False)
            return
        if self.context is not None:
            try:
                self.recorder.finish(self.context, self.page)
            except Exception:  # the browser may already be gone; the context is lost either way
                with contextlib.suppress(Exception):
                    self.context.close()
            self.context = self.page = None

    def screenshot(self, path: str | os.PathLike[str]) -> None:
        """Save a screenshot and the page HTML next to it (for failing tests)."""
        if self.page is None:
            return
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(Exception):  # best effort: the page may be gone
            Path(path).with_suffix(".html").write_text(self.page.content(), encoding="utf-8")
            self.page.screenshot(path=str(path), full_page=True)

    def close(self) -> None:
        """End the episode and close the browser, if this source launched it."""
        self.end_episode()
        if not self.own_page:
            self.recorder.stop(self.context)

    @staticmethod
    def shutdown() -> None:
        """Close the process-wide browser (atexit, or the end of a test session)."""
        _Browser.shutdown()
