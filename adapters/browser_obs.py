"""Browser observations of a live Playwright page: ``screenshot``, ``axtree``, ``som`` and ``dom``.

Every mode marks the page's clickables with the same ids: a clickable's id is its 1-based position in
``PageState.clickables``, whose order the translator fixes from the page (WebShop's order), so a page
gets the same ids on every run and every id is an action the env accepts. ``[3]`` in ``axtree``, box
3 in ``som`` and ``bid="3"`` in ``dom`` all mean ``element_actions["3"]``, e.g. ``"click[buy now]"``.
Elements are found by ``Clickable.selector`` (or, for a link without one, its ``url``) and tagged
with a ``data-shopsim-id`` attribute; a clickable with no element on the page keeps its id and is
listed after the text observations, so the text modes name every valid action.

The accessibility tree comes from CDP ``Accessibility.getFullAXTree``, mapped to the marked elements
by backend node id (Chromium, any Playwright since our floor 1.44): ``page.accessibility`` is
deprecated, and ``aria_snapshot`` (1.49+) names no elements; its ``mode="ai"`` refs are Playwright's
own numbering, with no way back from an element to its ref.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from shopsim.adapters.screenshots import capture_png
from shopsim.errors import SourceError
from shopsim.page import PageState

__all__ = [
    "BROWSER_MODES",
    "DEFAULT_VIEWPORT",
    "MARK_ATTR",
    "BrowserMode",
    "BrowserObservation",
    "PageObserver",
    "action_for_id",
    "context_options",
    "element_actions",
]

BrowserMode = Literal["screenshot", "axtree", "som", "dom"]
BROWSER_MODES: tuple[str, ...] = get_args(BrowserMode)
#: Width and height in CSS pixels (device scale factor 1) of every screenshot: wide enough for the
#: sim's 960px column, tall enough for a whole ten-result page (about 1,970px), as VisualWebArena's.
DEFAULT_VIEWPORT: tuple[int, int] = (1280, 2048)
MARK_ATTR = "data-shopsim-id"


def context_options(viewport: tuple[int, int] = DEFAULT_VIEWPORT) -> dict[str, Any]:
    """``browser.new_context(**...)`` keywords that make screenshots repeatable: fixed size, scale 1."""
    return {"viewport": {"width": viewport[0], "height": viewport[1]}, "device_scale_factor": 1,
            "reduced_motion": "reduce", "color_scheme": "light", "locale": "en-US", "timezone_id": "UTC"}


def element_actions(state: PageState) -> dict[str, str]:
    """``{"1": "click[back to search]", ...}``: each clickable's id and action; the search box is ``search[]``."""
    return {str(i): "search[]" if c.kind == "search" else f"click[{c.arg}]"
            for i, c in enumerate(state.clickables, start=1)}


def action_for_id(info: Mapping[str, Any], element_id: str | int, query: str | None = None) -> str:
    """The action for an element id, from an env ``info`` (or its ``element_actions``).

    Example:
        >>> action_for_id(info, 3)                                    # doctest: +SKIP
        'click[buy now]'
        >>> action_for_id(info, 1, query="red shoes")                 # doctest: +SKIP
        'search[red shoes]'

    Raises:
        KeyError: no element has that id on this page.
        ValueError: the id is the search box and no ``query`` was given.
    """
    actions = info.get("element_actions", info)
    key = str(element_id).strip("[] ")
    if key not in actions:
        raise KeyError(f"no element [{key}] on this page; ids: {', '.join(actions) or 'none'}")
    action = str(actions[key])
    if action == "search[]":
        if not query:
            raise ValueError(f"element [{key}] is the search box: pass query=...")
        return f"search[{query}]"
    return action


@dataclass(frozen=True)
class BrowserObservation:
    """One browser observation: ``text`` (axtree, dom) or ``png`` (screenshot, som), and the id map."""

    mode: BrowserMode
    text: str | None = None
    png: bytes | None = None
    element_actions: dict[str, str] = field(default_factory=dict)
    shown: tuple[str, ...] = ()
    """The ids this observation shows on an element (the rest are listed after the text, or not drawn)."""
    state: PageState | None = None
    """The page's state as the observation reads it (``redact`` applied to its URLs)."""
    boxes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """``som``: per id, ``(left, top, right, bottom)`` of its box, then of its number tag, in pixels."""


_MARK_JS = """([attr, items]) => {
  for (const el of document.querySelectorAll('[' + attr + ']')) el.removeAttribute(attr);
  const found = [];
  for (const [id, selector, url] of items) {
    let el = null;
    if (selector) { try { el = document.querySelector(selector); } catch (e) { el = null; } }
    if (!el && url) {
      let want = null;
      try { want = new URL(url, document.baseURI).href; } catch (e) { want = null; }
      if (want) el = Array.from(document.querySelectorAll('a[href]')).find((a) => a.href === want) || null;
    }
    if (!el || el.hasAttribute(attr)) continue;
    el.setAttribute(attr, id);
    found.push(id);
  }
  return found;
}"""

_DOM_JS = """(attr) => {
  const KEEP = new Set(['id', 'class', 'href', 'name', 'value', 'type', 'alt', 'data-action']);
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'head', 'base', 'svg',
    'iframe', 'object', 'embed', 'canvas']);
  const VOID = new Set(['area', 'br', 'col', 'hr', 'img', 'input', 'source', 'track', 'wbr']);
  const INLINE = new Set(['a', 'abbr', 'b', 'bdi', 'bdo', 'br', 'button', 'cite', 'code', 'data', 'dfn', 'em',
    'i', 'img', 'input', 'kbd', 'label', 'mark', 'q', 's', 'samp', 'small', 'span', 'strong', 'sub', 'sup',
    'time', 'u', 'var', 'wbr']);
  const KEEP_EMPTY = new Set(['a', 'button', 'input', 'img', 'select', 'textarea', 'option', 'br', 'hr']);
  const text = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const quoted = (s) => '"' + text(s).replace(/"/g, '&quot;') + '"';
  const shown = [];
  const walk = (node) => {
    if (node.nodeType === 3) {
      const t = node.data.replace(/\\s+/g, ' ');
      return t.trim() ? text(t) : '';
    }
    if (node.nodeType !== 1) return '';
    const tag = node.localName;
    if (SKIP.has(tag) || (tag === 'input' && (node.getAttribute('type') || '').toLowerCase() === 'hidden')) return '';
    if (node.hidden) return '';
    const cs = getComputedStyle(node);
    if (cs.display === 'none' || cs.visibility === 'hidden' || cs.visibility === 'collapse') return '';
    const id = node.getAttribute(attr);
    let attrs = id ? ' bid="' + id + '"' : '';
    for (const a of node.attributes) {
      if (KEEP.has(a.name) || a.name.startsWith('aria-')) attrs += ' ' + a.name + '=' + quoted(a.value);
    }
    if ((tag === 'input' && node.checked) || (tag === 'option' && node.selected)) attrs += ' checked';
    if (node.disabled) attrs += ' disabled';
    const open = (INLINE.has(tag) ? '' : '\\n') + '<' + tag + attrs + '>';
    if (VOID.has(tag)) { if (id) shown.push(id); return open; }
    const inner = Array.from(node.childNodes, walk).join('');
    if (!inner && !id && !KEEP_EMPTY.has(tag)) return '';
    if (id) shown.push(id);
    return open + inner + '</' + tag + '>';
  };
  const title = document.title ? '<title>' + text(document.title.replace(/\\s+/g, ' ').trim()) + '</title>' : '';
  const body = document.body ? walk(document.body) : '';
  return [title + body.split('\\n').map((l) => l.trimEnd()).filter((l) => l).join('\\n'), shown];
}"""

#: Roles that only group: without a name or an id they add a line and nothing else.
_TRANSPARENT = {"generic", "none", "presentation", "LineBreak", "form", "group", "paragraph", "Section",
                "LabelText"}
_BOOL_PROPS = ("checked", "selected", "disabled", "expanded", "required")


class PageObserver:
    """Observes one page at a time; keeps its CDP session while the page stays the same.

    Screenshots are of the page's viewport: give the page :func:`context_options` (or set its
    viewport) so their size is the env's observation space.
    """

    def __init__(self) -> None:
        self._page: Any = None
        self._cdp: Any = None

    def _session(self, page: Any) -> Any:
        if page is not self._page or self._cdp is None:
            self.detach()
            try:
                self._cdp = page.context.new_cdp_session(page)
            except Exception as exc:  # Firefox/WebKit have no CDP
                raise SourceError(f"browser observations need Chromium (a CDP session): {exc}") from exc
            self._page = page
        return self._cdp

    def detach(self) -> None:
        """Drop the CDP session (the page may already be closed)."""
        if self._cdp is not None:
            with contextlib.suppress(Exception):  # the page or browser is gone; nothing to release
                self._cdp.detach()
        self._page = self._cdp = None

    def observe(self, page: Any, state: PageState, mode: BrowserMode,
                redact: Mapping[str, str] | None = None) -> BrowserObservation:
        """Mark ``state``'s clickables on ``page`` and observe it in ``mode``.

        ``redact`` maps strings to replace in the text and the state (a source's per-episode session
        id, so the same seed and actions read the same on every run).

        Raises:
            SourceError: the page cannot be observed (closed, not Chromium, or Playwright fails).
        """
        from playwright.sync_api import Error as PlaywrightError

        if mode not in BROWSER_MODES:
            raise ValueError(f"browser observation mode {mode!r}: use {', '.join(BROWSER_MODES)}")
        if page is None:
            raise SourceError("no page to observe: reset() first")
        actions = element_actions(state)
        seen = PageState.model_validate_json(_redact(state.model_dump_json(), redact)) if redact else state
        items = [[str(i), c.selector, c.url] for i, c in enumerate(state.clickables, start=1)]
        try:
            located = [str(i) for i in page.evaluate(_MARK_JS, [MARK_ATTR, items])]
            if mode in ("screenshot", "som"):
                png, boxes = capture_png(page, self._session(page), MARK_ATTR if mode == "som" else None)
                return BrowserObservation(mode, png=png, element_actions=actions, state=seen, boxes=boxes,
                                          shown=tuple(boxes if mode == "som" else located))
            html, shown = page.evaluate(_DOM_JS, MARK_ATTR) if mode == "dom" else self._axtree(page)
        except PlaywrightError as exc:
            raise SourceError(f"browser observation {mode!r} of {getattr(page, 'url', '?')} failed: {exc}") from exc
        text = _footer(_redact(html, redact), actions, shown)
        return BrowserObservation(mode, text=text, element_actions=actions, shown=tuple(str(s) for s in shown),
                                  state=seen)

    def _axtree(self, page: Any) -> tuple[str, list[str]]:
        cdp = self._session(page)
        # flat answers only: a whole-document DOM.getDocument nests as deep as the page does
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        marked: dict[int, str] = {}
        for node_id in cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": f"[{MARK_ATTR}]"})["nodeIds"]:
            node = cdp.send("DOM.describeNode", {"nodeId": node_id})["node"]
            attrs = node.get("attributes") or []
            marked[int(node["backendNodeId"])] = dict(zip(attrs[::2], attrs[1::2], strict=False)).get(MARK_ATTR, "")
        return render_axtree(cdp.send("Accessibility.getFullAXTree")["nodes"], marked)


def _redact(text: str, redact: Mapping[str, str] | None) -> str:
    for old, new in (redact or {}).items():
        if old:
            text = text.replace(old, new)
    return text


def _footer(text: str, actions: dict[str, str], shown: list[str] | tuple[str, ...]) -> str:
    missing = [f"[{i}] {a}" for i, a in actions.items() if i not in set(shown)]
    return text + ("\n\nactions without an element on this page: " + "; ".join(missing) if missing else "")


def _value(field_: Any) -> Any:
    return field_.get("value") if isinstance(field_, dict) else None


def render_axtree(nodes: list[dict[str, Any]], marked: Mapping[int, str]) -> tuple[str, list[str]]:
    """CDP AX nodes as indented ``[id] role "name" [props]`` lines; the ids that got a line.

    Ignored and nameless grouping nodes pass their children up; text already in the nearest named
    ancestor's name is dropped (a button's label text), as Playwright's aria snapshots do.
    """
    by_id = {n["nodeId"]: n for n in nodes}
    lines: list[str] = []
    shown: list[str] = []
    # an explicit stack, not recursion: a hostile page can nest deeper than Python's recursion limit
    stack: list[tuple[dict[str, Any], int, str]] = [(n, 0, "") for n in reversed(nodes) if not n.get("parentId")]
    seen: set[str] = set()
    while stack:
        node, depth, context = stack.pop()
        if node["nodeId"] in seen:  # a malformed tree must not loop
            continue
        seen.add(node["nodeId"])
        role = str(_value(node.get("role")) or "")
        if role == "InlineTextBox":
            continue
        name = " ".join(str(_value(node.get("name")) or "").split())
        kids = [by_id[c] for c in node.get("childIds") or [] if c in by_id]
        eid = marked.get(node.get("backendDOMNodeId") or -1)
        if role == "StaticText" and eid is None:
            if name and name not in context and not node.get("ignored"):
                lines.append("  " * depth + f"StaticText {json.dumps(name, ensure_ascii=False)}")
            continue
        if eid is None and (node.get("ignored") or (not name and role in _TRANSPARENT)):
            stack.extend((k, depth, context) for k in reversed(kids))  # pass the children up
            continue
        lines.append("  " * depth + _axline(eid, role, name, node))
        if eid:
            shown.append(eid)
        stack.extend((k, depth + 1, name or context) for k in reversed(kids))
    return "\n".join(lines), shown


def _axline(eid: str | None, role: str, name: str, node: dict[str, Any]) -> str:
    line = (f"[{eid}] " if eid else "") + role
    if name:
        line += " " + json.dumps(name, ensure_ascii=False)
    props = {p["name"]: _value(p.get("value")) for p in node.get("properties") or []}
    if props.get("level") is not None:
        line += f" [level={props['level']}]"
    for prop in _BOOL_PROPS:
        if props.get(prop) in (True, "true"):
            line += f" [{prop}]"
        elif props.get(prop) == "mixed":
            line += f" [{prop}=mixed]"
    value = " ".join(str(_value(node.get("value")) or "").split())
    if value and value != name:
        line += f" [value={json.dumps(value, ensure_ascii=False)}]"
    return line
