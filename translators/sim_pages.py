"""Read the sim's own HTML pages back into PageState, and resolve actions into navigations.

Pages embed their PageState as JSON (``#shopsim-state``), read first since it is lossless. When the
block is absent (a page saved without it, or a proxy stripping scripts) the visible markup and its
``data-*`` hooks are read instead, which keeps every text observation and valid action identical.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError
from selectolax.lexbor import LexborHTMLParser as HTMLParser
from selectolax.lexbor import LexborNode as Node

from shopsim.actions import parse_action
from shopsim.attr_text import attr_text, read_attr_json, read_attr_text
from shopsim.links import PageUrls
from shopsim.page import (
    Clickable,
    Feedback,
    Navigation,
    PageState,
    ProductView,
    Purchase,
    ResultCard,
    Review,
    css_string,
)
from shopsim.routes import split_state_url
from shopsim.translators.documents import decode_html
from shopsim.translators.guard import markup_refusal

__all__ = ["SimsiteTranslator"]

_MAX_QUERY_CHARS = 1000


class SimsiteTranslator:
    """Translator for shopsim's own web app (site ``simsite``)."""

    site = "simsite"

    # ---- parse ----------------------------------------------------------------------------------
    def parse(self, html: str, url: str | None = None) -> PageState:
        """The page's PageState: the embedded JSON when present, else the visible markup.

        Never raises: a page that is not text, too costly to parse (``guard.markup_refusal``) or
        unreadable gives page type ``unknown`` with the reason.
        """
        if isinstance(html, (bytes, bytearray)):
            html = decode_html(bytes(html))
        if not isinstance(html, str):
            return _unknown(url, f"page is not text ({type(html).__name__})")
        state = _embedded_state(html)
        if state is not None:
            return state
        refusal = markup_refusal(html)
        if refusal is not None:
            return _unknown(url, refusal)
        try:
            tree = HTMLParser(html)
            block = tree.css_first("script#shopsim-state")
            if block is not None:
                try:
                    return PageState.model_validate_json(block.text(deep=True))
                except ValidationError:
                    pass
            return self.parse_markup(tree, url)
        except Exception as exc:  # a malformed page must never crash a session
            return _unknown(url, f"unreadable page: {type(exc).__name__}: {exc}")

    def parse_markup(self, tree: HTMLParser, url: str | None = None) -> PageState:
        """The PageState from visible markup and ``data-*`` hooks only."""
        body = tree.body
        attrs = body.attributes if body is not None else {}
        page_type = attrs.get("data-page-type") or ""
        if page_type not in ("search", "results", "item", "item_detail", "done"):
            title = tree.css_first("#error-title")
            reason = title.text(strip=True) if title else "not a shopsim page"
            msg = tree.css_first("#error-message")
            if msg is not None:
                reason += ": " + msg.text(strip=True)
            return PageState(page_type="unknown", site="simsite", url=url, reason=reason)
        fields: dict[str, Any] = {
            "page_type": page_type,
            "site": "simsite",
            "url": read_attr_text(attrs.get("data-url")) or url,
            "has_search_bar": attrs.get("data-has-search-bar") == "true",
        }
        if "data-query" in attrs:
            fields["query"] = read_attr_text(attrs.get("data-query")) or ""
        if attrs.get("data-keywords"):
            fields["keywords"] = read_attr_json(attrs["data-keywords"]) or []
        if attrs.get("data-page-num"):
            fields["page_num"] = int(attrs["data-page-num"] or 1)
        h4 = tree.css_first("#instruction-text h4")
        if h4 is not None:  # 'Instruction: <br>goal' on the search page, 'Instruction:<br>goal' elsewhere (as WebShop)
            text = h4.text(deep=True)
            fields["instruction"] = _strip_prefix(text[12:], " ") if text.startswith("Instruction:") else text
        fb = tree.css_first("#feedback")
        if fb is not None:
            fields["feedback"] = Feedback(code=fb.attributes.get("data-code") or "ok", message=fb.text(deep=True))  # type: ignore[arg-type]
        fields["clickables"] = _clickables(tree)
        if page_type == "results":
            fields.update(_results(tree, fields["clickables"]))
        elif page_type in ("item", "item_detail"):
            fields.update(_product(tree, page_type))
        elif page_type == "done":
            fields.update(_done(tree))
        return PageState(**fields)

    # ---- resolve --------------------------------------------------------------------------------
    def resolve(self, state: PageState, action: str) -> Navigation:
        """Where ``action`` leads from ``state``; refused actions give ``kind='none'`` with feedback."""
        name, arg = parse_action(action) if isinstance(action, str) else ("", None)
        if name not in ("search", "click") or arg is None:
            return _refuse("unknown_action", f"expected search[...] or click[...], got {str(action)[:80]!r}")
        arg = arg.lower()
        base, _, _, _ = split_state_url(state.url)
        links = PageUrls(state)
        if name == "search":
            if not arg.strip():
                return _refuse("empty_query", "search[] needs keywords")
            if len(arg) > _MAX_QUERY_CHARS:
                return _refuse("query_too_long", f"queries are limited to {_MAX_QUERY_CHARS} characters")
            if state.has_search_bar:
                return Navigation(kind="form", url=base + links.index, method="POST", form={"search_query": arg},
                                  selector="#search_input")
            links.keywords, links.page = arg.split(" "), 1
            return Navigation(kind="goto", url=base + links.results(1))
        target = state.clickable(arg)
        if target is None or target.kind == "search":
            available = ", ".join(c.arg for c in state.clickables if c.kind != "search")
            return _refuse("not_available", f"{arg!r} is not clickable here; available: {available or 'none'}")
        sel = target.selector
        page = state.page_num or 1
        if target.kind == "buy":
            return Navigation(kind="purchase", url=base + links.done(), method="POST", selector=sel)
        if target.kind == "back_to_search":
            return Navigation(kind="form", url=base + links.index, method="POST", selector=sel)
        if target.kind == "next":
            return Navigation(kind="goto", url=base + links.results(page + 1), method="POST", selector=sel)
        if target.kind == "prev":
            if state.page_type == "results":
                url = links.results(max(page - 1, 1))
            elif state.page_type == "item_detail":
                url = links.item()
            else:
                url = links.results(page)
            return Navigation(kind="goto", url=base + url, method="POST", selector=sel)
        if target.kind == "sub_page":
            return Navigation(kind="goto", url=base + links.sub_page(target.text), method="POST", selector=sel)
        if target.kind == "product":
            return Navigation(kind="goto", url=base + links.product(target.text), selector=sel)
        if target.kind == "option" and target.axis is not None:
            sel = f"input[type='radio'][name={css_string(target.axis)}][value={css_string(target.text)}]"
            return Navigation(kind="goto", url=base + links.with_option(target.axis, target.text), selector=sel,
                              axis=target.axis, value=target.text)
        return _refuse("not_available", f"{arg!r} cannot be followed")


_STATE_OPEN = '<script type="application/json" id="shopsim-state">'  # as simsite/templates/_head.html writes it


def _embedded_state(html: str) -> PageState | None:
    """The state block of a page our own server rendered, read without parsing the page (or None)."""
    start = html.find(_STATE_OPEN)
    if start < 0:
        return None
    start += len(_STATE_OPEN)
    end = html.find("</script", start)
    try:
        return PageState.model_validate_json(html[start:end if end >= 0 else len(html)])
    except ValidationError:
        return None


def _unknown(url: str | None, reason: str) -> PageState:
    return PageState(page_type="unknown", site="simsite", url=url, reason=reason)


def _refuse(code: str, message: str) -> Navigation:
    return Navigation(kind="none", feedback=Feedback(code=code, message=message))  # type: ignore[arg-type]


def _text(node: Node | None) -> str:
    return node.text(deep=True) if node is not None else ""


def _json_attr(node: Node | None, name: str) -> Any:
    return read_attr_json(node.attributes.get(name)) if node is not None else None


def _text_attr(node: Node | None, name: str) -> str:
    """A text ``data-*`` hook (encoded by :func:`~shopsim.attr_text.attr_text`), or ``""``."""
    return (read_attr_text(node.attributes.get(name)) or "") if node is not None else ""


def _clickables(tree: HTMLParser) -> list[Clickable]:
    found: list[tuple[int, Clickable]] = []
    for el in tree.css("[data-click-index]"):
        a = el.attributes
        index = int(a.get("data-click-index") or 0)
        action = a.get("data-action")
        c: Clickable | None = None
        if action == "search":
            c = Clickable(arg="search", text="Search", kind="search", selector="#search_input")
        elif action == "back-to-search":
            c = Clickable(arg="back to search", text="Back to Search", kind="back_to_search",
                          selector="[data-action='back-to-search']")
        elif action in ("prev", "next"):
            text = "< Prev" if action == "prev" else "Next >"
            c = Clickable(arg=text.lower(), text=text, kind="prev" if action == "prev" else "next",
                          selector=f"[data-action='{action}']",
                          url=read_attr_text(a.get("data-url")))
        elif action == "sub-page":
            name = a.get("data-sub-page") or ""
            c = Clickable(arg=name.lower(), text=name, kind="sub_page",
                          selector=f"[data-action='sub-page'][data-sub-page='{name}']")
        elif action == "buy-now":
            c = Clickable(arg="buy now", text="Buy Now", kind="buy", selector="[data-action='buy-now']")
        elif el.tag == "a" and a.get("data-asin"):
            asin = _text_attr(el, "data-asin")
            c = Clickable(arg=asin.lower(), text=asin, kind="product", url=read_attr_text(a.get("data-url")),
                          selector=f"a.product-link[data-asin='{attr_text(asin)}']", clicked=a.get("data-clicked") == "true")
        elif el.tag == "input" and a.get("data-arg") is not None:
            axis, value = _text_attr(el, "data-axis"), _text_attr(el, "data-value")
            c = Clickable(arg=_text_attr(el, "data-arg"), text=value, kind="option", axis=axis,
                          clicked=a.get("data-clicked") == "true",
                          selector=f"input[type='radio'][name={css_string(axis)}][value={css_string(value)}]")
        if c is not None:
            found.append((index, c))
    found.sort(key=lambda t: t[0])
    return [c for _, c in found]


def _results(tree: HTMLParser, clickables: list[Clickable]) -> dict[str, Any]:
    cards = []
    for div in tree.css(".searched-product"):
        link = div.css_first("a.product-link")
        price = div.css_first(".product-price")
        p = _json_attr(price, "data-price")
        cards.append(ResultCard(
            id=_text_attr(div, "data-asin") or _text(link), title=_text(div.css_first(".product-title")),
            price=tuple(p) if isinstance(p, list) else p, price_text=_text(price),
            sponsored=price is not None and price.attributes.get("data-sponsored") == "true",
            url=read_attr_text(link.attributes.get("data-url")) if link is not None else None,
        ))
    head = tree.css_first("#results-head")
    total = head.attributes.get("data-total") if head is not None else None
    by_kind = {c.kind: c for c in clickables}
    return {
        "results": cards,
        "total_results": int(total) if total else None,
        "visited_ids": [c.text for c in clickables if c.kind == "product" and c.clicked],
        "next_page_url": by_kind["next"].url if "next" in by_kind else None,
        "prev_page_url": by_kind["prev"].url if "prev" in by_kind else None,
    }


def _strip_prefix(text: str, prefix: str) -> str:
    return text[len(prefix):] if text.startswith(prefix) else text


def _product(tree: HTMLParser, page_type: str) -> dict[str, Any]:
    root = tree.css_first(".product") or tree.css_first("#sub-page")
    if root is None:
        return {}
    asin = _text_attr(root, "data-asin")
    view: dict[str, Any] = {"id": asin, "title": _text(tree.css_first("#product-title"))}
    out: dict[str, Any] = {}
    if page_type == "item":
        price = tree.css_first("#product-price")
        p = _json_attr(price, "data-price")
        view["price"] = tuple(p) if isinstance(p, list) else p
        view["price_text"] = _strip_prefix(_text(price), "Price: ")
        rating = tree.css_first("#product-rating")
        view["rating_text"] = _strip_prefix(_text(rating), "Rating: ")
        r = rating.attributes.get("data-rating") if rating is not None else None
        view["rating"] = float(r) if r else None
        options: dict[str, list[str]] = {}
        selected: dict[str, str | None] = {}
        for bar in tree.css(".radio-toolbar"):
            axis = _text_attr(bar, "data-axis")
            radios = bar.css("input[type='radio']")
            options[axis] = [_text_attr(r, "data-value") for r in radios]
            selected[axis] = next((_text_attr(r, "data-value") for r in radios if "checked" in r.attributes), None)
        view["options"], view["selected"] = options, selected
    else:
        sub = root.attributes.get("data-sub-page") or None
        out["sub_page"] = sub
        if sub == "Description":
            view["description"] = _text(tree.css_first("#product-description"))
        elif sub == "Features":
            view["bullet_points"] = [_strip_prefix(_text(li), " ") for li in tree.css("#product-features li p")]
        elif sub == "Reviews":
            reviews = []
            for card in tree.css("#product-reviews .review"):
                score = _json_attr(card, "data-score")
                reviews.append(Review(title=_text(card.css_first(".review-title")), score=score,
                                      body=_text(card.css_first(".review-body"))))
            view["reviews"] = reviews
        elif sub == "Attributes":
            view["attributes"] = [_text(li) for li in tree.css("#product-attributes li p")]
    out["product"] = ProductView(**view)
    return out


def _done(tree: HTMLParser) -> dict[str, Any]:
    out: dict[str, Any] = {}
    node = tree.css_first("#purchase")
    if node is not None:
        price = node.attributes.get("data-price")
        out["purchase"] = Purchase(id=_text_attr(node, "data-asin"),
                                   options=_json_attr(node, "data-options") or {},
                                   price=float(price) if price else None)
    pre = tree.css_first("#reward pre")
    if pre is not None and pre.text(strip=True) not in ("", "None"):
        out["reward"] = float(pre.text(strip=True))
    details = tree.css_first("#reward-details[data-reward-info]")  # WebShop's hidden 'Reward Details' h4
    if details is not None:
        out["reward_info"] = _json_attr(details, "data-reward-info")
    rows = tree.css("#reward-details tbody tr")  # pages rendered before the info moved into the attribute
    if rows:
        info: dict[str, Any] = {}
        for tr in rows:
            cells = tr.css("td")
            if len(cells) == 2:
                key, value = cells[0].text(strip=True), cells[1].text(strip=True)
                info[key] = _loose(value)
        out["reward_info"] = info
    return out


def _loose(value: str) -> Any:
    if value == "n/a":
        return None
    if value in ("True", "False"):
        return value == "True"
    try:
        return json.loads(value)
    except ValueError:
        return value
