"""The generic translator: any shop that is neither Amazon nor eBay, read into the same PageState.

Structured data first (schema.org JSON-LD, microdata, RDFa, OpenGraph: ``schema_org``), markup
heuristics second (prices, product cards, buy box, breadcrumbs, option widgets: ``cards``; feature
bullets here); the shop, its currency and its URLs come from ``shops``. Actions resolve to the
page's own URLs: products by their card's link, searches through the shop's search form (action and
input name, remembered per shop; else its schema.org ``SearchAction``; else ``/search?q=``), next
pages through ``rel=next`` or the pagination control (a URL is built when that control has none).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from urllib.parse import quote

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.page import Clickable, Navigation, PageState, ProductView, ResultCard
from shopsim.translators.buy_box import displayed_price
from shopsim.translators.cards import (
    Card,
    PageTexts,
    PriceGroups,
    card_id,
    find_cards,
    page_texts,
    price_groups,
    price_nodes,
    repeated_blocks,
    text_of,
)
from shopsim.translators.clickables import item_clickables, refuse, results_clickables
from shopsim.translators.detect import blocked_reason, wall_reason
from shopsim.translators.dom import attr, collapse
from shopsim.translators.option_groups import radio_groups
from shopsim.translators.page_kind import PageOrder, buy_control, is_grid, names_page, similar
from shopsim.translators.pager import pagination
from shopsim.translators.prices import PriceInfo
from shopsim.translators.realsite import MAX_QUERY_CHARS, RealSiteTranslator
from shopsim.translators.schema_org import ProductRecord, Structured, own_url, read_structured
from shopsim.translators.script_pages import script_results
from shopsim.translators.shops import (
    ID_VALUE,
    SearchForm,
    currency_for,
    heading_query,
    page_url,
    search_form,
    searchy,
    shop_name,
    site_origin,
    url_id,
    url_query,
    with_params,
)
from shopsim.translators.widgets import breadcrumb_trail, buybox_price, option_widgets, without_title_crumb

__all__ = ["GenericTranslator"]

_LIST_TYPES = {"searchresultspage", "itemlist", "offercatalog", "collectionpage"}
_FEATURE_HEADING = re.compile(
    r"(?i)^(?:product |key |main |top )?(?:highlights?|features?|about this (?:item|product)|product overview|"
    r"overview|lo que tienes que saber.{0,40}|caracter[ií]sticas(?: principales| destacadas)?|destaques|"
    r"points forts|merkmale|punti di forza|item details)\s*:?$")
_MENU = re.compile(r"(?i)(?<![a-z])(?:menu|nav|navbar|header|footer|dropdown|flyout)(?![a-z])")
MAX_REMEMBERED_SHOPS = 256


@dataclass
class _Page:
    """What one page offers the readers below (parsed once per page)."""

    tree: LexborHTMLParser
    body: LexborNode
    data: Structured
    url: str | None
    base: str
    shop: str | None
    texts: PageTexts = field(default_factory=list)  # the body's texts, read once (``page_texts``)
    prices: list[LexborNode] = field(default_factory=list)
    groups: PriceGroups = field(default_factory=list)  # the prices' ancestors holding several (``price_groups``)
    cards: list[Card] = field(default_factory=list)
    h1: LexborNode | None = None
    form: SearchForm | None = None
    query: str | None = None
    found_buy: list[LexborNode | None] = field(default_factory=list)  # the buy control, once looked for

    def buy(self) -> LexborNode | None:
        """The page's buy control outside repeated cards (``page_kind.buy_control``), looked for once:
        deciding the page kind asks twice, and each search reads up to 4,000 links and buttons.
        """
        if not self.found_buy:
            self.found_buy.append(buy_control(self.body, repeated_blocks(self.groups)))
        return self.found_buy[0]


class GenericTranslator(RealSiteTranslator):
    """Any other shop's results and product pages -> PageState (site ``other``); actions -> its URLs.

    It remembers each shop's search form and address (by shop name, bounded) from the pages it
    reads: ``resolve()`` gets only the PageState, and a search from a product page should still go
    through the shop's own form.
    """

    site = "other"

    def __init__(self) -> None:
        self._forms: dict[str, SearchForm | str] = {}
        self._origins: dict[str, str] = {}

    # -- reading ------------------------------------------------------------------------
    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        """Product, results or blocked state (else None); remembers the shop's search form and origin."""
        url = url or own_url(tree)
        base_href = attr(tree.css_first("base[href]"), "href")
        shop = shop_name(url, tree, html)
        data = read_structured(tree)
        if data.main_product is None and not data.listed:
            wall = wall_reason(tree, html)
            if wall:
                return PageState(page_type="blocked", site="other", shop=shop, url=url, reason=wall)
        if tree.body is None:
            return None
        page = _Page(tree, tree.body, data, url, base_href if base_href.startswith("http") else (url or ""), shop)
        page.form, page.query = search_form(page.body, page.base, MAX_QUERY_CHARS)
        self._remember(shop, page.form or data.search_target, url)
        page.texts = page_texts(page.body)
        page.prices = price_nodes(page.texts)
        page.groups = price_groups(page.prices)
        page.cards = find_cards(page.prices, page.groups, page.base)
        page.query = page.query or url_query(url, page.form)
        page.h1 = _main_heading(tree, page.body)
        if page.query is None and page.h1 is not None:  # 'Showing results for "women blue"'
            page.query = heading_query(text_of(page.h1))
        return self._page_kind(page, html)

    def _page_kind(self, page: _Page, html: str) -> PageState | None:
        """An item page needs one product; a grid of many priced cards is a results page whatever else
        the page holds (a stray buy control, a listing-level structured Product): see ``page_kind``.
        """
        data, main = page.data, page.data.main_product
        listy = bool(data.types & _LIST_TYPES)
        grid = is_grid(page.cards)
        if main is not None and not (listy and page.cards) and not (
                grid and not names_page(main.name, main.ids, page.h1, url_id(page.url, params=False))):
            return self._product_state(page, main)
        if page.cards and (listy or grid) and not self._buy_box_first(page):
            return self._results_state(page)
        if "itemlist" in data.types and main is None and not page.cards and (page.query or searchy(page.url)):
            return self._results_state(page)  # a search of one card or none: no grid to see, but the shop lists them
        buy = page.buy()
        if (buy is not None or data.og.get("og:type", "").startswith("product")) and (
                page.h1 is not None or data.og.get("og:title") or page.tree.css_first("title")):
            return self._product_state(page, None)
        if len(page.cards) >= 3 or (page.cards and (page.query or searchy(page.url))):
            return self._results_state(page)
        if page.h1 is not None and buybox_price(page.body, page.prices, page.h1, set()) is not None:
            return self._product_state(page, None)
        reason = blocked_reason(page.tree, html)
        if reason:
            return PageState(page_type="blocked", site="other", shop=page.shop, url=page.url, reason=reason)
        return script_results(page.tree, page.url, page.shop, page.query)  # products only in inline scripts

    @staticmethod
    def _buy_box_first(page: _Page) -> bool:
        """An item page without structured data whose grid is a recommendation strip: its heading and
        buy control come before the grid (a results page's heading does, its buy controls do not).
        """
        if not is_grid(page.cards) or page.h1 is None or bool(page.data.types & _LIST_TYPES):
            return False
        order = PageOrder(page.body, page.cards[0].node)
        if not order.before(page.h1):
            return False
        if page.found_buy:
            buy = page.found_buy[0]
        else:  # only the controls before the grid: the first found is the page's first (kept for ``buy``)
            buy = buy_control(page.body, repeated_blocks(page.groups), among=order.ids)
            if buy is not None:
                page.found_buy.append(buy)
        return buy is not None and order.before(buy)

    def _remember(self, shop: str | None, form: SearchForm | str | None, url: str | None) -> None:
        origin = site_origin(url)
        for memo, value in ((self._forms, form), (self._origins, origin)):
            if shop and value is not None:
                if shop not in memo and len(memo) >= MAX_REMEMBERED_SHOPS:
                    memo.pop(next(iter(memo)))
                memo[shop] = value  # type: ignore[assignment]

    def _product_state(self, page: _Page, main: ProductRecord | None) -> PageState:
        records = [p for p in page.data.products if p.source != "og"] or page.data.products
        carded = {c.node.mem_id for c in page.cards}
        shown = buybox_price(page.body, page.prices, page.h1, carded)
        record = main if main is not None and main.price is not None else \
            next((r for r in records if r.price is not None), None)
        price = PriceInfo(None, None, "")
        displayed = displayed_price(page.body, page.prices, page.h1, carded, record.price) if (
            record is not None and record.price is not None) else None
        if displayed is not None and record is not None and displayed.value != record.price:
            shown, record = displayed, None  # the buy box shows another price (a set's): as displayed
        if record is not None:  # the structured number, with the text the page shows for it
            text = shown.text if shown is not None else ""
            price = PriceInfo(record.price, record.currency or currency_for(text, page.url), text)
        elif shown is not None:
            price = PriceInfo(shown.value, currency_for(shown.text, page.url, shown.currency), shown.text)
        rating = next((r.rating for r in records if r.rating is not None), None)
        options, selected, option_urls = option_widgets(page.body, page.base)
        radios, picked = radio_groups(page.body)
        for axis, values in radios.items():  # axes drawn as radio groups, where selects and swatches miss them
            if axis not in options and not any(set(values) <= set(v) for v in options.values()):
                options[axis], selected[axis] = values, picked[axis]
        trails = [t for t in page.data.breadcrumbs if len(t) >= 2]
        title = _title(page, records)
        product = ProductView(
            id=_item_id(records, page.url) or "unknown", title=title, price=price.value,
            price_text=price.text, currency=price.currency, rating=rating,
            rating_text=f"{rating} out of 5" if rating is not None else "N.A.", options=options, selected=selected,
            option_urls=option_urls, bullet_points=feature_bullets(page.body, page.texts),
            description=next((r.description for r in records if r.description), page.data.og.get("og:description", "")),
            category_path=without_title_crumb(trails[0] if trails else breadcrumb_trail(page.body), title))
        return PageState(page_type="item", site="other", shop=page.shop, currency=product.currency, url=page.url,
                         product=product, clickables=item_clickables(product, None), has_search_bar=True)

    def _results_state(self, page: _Page) -> PageState:
        names = {_path_key(e.url): e.name for e in page.data.listed if e.url and e.name}
        cards: list[tuple[ResultCard, str | None]] = []
        currency = None
        for card in page.cards:
            cid = card_id(card) or f"r{len(cards) + 1}"
            currency = currency or currency_for(card.price.text, page.url, card.price.currency)
            listed = names.get(_path_key(card.url), "")  # a list's name, unless the card shows more of it
            title = card.title if not listed or listed.casefold() in card.title.casefold() else listed
            cards.append((ResultCard(id=cid, title=title,
                                     price=card.price.value, price_text=card.price.text, sponsored=card.sponsored,
                                     url=card.url), None))
        if not page.cards:  # the ItemList's entries, where the markup shows no grid of cards
            cards = [(ResultCard(id=e.sku or url_id(e.url) or f"r{i}", title=e.name, price=e.price, url=e.url or None),
                      None) for i, e in enumerate(page.data.listed, 1) if e.name]
            currency = next((e.currency for e in page.data.listed if e.currency), None)
        pager = pagination(page.body, page.base, page.url)
        urls = {c.id: c.url or "" for c, _ in cards}
        return PageState(
            page_type="results", site="other", shop=page.shop, currency=currency, url=page.url, query=page.query,
            keywords=page.query.split() if page.query else None, page_num=pager.page_num,
            results=[card for card, _ in cards], next_page_url=pager.next_url, prev_page_url=pager.prev_url,
            has_search_bar=True, clickables=results_clickables(
                cards, pager.next_url, pager.prev_url, lambda i: urls.get(i, ""),
                next_control=pager.has_next, next_selector=pager.next_selector))

    # -- actions ------------------------------------------------------------------------
    def _product(self, state: PageState, target: Clickable) -> Navigation:
        """The card's own link (a shop's product URLs have no shape we could build)."""
        url = target.url or next((c.url for c in state.results if c.id.lower() == target.arg), None)
        if url:
            return Navigation(kind="goto", url=url, selector=target.selector)
        return refuse("not_available", f"{target.text!r} has no link on this page")

    def _home(self, state: PageState) -> Navigation:
        home = self._origin(state)
        if home is None:
            return refuse("not_available", "this shop's address is not known")
        return Navigation(kind="goto", url=home + "/")

    def _origin(self, state: PageState) -> str | None:
        return site_origin(state.url) or self._origins.get(state.shop or "")

    def _search(self, state: PageState, query: str) -> Navigation:
        """The page's own search form, else the shop's SearchAction template, else ``/search?q=``."""
        form = self._forms.get(state.shop or "")
        if isinstance(form, SearchForm) and form.method == "POST":
            return Navigation(kind="form", url=form.action, method="POST", form={form.name: query})
        if isinstance(form, SearchForm):
            return Navigation(kind="goto", url=with_params(form.action, {form.name: query}))
        if isinstance(form, str) and "{search_term_string}" in form:
            return Navigation(kind="goto", url=form.replace("{search_term_string}", quote(query)))
        origin = self._origin(state)
        if origin is None:
            return refuse("not_available", "this shop's search address is not known")
        return Navigation(kind="goto", url=with_params(origin + "/search", {"q": query}))

    def paged_url(self, state: PageState, page: int) -> str | None:
        """Results page ``page``: the URL's own page parameter, else the remembered search form's URL."""
        form = self._forms.get(state.shop or "")
        return page_url(state.url, page, form if isinstance(form, SearchForm) else None, state.query)


# ----------------------------------------------------------------------------- page parts --
def _up(node: LexborNode | None, levels: int) -> list[LexborNode]:
    out: list[LexborNode] = []
    while node is not None and len(out) < levels:
        out.append(node)
        node = node.parent
    return out


def _main_heading(tree: LexborHTMLParser, body: LexborNode) -> LexborNode | None:
    """The page's main h1: the one that shares most words with its <title> (modals have h1s too)."""
    heads = [h for h in body.css("h1")[:10] if text_of(h)]
    node = tree.css_first("title")
    words = set(re.findall(r"\w+", text_of(node).casefold())) if node is not None else set()
    if len(heads) < 2 or not words:
        return heads[0] if heads else None
    return max(heads, key=lambda h: len(words & set(re.findall(r"\w+", text_of(h).casefold()))))


def _title(page: _Page, records: list[ProductRecord]) -> str:
    """The title as shown: the h1 when it names the structured product, else the structured name,
    else og:title or <title> with the shop's name taken off.
    """
    shown = text_of(page.h1) if page.h1 is not None else ""
    name = next((r.name for r in records if r.name and r.source != "og"), "")
    if shown and len(shown) <= 500 and (not name or similar(shown, name)):
        return shown
    node = page.tree.css_first("title")
    if name:
        return _drop_shop_tail(name, [page.data.og.get("og:title", ""), text_of(node) if node is not None else ""])

    sites = [page.data.og.get("og:site_name", ""), (page.shop or "").split(":")[-1]]
    for raw in (page.data.og.get("og:title", ""), text_of(node) if node is not None else ""):
        cleaned = _strip_site(raw, sites)
        if cleaned:
            return cleaned
    return shown


_TAIL_SEPARATOR = re.compile(r"\s*[｜|:：]\s*([^｜|:：]{2,60})$")


def _drop_shop_tail(name: str, titles: list[str]) -> str:
    """A structured name without the shop's name closing it ('...700ml 【ウイスキー】｜リカーズ スリーライン'):
    a tail after a bar or colon that also closes the page's title is the shop's, not the product's.
    """
    m = _TAIL_SEPARATOR.search(collapse(name))
    if m is None or m.start() < 3:
        return name
    tail = m.group(1).strip()
    if any(collapse(t).endswith(tail) and collapse(t) != collapse(name) for t in titles if t):
        return collapse(name)[:m.start()]
    return name


def _strip_site(title: str, sites: list[str]) -> str:
    """'Stacking Blocks - Etsy' -> 'Stacking Blocks': title parts naming the site are dropped."""
    keys = {re.sub(r"\W", "", s.casefold().removeprefix("www.").split(".")[0]) for s in sites if s} - {""}
    parts = re.split(r"\s+[|\-–—:]\s+", collapse(title))
    kept = [p for p in parts if not any(k in re.sub(r"\W", "", p.casefold()) for k in keys)]
    return " - ".join(kept) if kept else collapse(title)


def _item_id(records: list[ProductRecord], url: str | None) -> str:
    """The structured productID/sku, else the id in the page's URL (path first), else its last segment."""
    for rec in records:
        for value in rec.ids:
            if ID_VALUE.match(value) and any(c.isdigit() for c in value):
                return value
    found = url_id(url, params=False) or url_id(url)
    if found:
        return found
    segments = [s for s in (url or "").split("?", 1)[0].split("#", 1)[0].split("/")[3:] if s]
    return segments[-1] if segments else ""


def _path_key(url: str) -> str:
    return url.split("#", 1)[0].split("?", 1)[0].rstrip("/").casefold()


def feature_bullets(root: LexborNode, texts: PageTexts) -> list[str]:
    """The feature list under a 'Highlights' / 'Features' / 'About this item' caption (among ``texts``,
    the page's ``page_texts(root)``), in a container so named, or in the product description (captions
    inside menus and links do not count).
    """
    tries = 0
    for node, shown in texts:
        text = shown.strip()
        if 3 <= len(text) <= 80 and _FEATURE_HEADING.match(collapse(text)) and node.parent is not None \
                and not _in_menu(node.parent):
            items = _list_after(node.parent)
            tries += 1
            if items or tries >= 20:  # a page of 10,000 'Features' captions costs 20 looks
                return items
    for box in root.css('[class*="highlight"], [class*="feature"], [class*="bullet"], [class*="salient"], '
                        '[id*="feature"], [id*="highlight"], [itemprop="description"], [class*="description"], '
                        '[id*="description"]')[:40]:
        lst = box.css_first("ul, ol")
        items = _items(lst) if lst is not None and not _in_menu(lst) else []
        if len(items) >= 2:
            return items
    return []


def _in_menu(node: LexborNode) -> bool:
    return any(n.tag in ("a", "nav", "header", "footer", "button", "option")
               or _MENU.search(f"{attr(n, 'class')} {attr(n, 'id')} {attr(n, 'role')}") for n in _up(node, 8))


def _list_after(heading: LexborNode) -> list[str]:
    """Items of the first list that follows ``heading`` within its section (up to three levels up)."""
    for container in _up(heading.parent, 3):
        passed = False
        for count, node in enumerate(container.traverse()):
            if node.mem_id == heading.mem_id:
                passed = True
            elif passed and node.tag in ("ul", "ol"):
                return _items(node)
            if count > 5_000:
                break
    return []


def _items(lst: LexborNode) -> list[str]:
    """A list's own items (not those of lists nested in it)."""
    own = [li for li in lst.css("li")[:200]
           if next((n for n in _up(li.parent, 30) if n.tag in ("ul", "ol")), lst).mem_id == lst.mem_id]
    texts = [text_of(li) for li in own[:40]]
    return [t for t in texts if t and len(t) <= 1000]
