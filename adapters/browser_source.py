"""``BrowserSource``: real headless Chromium against a running shop, with traces, video and
browser observations; and how shopsim finds and shares one Chromium per process.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, Literal

from shopsim.adapters import browser_input
from shopsim.adapters.browser_obs import DEFAULT_VIEWPORT, BrowserMode, BrowserObservation, PageObserver
from shopsim.adapters.browser_page import EpisodePage, EpisodeRecorder, RecordedEpisodes
from shopsim.adapters.source_base import EpisodeBook, SourceBase, StepOut
from shopsim.errors import ConfigError, ResetNeeded, SourceError
from shopsim.links import PageUrls
from shopsim.page import Navigation, PageState
from shopsim.translators.sim_pages import SimsiteTranslator

__all__ = ["BROWSER_ARGS", "TEXT_ONLY_ARGS", "BrowserSource", "find_browser", "playwright_ffmpeg", "shared_playwright"]

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

#: Added for a headless browser whose pages are only read, never looked at (``assets=False``): no
#: frame is ever drawn (begin frames come only over the protocol, which nothing sends, and
#: compositing stays on the renderer's main thread). The DOM, layout, hit-testing and input are the
#: same; Chromium's CPU for a url-mode rule-agent episode falls by about a third (docs/benchmarks.md).
#: (``--blink-settings=imagesEnabled=false`` would be lost: the headless shell sets its own
#: ``--blink-settings``, and the last one wins.)
TEXT_ONLY_ARGS = [
    "--enable-begin-frame-control",
    "--disable-threaded-compositing",
]


#: The document as ``page.content()`` serializes it (doctype, then the root's outer HTML) and its URL.
_READ_JS = """() => [(document.doctype ? new XMLSerializer().serializeToString(document.doctype) : '')
  + (document.documentElement ? document.documentElement.outerHTML : ''), location.href]"""


def find_browser(explicit: str | os.PathLike[str] | None = None, *, headless: bool = True) -> str | None:
    """A Chromium to launch: the explicit path, then Playwright's own (None = let it pick), then the system one.

    Headless, Debian's ``chromium-headless-shell`` comes before its ``chromium``: the same Blink without
    the desktop browser's profile services, it takes about half the CPU per page load (Playwright
    itself launches its own headless shell, where installed, for a headless launch).
    Returns the executable path, or None when Playwright's bundled browser should be used.
    """
    if explicit is not None:
        if not Path(explicit).exists():
            raise ConfigError(f"browser not found at {explicit}")
        return str(explicit)
    cache = os.environ.get("PLAYWRIGHT_BROWSERS_PATH") or str(Path.home() / ".cache" / "ms-playwright")
    if cache != "0" and any(Path(cache).glob("chromium*/chrome-linux*/chrome")):
        return None
    shell = ("/usr/bin/chromium-headless-shell",) if headless else ()
    for path in (*shell, "/usr/bin/chromium", "/usr/bin/chromium-browser", shutil.which("chromium") or ""):
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
    """One Playwright per process and one browser per (executable, headless, text_only): launching is the slow part.

    ``text_only`` (headless only) launches with :data:`TEXT_ONLY_ARGS`: a browser whose pages are never drawn.
    """

    _playwright: Any = None
    _instances: ClassVar[dict[tuple[str | None, bool, bool], _Browser]] = {}
    _on_stop: ClassVar[list[Callable[[], None]]] = []

    def __init__(self, executable_path: str | None, headless: bool, text_only: bool = False):
        args = BROWSER_ARGS + TEXT_ONLY_ARGS if text_only else BROWSER_ARGS
        self.browser = type(self)._playwright.chromium.launch(executable_path=executable_path, headless=headless,
                                                              args=args)
        self.key = (executable_path, headless, text_only)

    @classmethod
    def get(cls, executable_path: str | None, headless: bool, text_only: bool = False) -> _Browser:
        key = (executable_path, headless, text_only and headless)
        inst = cls._instances.get(key)
        if inst is None or not inst.browser.is_connected():
            cls.playwright()
            try:
                inst = cls._instances[key] = cls(*key)
            except Exception:
                if not cls._instances:
                    cls._stop()
                raise
        return inst

    @classmethod
    def playwright(cls) -> Any:
        """The process's sync Playwright, started on first use."""
        if cls._playwright is None:
            from playwright.sync_api import sync_playwright

            cls._playwright = sync_playwright().start()
        return cls._playwright

    @classmethod
    def shutdown(cls) -> None:
        try:
            for inst in cls._instances.values():
                with contextlib.suppress(Exception):  # already gone
                    inst.browser.close()
        finally:
            cls._instances.clear()
            cls._stop()

    @classmethod
    def _stop(cls) -> None:
        if cls._playwright is not None:
            for forget in cls._on_stop:  # harnesses that hold it let go first
                forget()
            cls._playwright.stop()
            cls._playwright = None


def shared_playwright(on_stop: Callable[[], None] | None = None) -> Any:
    """The sync Playwright that ``BrowserSource`` uses in this process, for another harness to share.

    Playwright's sync API allows one instance per thread while it runs (a second start fails with "Sync
    API inside the asyncio loop"), so a harness in the same process (BrowserGym's tasks) drives its
    browsers through this one. ``on_stop`` runs before :meth:`BrowserSource.shutdown` stops it.
    """
    if on_stop is not None and on_stop not in _Browser._on_stop:
        _Browser._on_stop.append(on_stop)
    return _Browser.playwright()


class BrowserSource(RecordedEpisodes, SourceBase):
    """Real headless Chromium against a running server; one context and page, cleared between episodes.

    ``reuse_context=False`` opens a fresh context per episode instead (as recording ``video=`` does:
    :class:`~shopsim.adapters.browser_page.EpisodePage` says what is cleared). A navigation waits
    for ``wait_until`` (the DOM, which is all a page's state needs; ``"load"`` also waits for its
    images); :meth:`observe` and :meth:`screenshot` wait for the whole page first. ``assets=False``
    blocks the shop's stylesheet and images (all of ``/static/``): for text observations only (the
    page's state is the same), and :meth:`observe` then refuses; headless and without ``trace=``
    or ``video=``, it also runs in a browser that never draws (``text_only``, :data:`TEXT_ONLY_ARGS`:
    Playwright's screenshots and its locator actions, which wait for drawn frames, would time
    out there; the source's own reads and clicks do not wait for any). ``page=`` drives a Playwright page the caller owns instead (no
    context is created or closed; reset navigates it). ``trace=``/``video=`` record each episode
    (:class:`EpisodeRecorder`; ``last_trace``/``last_video`` say where). :meth:`observe` gives the
    browser observation modes (:mod:`shopsim.adapters.browser_obs`) at a fixed ``viewport``.
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
        reuse_context: bool = True,
        assets: bool = True,
        wait_until: Literal["domcontentloaded", "load"] = "domcontentloaded",
    ):
        self.base_url = base_url.rstrip("/")
        self.mode, self.timeout_ms, self.wait_until, self.assets = mode, timeout_ms, wait_until, assets
        self.translator = SimsiteTranslator()
        self.episode = EpisodeBook(max_steps)
        self.viewport = (int(viewport[0]), int(viewport[1]))
        if page is not None and video is not None:
            raise ConfigError("video= records a context the source creates; with page=, create your context "
                              "with record_video_dir yourself")
        if page is not None and not assets:
            raise ConfigError("assets=False blocks requests in a context the source creates; with page=, "
                              "route your own context")
        if video is not None and playwright_ffmpeg() is None:
            raise ConfigError("video= needs the ffmpeg Playwright records with: run `playwright install ffmpeg`")
        self.context: Any = None if page is None else page.context
        self.page: Any = page
        self.recorder = EpisodeRecorder(trace, video)
        self.observer = PageObserver()
        self.session_id: str | None = None
        self._goal: int | None = None
        self.browser: Any = None
        self.pages: EpisodePage | None = None
        # nothing is drawn unless something looks: an observation, a trace's screenshots, a video
        self.text_only = headless and not assets and page is None and not trace and video is None
        if page is not None:
            return
        try:
            self.browser = _Browser.get(find_browser(executable_path, headless=headless), headless,
                                        text_only=self.text_only).browser
        except ConfigError:
            raise
        except Exception as exc:
            raise SourceError(f"could not launch Chromium: {exc}") from exc
        self.pages = EpisodePage(self.browser, self.recorder, viewport=self.viewport, timeout_ms=timeout_ms,
                                 reuse=reuse_context, assets=assets)

    def _absolute(self, url: str) -> str:
        return url if url.startswith(("http://", "https://")) else self.base_url + url

    def _read(self) -> PageState:
        """The page's state from its DOM and URL, in one main-world call.

        ``page.content()`` gives the same string but first injects Playwright's selector engine
        into each new document (about twice the time of the whole read).
        """
        html, url = self.document()
        return self.translator.parse(html, url)

    def document(self) -> tuple[str, str]:
        """The page's HTML as the browser holds it now, and its URL (what a skin's read-back reads)."""
        if self.page is None:
            raise ResetNeeded("document")
        html, url = self.page.evaluate(_READ_JS)
        return html, url

    def reset(self, goal_index: int, seed: int = 0) -> PageState:
        """End the previous episode and open a fresh session for goal ``goal_index`` in the browser."""
        from playwright.sync_api import Error as PlaywrightError

        self.end_episode()
        try:
            self.session_id, self._goal = f"fixed_{goal_index}_{uuid.uuid4().hex[:12]}", goal_index
            first = f"{self.base_url}/{self.session_id}"
            if self.pages is not None:
                self.page = self.pages.open(first, self.wait_until)
                self.context = self.pages.context
            else:
                self.page.set_viewport_size({"width": self.viewport[0], "height": self.viewport[1]})
                self.recorder.start(self.context)
                self.page.goto(first, wait_until=self.wait_until)
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
        if not self.assets:
            raise ConfigError(f"observe({mode!r}) reads the page as it is drawn: BrowserSource(assets=True)")
        self._loaded()
        redact = {self.session_id: f"fixed_{self._goal}"} if self.session_id else None
        return self.observer.observe(self.page, self.episode.state, mode, redact=redact)

    def _loaded(self) -> None:
        """Wait for the whole page (images, stylesheets): what is drawn, not only the DOM."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            self.page.wait_for_load_state("load")
        except PlaywrightError as exc:
            raise SourceError(f"browser page {self.page.url} did not finish loading: {exc}") from exc

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
        self.page.goto(self._absolute(url), wait_until=self.wait_until)

    def _click(self, nav: Navigation) -> None:
        """Type and click as a user would (:mod:`shopsim.adapters.browser_input`): the real element or an error."""
        if nav.kind == "form" and "search_query" in nav.form:
            browser_input.fill(self.page, "#search_input", nav.form["search_query"])
            browser_input.click(self.page, "button.search-btn", self.wait_until)
            return
        if not nav.selector:
            raise SourceError(f"click mode: no element for {nav.kind!r} on {self.page.url}")
        browser_input.click(self.page, nav.selector, self.wait_until)

    def end_episode(self) -> None:
        """Finish the episode now: save its trace and video, close a context not kept (reset and close do this)."""
        if self.pages is None:
            self.observer.detach()
            with contextlib.suppress(Exception):  # the caller's page may be gone
                self.recorder.finish(self.context, self.page, owned=False)
            return
        self.pages.finish()
        if self.pages.page is not self.page:  # closed: its CDP session went with it
            self.observer.detach()
        self.context, self.page = self.pages.context, self.pages.page

    def screenshot(self, path: str | os.PathLike[str]) -> None:
        """Save a screenshot and the page HTML next to it (for failing tests).

        The HTML alone when :attr:`text_only`: that browser draws nothing to capture.
        """
        if self.page is None:
            return
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(Exception):  # best effort: the page may be gone
            self.page.wait_for_load_state("load")
            Path(path).with_suffix(".html").write_text(self.page.content(), encoding="utf-8")
            if not self.text_only:
                self.page.screenshot(path=str(path), full_page=True)

    def close(self) -> None:
        """End the episode and close the source's context (the process-wide browser stays open)."""
        self.end_episode()
        self.observer.detach()
        if self.pages is None:
            self.recorder.stop(self.context)
            return
        self.pages.close()
        self.context = self.page = None

    @staticmethod
    def shutdown() -> None:
        """Close the process-wide browser (atexit, or the end of a test session)."""
        _Browser.shutdown()
