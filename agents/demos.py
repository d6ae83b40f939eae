"""Imitation-learning data from session logs (WebShop's ``user_session_logs`` format, ours or its MTurk ones).

A log holds the pages a person visited, not the actions: the action is read from each pair of
consecutive pages (results page 1 -> 2 is ``click[next >]``, an item page -> the same item with one
more option is ``click[<value>]``, ...). A page reloaded is no step; a move no single action makes
(the browser's back button, a typed URL) is counted as a jump and gives no step either. Each page
with an action is rendered again on a catalog (our text observation and valid actions, as an agent
would have seen it), so a step carries its state, the actions available and the chosen one's index.
A page the catalog cannot show as it was (a product it lacks, other search results than the log's)
keeps its action but no state, and says why.

Records, one JSON object a line, tagged by ``type`` (shapes follow WebShop's ``baseline_models``):
``episode`` (one per log file), ``step`` (per action), ``search`` (instruction -> query, what its
search IL trains on: ``goal_query_map``) and ``choice`` (state, actions, label: what its choice IL
trains on, with its text clean-up; search steps, index -1 there, are not choices).
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import unquote, urlsplit

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from shopsim.errors import DataError
from shopsim.render import render_rich, render_simple
from shopsim.routes import BadRequest, parse_route
from shopsim.simsite.goals import SPLITS
from shopsim.simsite.models import Goal
from shopsim.simsite.session import ShopSession
from shopsim.simsite.session_log import LogLine
from shopsim.simsite.shop import Shop

__all__ = ["ChoiceRecord", "DemoRecord", "EpisodeRecord", "Nav", "SearchRecord", "StepRecord", "clean_text",
           "demo_records", "episode", "goal_split", "goal_text", "infer_action", "load_goal_indices", "log_files",
           "nav_of", "read_log", "record_adapter", "same_page"]

StateFormat = Literal["text", "text_rich"]


class EpisodeRecord(BaseModel):
    """One session: its goal, how many steps it gave, and what it bought."""

    type: Literal["episode"] = "episode"
    session_id: str
    source: str
    instruction: str
    goal_index: int | None = None
    split: str | None = None
    steps: int
    searches: int
    reloads: int
    jumps: int
    unrendered: int
    purchased: bool
    asin: str | None = None
    options: dict[str, str] = Field(default_factory=dict)
    reward: float | None = None


class StepRecord(BaseModel):
    """One action: the page's state, its available actions, the action and its index (-1: a search)."""

    type: Literal["step"] = "step"
    session_id: str
    step: int
    page: str
    url: str
    state: str | None
    available_actions: list[str] | None
    action: str
    action_idx: int | None
    note: str | None = None


class SearchRecord(BaseModel):
    """An instruction and the query typed for it (``goal`` and ``query`` cleaned as WebShop's search IL does)."""

    type: Literal["search"] = "search"
    session_id: str
    instruction: str
    goal: str
    query: str
    goal_index: int | None = None
    split: str | None = None


class ChoiceRecord(BaseModel):
    """A click with its state and the actions to choose from (cleaned as WebShop's choice IL does)."""

    type: Literal["choice"] = "choice"
    session_id: str
    step: int
    state: str
    actions: list[str]
    label: int
    goal_index: int | None = None
    split: str | None = None


DemoRecord = Annotated[EpisodeRecord | StepRecord | SearchRecord | ChoiceRecord, Field(discriminator="type")]


def record_adapter() -> TypeAdapter[Any]:
    """Validates one output line back into its record model."""
    return TypeAdapter(DemoRecord)


# ---- reading logs --------------------------------------------------------------------------------
@dataclass(frozen=True)
class Nav:
    """Where a logged URL is: the page and ``ShopSession.show``'s arguments."""

    page: str
    session_id: str
    parts: dict[str, Any] = field(default_factory=dict)

    def get(self, key: str) -> Any:
        """The named part of the record, or None."""
        return self.parts.get(key)


def nav_of(url: str) -> Nav:
    """A logged URL read with the web app's own parser (so every URL it serves reads back)."""
    path = urlsplit(url).path
    segs = path.split("/")[1:]
    if not segs or not segs[0]:
        raise BadRequest(f"no session in URL {url[:120]!r}")
    if len(segs) == 1:
        return Nav("index", unquote(segs[0]))
    parts = parse_route(segs[0], segs[1:])
    return Nav(parts.pop("page"), parts.pop("sid"), parts)


def log_files(directory: str | Path) -> list[Path]:
    """The ``*.jsonl`` session logs of a folder, by name."""
    root = Path(directory)
    if not root.is_dir():
        raise DataError(f"{root}: no such folder of session logs")
    return sorted(p for p in root.glob("*.jsonl") if p.is_file())


def read_log(path: Path) -> list[tuple[LogLine, Nav]]:
    """A session log's lines, each with its parsed URL; a bad line is a DataError naming it."""
    out: list[tuple[LogLine, Nav]] = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataError(f"{path}: cannot read: {exc}") from exc
    for n, text in enumerate(lines, 1):
        if not text.strip():
            continue
        try:
            line = LogLine.model_validate_json(text)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err["loc"]) or "line"
            raise DataError(f"{path}:{n}: not a session-log line: {where}: {err['msg']}") from None
        try:
            nav = nav_of(line.url)
        except BadRequest as exc:
            raise DataError(f"{path}:{n}: URL {line.url[:120]!r}: {exc.message}") from None
        if nav.page != line.page:
            raise DataError(f"{path}:{n}: page {line.page!r} but the URL is a {nav.page} page")
        out.append((line, nav))
    return out


# ---- actions between pages ------------------------------------------------------------------------
def same_page(a: Nav, b: Nav) -> bool:
    """A reload: the same page with the same parts."""
    return a.page == b.page and a.parts == b.parts


def infer_action(prev: Nav, nxt: Nav) -> str | None:
    """The one action on ``prev`` that leads to ``nxt`` in WebShop's site; None when no single action does."""
    kw, page = prev.get("keywords"), prev.get("page_num")
    if nxt.page == "index":
        return "click[back to search]" if prev.page in ("search_results", "item_page", "item_sub_page") else None
    if nxt.page == "search_results":
        if prev.page == "index" and nxt.get("page_num") == 1:
            return f"search[{' '.join(nxt.get('keywords'))}]"
        if prev.page == "search_results" and nxt.get("keywords") == kw:
            step = nxt.get("page_num") - page
            return {1: "click[next >]", -1: "click[< prev]"}.get(step)
        if prev.page == "item_page" and (nxt.get("keywords"), nxt.get("page_num")) == (kw, page):
            return "click[< prev]"
        return None
    same_item = nxt.get("asin") == prev.get("asin") and (nxt.get("keywords"), nxt.get("page_num")) == (kw, page)
    if nxt.page == "item_page":
        if prev.page == "search_results" and (nxt.get("keywords"), nxt.get("page_num")) == (kw, page):
            return f"click[{nxt.get('asin').lower()}]" if not nxt.get("options") else None
        if prev.page == "item_sub_page" and same_item and nxt.get("options") == prev.get("options"):
            return "click[< prev]"
        if prev.page == "item_page" and same_item:
            return _option_click(prev.get("options"), nxt.get("options"))
        return None
    if nxt.page == "item_sub_page" and prev.page == "item_page" and same_item:
        return f"click[{nxt.get('sub_page').lower()}]" if nxt.get("options") == prev.get("options") else None
    if nxt.page == "done" and prev.page == "item_page" and nxt.get("asin") == prev.get("asin"):
        return "click[buy now]" if nxt.get("options") == prev.get("options") else None
    return None


def _option_click(before: dict[str, str], after: dict[str, str]) -> str | None:
    """``click[value]`` when ``after`` is ``before`` with one option chosen or changed."""
    changed = {k: v for k, v in after.items() if before.get(k) != v}
    if len(changed) != 1 or not set(before) <= set(after):
        return None
    return f"click[{next(iter(changed.values())).lower()}]"


# ---- text clean-up as WebShop's baseline_models do it ------------------------------------------------
def clean_text(text: str) -> str:
    """Lower case, no quotes, ``[SEP]`` kept upper case (the choice IL's input clean-up)."""
    return text.lower().replace('"', "").replace("'", "").strip().replace("[sep]", "[SEP]")


def goal_text(instruction: str) -> str:
    """An instruction as WebShop's IL scripts key goals: cleaned, without its price clause."""
    text = instruction.lower().replace('"', "").replace("'", "")
    return text.split(", and price lower than")[0].strip()


def goal_split(index: int | None) -> str | None:
    """The WebShop split (``test``, ``eval``, ``train``: :data:`~shopsim.simsite.goals.SPLITS`) a goal
    index falls in; None without an index (WebShop's baseline trains on 1500+, evaluates on 500-1499).
    """
    if index is None:
        return None
    return next(name for name, (lo, hi) in SPLITS.items() if index >= lo and (hi is None or index < hi))


# ---- rendering the pages again ---------------------------------------------------------------------
def _render(session: ShopSession, line: LogLine, nav: Nav, fmt: StateFormat) -> tuple[str, list[str]] | str:
    """``(state, available actions)`` of a logged page on this catalog, or why it cannot be shown."""
    try:
        result = session.show(nav.page, **nav.parts)  # type: ignore[arg-type]
    except KeyError:
        return f"product {nav.get('asin')} is not in this catalog"
    state = result.state
    logged = (line.content or {}).get("search_result_asins")
    # an empty page past the end tells nothing of the total the person saw, so it is not "the same"
    differs = logged is not None and ([c.id for c in state.results] != logged or (not logged and nav.get("page_num") != 1))
    if nav.page == "search_results" and differs:
        return "this catalog's search results differ from the logged ones"
    text = render_rich(state) if fmt == "text_rich" else render_simple(state)
    if state.has_search_bar:
        return text, []
    return text, [f"click[{c}]" for c in state.valid_actions()["clickables"] if c != "search"]


@dataclass
class _Episode:
    source: Path
    session_id: str
    goal: Goal
    goal_index: int | None
    records: list[BaseModel] = field(default_factory=list)
    steps: int = 0
    searches: int = 0
    reloads: int = 0
    jumps: int = 0
    unrendered: int = 0

    def tags(self) -> dict[str, Any]:
        return {"session_id": self.session_id, "goal_index": self.goal_index, "split": goal_split(self.goal_index)}


def _add_step(ep: _Episode, session: ShopSession, line: LogLine, nav: Nav, action: str, fmt: StateFormat) -> None:
    shown = _render(session, line, nav, fmt)
    state, actions, note = (None, None, shown) if isinstance(shown, str) else (shown[0], shown[1], None)
    idx: int | None = None
    if actions is not None:
        idx = -1 if action.startswith("search[") else (actions.index(action) if action in actions else None)
        if idx is None:
            note = f"{action} is not among this page's actions on this catalog"
    ep.unrendered += state is None
    ep.records.append(StepRecord(session_id=ep.session_id, step=ep.steps, page=nav.page, url=line.url, state=state,
                                 available_actions=actions, action=action, action_idx=idx, note=note))
    if action.startswith("search["):
        ep.searches += 1
        ep.records.append(SearchRecord(instruction=ep.goal.instruction_text, goal=goal_text(ep.goal.instruction_text),
                                       query=clean_text(action[7:-1]), **ep.tags()))
    elif state is not None and actions is not None and idx is not None and idx >= 0:
        ep.records.append(ChoiceRecord(step=ep.steps, state=clean_text(state), actions=[clean_text(a) for a in actions],
                                       label=idx, **ep.tags()))
    ep.steps += 1


def episode(path: Path, shop: Shop, fmt: StateFormat = "text",
            goal_indices: dict[str, int] | None = None) -> list[BaseModel]:
    """The records of one session log: its episode record first, then its steps, searches and choices."""
    rows = read_log(path)
    if not rows:
        return []
    first, first_nav = rows[0]
    try:
        goal = Goal.model_validate(first.goal)
    except ValidationError as exc:
        raise DataError(f"{path}:1: goal: {exc.errors()[0]['msg']}") from None
    index = (goal_indices or {}).get(goal_text(goal.instruction_text))
    ep = _Episode(path, first_nav.session_id, goal, index)
    base = "{0.scheme}://{0.netloc}".format(urlsplit(first.url))
    session = ShopSession(shop, goal, ep.session_id, base_url=base)
    end = next((i for i, (line, _) in enumerate(rows) if line.page == "done"), None)
    bought = rows[end][0] if end is not None else None
    rows = rows[: end + 1] if end is not None else rows  # WebShop logs nothing after a purchase
    for (line, nav), (_, nxt) in itertools.pairwise(rows):
        if same_page(nav, nxt):
            ep.reloads += 1
            continue
        action = infer_action(nav, nxt)
        if action is None:
            ep.jumps += 1
            continue
        _add_step(ep, session, line, nav, action, fmt)
    content = (bought.content or {}) if bought is not None else {}
    head = EpisodeRecord(source=path.name, instruction=goal.instruction_text, steps=ep.steps, searches=ep.searches,
                         reloads=ep.reloads, jumps=ep.jumps, unrendered=ep.unrendered, purchased=bought is not None,
                         asin=content.get("asin"), options=content.get("options") or {},
                         reward=bought.reward if bought is not None else None, **ep.tags())
    return [head, *ep.records]


def demo_records(directory: str | Path, shop: Shop, fmt: StateFormat = "text",
                 goal_indices: dict[str, int] | None = None) -> Iterator[BaseModel]:
    """Every record of every session log in a folder, file by file."""
    files = log_files(directory)
    if not files:
        raise DataError(f"{directory}: no *.jsonl session logs in this folder")
    for path in files:
        yield from episode(path, shop, fmt, goal_indices)


def load_goal_indices(path: str | Path) -> dict[str, int]:
    """WebShop's ``human_goals.json`` (cleaned instructions in goal order) as text -> first index."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise DataError(f"{path}: cannot read a human-goals list: {exc}") from exc
    if not isinstance(data, list) or not all(isinstance(x, str) for x in data):
        raise DataError(f"{path}: expected a JSON list of instruction strings (WebShop's human_goals.json)")
    out: dict[str, int] = {}
    for i, text in enumerate(data):
        out.setdefault(text, i)
    return out
