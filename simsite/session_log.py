"""Session logs in WebShop's ``user_session_logs`` format: one JSONL file per session, one line per page.

WebShop's app (``--log``) writes, per page served, ``{"page", "url", "goal", "content"?, "reward"?,
"reward_info"?}`` into ``<session>.jsonl`` (see ``../shared/data/webshop-small/human_trajectories``,
its recorded MTurk sessions), so a person shopping on our site leaves the same demonstrations. As
in WebShop: a session's file is truncated when the server first sees the session, every page is
one line (written and flushed at once), and nothing more is written for a session after its first
purchase (WebShop drops the session's logger on ``done``). Unlike WebShop, a session id that is not
a plain file name is written under a hashed name (the id stays in each line's URL), so no id can
reach outside the folder, and a failing disk is reported, never turned into a failed page.

:class:`LogLine` reads such lines back (``shopsim data demos``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import threading
from pathlib import Path
from typing import Any, Literal
from urllib.parse import unquote

from pydantic import BaseModel, ConfigDict
from starlette.requests import Request

from shopsim.simsite.goals import goal_dict
from shopsim.simsite.models import Goal
from shopsim.simsite.session import ShopSession

__all__ = ["LOG_PAGES", "LogLine", "SessionLogWriter", "keywords_text", "log_file_name", "page_line",
           "served_url", "session_line"]

LOG_PAGES = ("index", "search_results", "item_page", "item_sub_page", "done")
#: A session id used as its file name as is: no leading dot (hidden files, ``..``), no separators.
_SAFE_NAME = re.compile(r"^[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,127}$")

logger = logging.getLogger("shopsim.session_log")


class LogLine(BaseModel):
    """One line of a session log, as WebShop's app writes it (extra keys, e.g. ``my_thing``, kept)."""

    model_config = ConfigDict(extra="allow")

    page: Literal["index", "search_results", "item_page", "item_sub_page", "done"]
    url: str
    goal: dict[str, Any]
    content: dict[str, Any] | None = None
    reward: float | None = None
    reward_info: dict[str, Any] | None = None


def log_file_name(session_id: str) -> str:
    """``<session>.jsonl`` for a plain id; ``~<sha256 prefix>.jsonl`` for any other (``~`` is in no plain
    id, so no session can choose another's file).
    """
    if _SAFE_NAME.match(session_id):
        return f"{session_id}.jsonl"
    return f"~{hashlib.sha256(session_id.encode('utf-8', 'surrogatepass')).hexdigest()[:24]}.jsonl"


class SessionLogWriter:
    """Writes WebShop-format session logs into one folder (safe for use from several threads)."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        try:
            self.directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            from shopsim.errors import ConfigError

            raise ConfigError(f"--log-dir {self.directory}: cannot create the folder: {exc.strerror or exc}") from exc
        self._started: set[str] = set()
        self._finished: set[str] = set()
        self._lock = threading.Lock()

    def path_for(self, session_id: str) -> Path:
        """Where this session's log goes."""
        return self.directory / log_file_name(session_id)

    def finished(self, session_id: str) -> bool:
        """True once the session's purchase was logged: later pages are not (as in WebShop)."""
        return session_id in self._finished

    def write(self, session_id: str, line: dict[str, Any]) -> bool:
        """Append one page's line (the first line of a session truncates its file); False if not written."""
        text = json.dumps(line, ensure_ascii=True) + "\n"
        with self._lock:
            if session_id in self._finished:
                return False
            first = session_id not in self._started
            flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
            try:
                fd = os.open(self.path_for(session_id), flags | (os.O_TRUNC if first else 0), 0o644)
                try:
                    os.write(fd, text.encode("ascii"))
                finally:
                    os.close(fd)
            except OSError as exc:
                logger.warning("session log %s: cannot write: %s", self.path_for(session_id), exc.strerror or exc)
                return False
            self._started.add(session_id)
            if line.get("page") == "done":
                self._finished.add(session_id)
            return True


def page_line(page: str, url: str, goal: Goal, content: dict[str, Any] | None = None,
              reward: float | None = None, reward_info: dict[str, Any] | None = None) -> dict[str, Any]:
    """One log line in WebShop's key order (``content`` absent on the index page, as in its logs)."""
    line: dict[str, Any] = {"page": page, "url": url, "goal": goal_dict(goal)}
    if content is not None:
        line["content"] = content
    if reward is not None:
        line["reward"], line["reward_info"] = reward, reward_info
    return line


def session_line(session: ShopSession, page: str, url: str, parts: dict[str, Any],
                 keywords_text: str | None = None) -> dict[str, Any]:
    """The line for ``page``, which ``session`` now shows, from the URL's parts (``ShopSession.show``'s arguments).

    ``content`` holds what WebShop's app logs: keywords (a list on results pages; on item pages the
    URL's keywords segment as text, as WebShop passes it on), result ASINs, page, ASIN, options,
    and on ``done`` the price, with the reward and WebShop's ``reward_info``.
    """
    keywords = list(parts.get("keywords") or [])
    if page == "index":
        return page_line("index", url, session.goal)
    if page == "search_results":
        asins = [card.id for card in session.state.results]
        return page_line(page, url, session.goal, {"keywords": keywords, "search_result_asins": asins,
                                                   "page": parts.get("page_num", 1)})
    if page == "done":
        asin = parts["asin"]
        info = session.breakdown.webshop_info() if session.breakdown is not None else {}
        reward = session.breakdown.reward if session.breakdown is not None else 0.0
        content = {"asin": asin, "options": dict(parts.get("options") or {}), "price": session.shop.prices[asin]}
        return page_line("done", url, session.goal, content, reward, info)
    text = keywords_text if keywords_text is not None else str(keywords)
    content = {"keywords": text, "page": str(parts.get("page_num", 1)), "asin": parts["asin"],
               "options": dict(parts.get("options") or {})}
    return page_line(page, url, session.goal, content)


def served_url(request: Request) -> str:
    """The URL as the client sent it (still percent-encoded, as WebShop's logs hold it)."""
    raw = request.scope.get("raw_path")
    path = raw.decode("latin-1") if isinstance(raw, bytes) and raw else request.url.path
    query = request.scope.get("query_string", b"").decode("latin-1")
    return f"{str(request.base_url).rstrip('/')}{path}" + (f"?{query}" if query and "?" not in path else "")


def keywords_text(route: str, segs: list[str]) -> str | None:
    """An item page URL's keywords segment as text (what WebShop logs); None when it spans segments."""
    if (route, len(segs)) in (("item_page", 5), ("item_sub_page", 6)):
        return unquote(segs[2])
    return None
