"""A screenshot of a PageState without a server: its HTML rendered in headless Chromium.

For harnesses that play episodes in process (the MCP server) but still want to show a model the
page. The page loads from a private origin that Playwright answers itself (the page's HTML, and the
shop's stylesheet from the package), so nothing listens on a port. All Playwright calls run on one
worker thread: Playwright's sync API belongs to the thread that started it, and an asyncio server
must not block its loop on a capture.
"""

from __future__ import annotations

import concurrent.futures
from pathlib import Path
from typing import Any

from shopsim.adapters.browser_obs import context_options
from shopsim.adapters.browser_source import find_browser
from shopsim.adapters.screenshots import capture_png
from shopsim.errors import SourceError
from shopsim.page import PageState
from shopsim.simsite.html import render_html

__all__ = ["ORIGIN", "PageSnapshotter"]

#: Where the rendered page pretends to live; requests to it never leave Playwright.
ORIGIN = "http://shopsim.invalid"
_STATIC = Path(__file__).resolve().parents[1] / "simsite" / "static"
#: A viewport a chat client shows whole: WebShop's pages fit in 1280x1024 from the top.
VIEWPORT = (1280, 1024)


class PageSnapshotter:
    """PNG screenshots of PageStates; the browser starts on the first capture and stops on ``close``."""

    def __init__(self, executable_path: str | None = None, viewport: tuple[int, int] = VIEWPORT):
        self._explicit, self.viewport = executable_path, viewport
        self._pool = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="shopsim-snapshot")
        self._pw: Any = None
        self._page: Any = None
        self._cdp: Any = None
        self._html = ""

    def submit(self, state: PageState) -> concurrent.futures.Future[bytes]:
        """Capture ``state`` on the worker thread; the future holds the PNG bytes."""
        return self._pool.submit(self._capture, render_html(state))

    def _capture(self, html: str) -> bytes:
        if self._page is None:
            self._start()
        self._html = html
        self._page.goto(f"{ORIGIN}/page", wait_until="load")
        png, _ = capture_png(self._page, self._cdp)
        return png

    def _start(self) -> None:
        """Start Playwright and Chromium; on failure stop Playwright again (a second ``start`` in this thread
        would fail with "Sync API inside the asyncio loop") and say why in one line (the MCP tool error).
        """
        from playwright.sync_api import Error as PlaywrightError
        from playwright.sync_api import sync_playwright

        pw = sync_playwright().start()
        try:
            browser = pw.chromium.launch(executable_path=find_browser(self._explicit, headless=True), headless=True)
        except PlaywrightError as exc:
            pw.stop()
            raise SourceError(f"headless Chromium did not start: {str(exc).strip().splitlines()[0][:200]}") from None
        self._pw = pw
        context = browser.new_context(**context_options(self.viewport))
        context.route(f"{ORIGIN}/**", self._answer)
        context.route(lambda url: not url.startswith(ORIGIN), lambda route: route.abort())
        self._page = context.new_page()
        self._cdp = context.new_cdp_session(self._page)

    def _answer(self, route: Any) -> None:
        path = route.request.url[len(ORIGIN):].split("?", 1)[0]
        if path.startswith("/static/"):
            file = (_STATIC / path[len("/static/"):]).resolve()
            if file.is_file() and file.parent == _STATIC:
                route.fulfill(path=str(file))
                return
        elif path == "/page":
            route.fulfill(status=200, content_type="text/html; charset=utf-8", body=self._html)
            return
        route.fulfill(status=404, body="")

    def close(self) -> None:
        """Stop the browser and the worker thread."""
        def stop() -> None:
            if self._pw is not None:
                self._pw.stop()
                self._pw = self._page = self._cdp = None
        try:
            self._pool.submit(stop).result(timeout=30)
        finally:
            self._pool.shutdown(wait=False)
