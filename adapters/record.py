"""Record a browsing session into a bundle (``shopsim record``).

Playwright drives Chromium through a session whose actions come from a file or from an agent. Each
action is resolved with the site's translator, exactly as :class:`ReplaySource` will resolve it
later, so the recorded URL is the one replay looks up: ``goto`` loads the URL, a search fills the
page's search box when it has one, an option with no URL is recorded as a selection (the page stays,
the option shows as chosen, as replay shows it), and ``buy now`` ends the recording without buying
anything. A ``goal`` given to :func:`record_session` is saved in the manifest, so the bundle says
which goal it was recorded for.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from shopsim.adapters.bundle import HAR_NAME, BundleWriter
from shopsim.adapters.replay import navigation_url, translator_for_site, with_selection
from shopsim.errors import ConfigError, SourceError
from shopsim.page import Feedback, PageState
from shopsim.regular_files import read_regular_file
from shopsim.render import render_simple
from shopsim.simsite.models import Goal
from shopsim.translators.clickables import sub_page_view

__all__ = ["SEARCH_BOXES", "RecordResult", "read_actions", "record_session"]

#: An actions file is a few lines; a bigger one is a mistake (a page, a log), refused before it is read.
MAX_ACTIONS_BYTES = 1 << 20

#: (search box, submit button or None = press Enter) per site, tried before a plain ``goto``.
SEARCH_BOXES: dict[str, tuple[str, str | None]] = {
    "simsite": ("#search_input", "button.search-btn"),
    "amazon": ("#twotabsearchtextbox", None),
    "ebay": ("#gh-ac", None),
}


class RecordResult(BaseModel):
    """What a recording produced."""

    bundle: str
    steps: int
    pages: int
    purchased: bool
    har: str | None = None


def read_actions(path: str | Path) -> list[str]:
    """One action per line; blank lines and lines starting with '#' are skipped.

    Only a regular file is read (a FIFO would block the command for ever, a device feed it endlessly).
    """
    try:
        lines = read_regular_file(path, MAX_ACTIONS_BYTES).decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise ConfigError(f"cannot read the actions file {path}: not UTF-8 text (byte {exc.start})") from None
    except OSError as exc:
        raise ConfigError(f"cannot read the actions file {path}: {exc.strerror or exc}") from None
    return [ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")]


class _Recorder:
    def __init__(self, page: Any, site: str, writer: BundleWriter, timeout_ms: float):
        self.page, self.site, self.writer = page, site, writer
        self.translator = translator_for_site(site)
        self.timeout_ms = timeout_ms
        self.state: PageState | None = None
        self.chosen: dict[str, str] = {}
        self._item_state: PageState | None = None  # the item page a sub page was opened from

    def load(self, action: str | None, url: str, search: str | None = None, keep_choice: bool = False) -> PageState:
        """Navigate (typing into the search box for a search), then save the page as a step.

        The options chosen so far stay shown while the product stays the same (or, ``keep_choice``,
        when an option link led to another variant's page), as replay shows them.
        """
        if search is None or not self._search_box(search):
            self.page.goto(url, wait_until="load")
        html = self.page.content()
        self.writer.add_page(action, url, html, final_url=self.page.url)
        state = self.translator.parse(html, self.page.url)  # what replay parses with too
        shown = self.state.product.id if self.state is not None and self.state.product is not None else None
        if state.product is not None and state.product.id != shown and not keep_choice:
            self.chosen = {}
        self.state = with_selection(state, self.chosen) if self.chosen else state
        return self.state

    def _search_box(self, query: str) -> bool:
        box, button = SEARCH_BOXES.get(self.site, ("", None))
        if not box or self.page.locator(box).count() == 0:
            return False
        self.page.fill(box, query)
        with self.page.expect_navigation(wait_until="load"):
            if button and self.page.locator(button).count():
                self.page.locator(button).first.click()
            else:
                self.page.press(box, "Enter")
        return True

    def act(self, action: str) -> bool:
        """Apply one action; returns False when the session is over (``buy now``)."""
        assert self.state is not None
        state = self.state
        nav = self.translator.resolve(state, action)
        if nav.kind == "purchase":
            self.writer.add_purchase(action)
            return False
        if nav.kind == "none":
            self.writer.add_refused(action, f"{nav.feedback.code}: {nav.feedback.message}")
            self.state = state.model_copy(update={"feedback": nav.feedback})
            return True
        if nav.kind == "sub_page" and nav.value:
            self.writer.add_view(action, nav.value)
            self._item_state, self.state = state, sub_page_view(state, nav.value)
            return True
        if state.page_type == "item_detail" and self._item_state is not None and nav.kind == "none" \
                and action.strip().lower() == "click[< prev]":
            self.state, self._item_state = self._item_state, None  # back from a sub page to its item page
            return True
        if nav.kind == "select":
            self.writer.add_select(action, nav.axis, nav.value)
            if state.product is not None and nav.axis and nav.value:
                self.chosen[nav.axis] = nav.value
                self.state = with_selection(state, self.chosen)
            return True
        url = navigation_url(state, nav)
        if url is None:
            self.writer.add_refused(action, "navigation_failed: the action resolved to no URL")
            self.state = state.model_copy(update={"feedback": Feedback(code="navigation_failed")})
            return True
        search = nav.form.get("search_query") if nav.kind == "form" else None
        if search is None and action.strip().lower().startswith("search[") and self.site != "simsite":
            search = action.strip()[7:-1]
        if nav.axis and nav.value:
            self.chosen[nav.axis] = nav.value
        self.load(action, url, search, keep_choice=bool(nav.axis))
        return True


def record_session(
    start_url: str,
    out: str | Path,
    *,
    site: str,
    actions: list[str] | None = None,
    agent: Any = None,
    instruction: str | None = None,
    har: bool = False,
    max_steps: int = 15,
    executable_path: str | None = None,
    headless: bool = True,
    timeout_ms: float = 30_000,
    recorder_note: str | None = None,
    goal: Goal | None = None,
) -> RecordResult:
    """Drive Chromium from ``start_url`` with ``actions`` (or ``agent``) and write a bundle to ``out``."""
    from playwright.sync_api import Error as PlaywrightError

    from shopsim.adapters import browser_source as sources

    if (actions is None) == (agent is None):
        raise ConfigError("record needs exactly one of: an actions file, or an agent")
    if site not in SEARCH_BOXES:
        raise ConfigError(f"unknown site {site!r}: use amazon, ebay or simsite")
    out = Path(out)
    if goal is not None and instruction is None:
        instruction = goal.instruction_text
    writer = BundleWriter(out, site=site, start_url=start_url, instruction=instruction, recorder=recorder_note,
                          goal=goal)
    path = sources.find_browser(executable_path)
    try:
        browser = sources._Browser.get(path, headless).browser
    except Exception as exc:
        raise SourceError(f"could not launch Chromium to record: {exc}") from exc
    har_path = out / HAR_NAME if har else None
    context = browser.new_context(record_har_path=str(har_path) if har_path else None,
                                  service_workers="block")
    context.set_default_timeout(timeout_ms)
    purchased = False
    try:
        rec = _Recorder(context.new_page(), site, writer, timeout_ms)
        state = rec.load(None, start_url)
        if writer.manifest.instruction is None:
            writer.manifest.instruction = state.instruction
        if agent is not None:
            agent.reset(seed=0)
        todo = list(actions or [])
        for _ in range(max_steps):
            assert rec.state is not None
            if agent is None:
                if not todo:
                    break
                action = todo.pop(0)
            else:
                shown = rec.state
                if writer.manifest.instruction is not None:
                    shown = shown.model_copy(update={"instruction": writer.manifest.instruction})
                info = {"page_state": shown, "valid_actions": shown.valid_actions(), "feedback": shown.feedback,
                        "instruction": shown.instruction, "reward_info": None}
                action = agent.act(render_simple(shown), shown.valid_actions(), info)
            if not rec.act(action):
                purchased = True
                break
    except PlaywrightError as exc:
        raise SourceError(f"recording failed at step {len(writer.manifest.steps)}: {exc}") from exc
    finally:
        with contextlib.suppress(Exception):
            context.close()  # writes the HAR
    writer.finish(har=HAR_NAME if har_path is not None and har_path.exists() else None)
    pages = sum(1 for s in writer.manifest.steps if s.kind == "load")
    return RecordResult(bundle=str(out), steps=len(writer.manifest.steps), pages=pages, purchased=purchased,
                        har=str(har_path) if har_path is not None and har_path.exists() else None)
