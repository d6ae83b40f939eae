"""The translator for Chinese and Taiwanese shops: Taobao, Tmall, JD, 1688, AliExpress, Yahoo/momo Taiwan.

Their pages defeat the generic reading in known ways: item data sits in SKU rows with their own
markup or only in scripts, result cards carry the id in data attributes (``data-sku``, 1688's
``data-aplus-report``), ads say '广告' or go through click servers, the next control is a script
button, the query is only in ``<title>``, walls are captchas, rate limits and login pages. This
translator reads those pages itself (``china_items``, ``china_results``) and leaves any other page
of these shops to the generic translator, whose results it keeps with the shop's own ids.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.page import Navigation, PageState, ProductView, ResultCard
from shopsim.translators.china_ids import family_of, item_id, saved_from, shop_label
from shopsim.translators.china_items import ITEM_TITLES, read_china_item
from shopsim.translators.china_results import ChinaCard, china_cards, next_control
from shopsim.translators.clickables import has_next_page, item_clickables, results_clickables
from shopsim.translators.detect import china_wall
from shopsim.translators.dom import attr, collapse, small_int
from shopsim.translators.generic import GenericTranslator
from shopsim.translators.prices import PriceInfo, currency_of, parse_price
from shopsim.translators.realsite import MAX_QUERY_CHARS
from shopsim.translators.schema_org import own_url
from shopsim.translators.script_data import PageScripts, script_listing
from shopsim.translators.shops import search_form

__all__ = ["ChinaShopTranslator"]

#: Item-page and results-page URL shapes per family.
_ITEM_URL = re.compile(r"item\.(?:m\.)?jd\.(?:com|hk)/|/item\.htm|detail\.htm|detail\.(?:m\.)?1688\.com/|"
                       r"aliexpress\.[a-z.]+/(?:item|i)/|/gdsale/|goodsdetail", re.IGNORECASE)
_LIST_URL = re.compile(r"search\.jd\.|list\.jd\.|s\.taobao\.com|list\.tmall\.com|s\.1688\.com|p4psearch\.1688|"
                       r"/wholesale|/w/wholesale|/search|/category/|/store/", re.IGNORECASE)
_CURRENCY = {"jd": "CNY", "taobao": "CNY", "tmall": "CNY", "1688": "CNY", "yahoo-tw": "TWD", "momo": "TWD"}
_QUERY_INPUTS = ("input#key", "input#q", "input#alisearch-input", 'input[name="keywords"]', 'input[name="q"]',
                 'input[name="SearchText"]', "input#search-key", 'input[name="keyword"]', 'input[name="p"]')
_TITLE_QUERY = re.compile(r"^(.{1,200}?)\s*(?:-\s*商品搜索\s*-\s*京东|_淘宝搜索|-淘宝搜索|_天猫|-天猫搜索|"
                          r"\s*-\s*momo購物網)")
#: Each shop's search address, for a results page that does not state its own URL.
_SEARCH_URLS = {
    "jd": "https://search.jd.com/Search?keyword={q}&enc=utf-8&page={page}",
    "taobao": "https://s.taobao.com/search?q={q}&page={page}",
    "tmall": "https://list.tmall.com/search_product.htm?q={q}&page={page}",
    "1688": "https://s.1688.com/selloffer/offer_search.htm?keywords={q}&beginPage={page}",
    "aliexpress": "https://www.aliexpress.com/wholesale?SearchText={q}&page={page}",
}
#: A title that names only the shop: an item page showing nothing but it is a wall in disguise.
_SITE_TITLE = re.compile(r"^(?:|淘宝网?|天猫|tmall\.com天猫|京东|京东\(JD\.COM\).*|JD\.COM.*|阿里巴巴|1688|AliExpress|"
                         r"淘宝网 - 淘！我喜欢)$", re.IGNORECASE)
_WHOLESALE_PATH = re.compile(r"/wholesale-([^/]{1,200}?)\.html$")
_QUERY_PARAMS = ("keyword", "keywords", "q", "searchtext", "p", "key", "wd", "query", "k")


class ChinaShopTranslator(GenericTranslator):
    """Chinese/Taiwanese shop pages -> PageState (site ``other``, the shop named as its answer keys do)."""

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        """Wall, item or results page of a known family; anything else as the generic translator reads it."""
        url = url or own_url(tree) or saved_from(html)
        family = family_of(url, html, tree)
        if family is None or tree.body is None:
            return super().read_page(tree, html, url)
        shop = shop_label(family, url)
        wall = china_wall(tree, html)
        if wall:
            return PageState(page_type="blocked", site="other", shop=shop, url=url, reason=wall)
        body = tree.body
        scripts = PageScripts(tree)
        hint = _CURRENCY.get(family)
        if _is_item(family, url, body):
            item = self._item(tree, body, family, shop, url, scripts, hint)
            empty = item.product is None or (item.product.price is None and not item.product.options
                                             and _SITE_TITLE.match(item.product.title))
            if not empty:
                return item
            wall = china_wall(tree, html, strict=False)  # no product shown: a wall, or nothing to read
            return PageState(page_type="blocked", site="other", shop=shop, url=url, reason=wall) if wall else None
        state = self._results(tree, body, family, shop, url, scripts, hint)
        if state is None:
            state = super().read_page(tree, html, url)
            state = _with_shop_ids(state, shop, hint) if state is not None else None
        if state is None or state.page_type == "unknown":
            wall = china_wall(tree, html, strict=False)
            if wall:
                return PageState(page_type="blocked", site="other", shop=shop, url=url, reason=wall)
        return state

    def _search(self, state: PageState, query: str) -> Navigation:
        """The shop's own search address (JD's and Taobao's search boxes submit by script, not a form)."""
        family = next((f for f in _SEARCH_URLS if state.shop and shop_label(f, state.url) == state.shop), None)
        link = _page_link(1, family, query) if family else None
        return Navigation(kind="goto", url=link) if link else super()._search(state, query)

    def _item(self, tree: LexborHTMLParser, body: LexborNode, family: str, shop: str, url: str | None,
              scripts: PageScripts, hint: str | None) -> PageState:
        ident = item_id(url) or _script_id(tree)
        seen = read_china_item(tree, body, family, scripts, hint, ident)
        currency = seen.price.currency or hint or currency_of(seen.price.text)
        product = ProductView(
            id=ident or "unknown", title=seen.title, price=seen.price.value,
            price_text=seen.price.text, currency=currency, rating=seen.rating,
            rating_text=f"{seen.rating} out of 5" if seen.rating is not None else "N.A.",
            options=seen.options, selected=seen.selected, category_path=seen.category_path,
            sku_prices=seen.sku_prices)
        self._remember(shop, search_form(body, url or "", MAX_QUERY_CHARS)[0], url)
        return PageState(page_type="item", site="other", shop=shop, currency=currency, url=url, product=product,
                         clickables=item_clickables(product, None), has_search_bar=True)

    def _results(self, tree: LexborHTMLParser, body: LexborNode, family: str, shop: str, url: str | None,
                 scripts: PageScripts, hint: str | None) -> PageState | None:
        if family == "yahoo-tw":
            return None  # its cards are ordinary product cards: the generic reading, with the shop's ids
        base = url or ""
        cards = china_cards(body, base, hint or "CNY") if family != "momo" else []
        if len(cards) < 3:  # cards only in a script (momo's flight payload, Taobao's g_page_config)
            cards = [ChinaCard(i.id, i.title, _info(i.price, hint), i.url or None, i.sponsored)
                     for i in script_listing(scripts.blobs)]
        if len(cards) < 3:
            return None
        form, shown = search_form(body, base, MAX_QUERY_CHARS)
        self._remember(shop, form, url)
        query = _query(tree, body, url) or shown
        has_next, next_url = next_control(body, base)  # a script button: offered, with no URL made up
        page_num = _page_num(body, url)
        currency = next((c.price.currency for c in cards if c.price.value is not None and c.price.currency), hint)
        results: list[tuple[ResultCard, str | None]] = [
            (ResultCard(id=c.id, title=c.title, price=c.price.value, price_text=c.price.text, sponsored=c.sponsored,
                        url=c.url), None) for c in cards]
        urls = {c.id: c.url or "" for c in cards}
        return PageState(
            page_type="results", site="other", shop=shop, currency=currency, url=url, query=query,
            keywords=query.split() if query else None, page_num=page_num or (1 if has_next else None),
            results=[r for r, _ in results], next_page_url=next_url, has_search_bar=True,
            clickables=results_clickables(results, next_url, None, lambda i: urls.get(i, ""), next_control=has_next))


def _info(text: str, hint: str | None) -> PriceInfo:
    """A script's price text ('$$22,300' is how momo escapes '$') in the page's currency."""
    info = parse_price(text.replace("$$", "$"), hint)
    return PriceInfo(info.value, info.currency or hint, info.text)


def _is_item(family: str, url: str | None, body: LexborNode) -> bool:
    """An item page by its URL's shape, else by the family's title element (lists have none)."""
    try:
        where = urlsplit(url or "")
    except ValueError:
        where = urlsplit("")
    address = f"{where.netloc}{where.path}"
    if address and _ITEM_URL.search(address):
        return True
    if address and _LIST_URL.search(address):
        return False
    return any(body.css_first(sel) is not None for sel in ITEM_TITLES.get(family, ()))


def _script_id(tree: LexborHTMLParser) -> str:
    """The item id the page's own scripts or links state (``skuid: 123``, ``itemId: '123'``)."""
    for node in tree.css("script")[:200]:
        text = node.text() or ""
        m = re.search(r"""(?:skuid|itemId|offerId|productId)['"]?\s*[:=]\s*['"]?(\d{6,})""", text[:400_000])
        if m:
            return m.group(1)
    return ""


def _query(tree: LexborHTMLParser, body: LexborNode, url: str | None) -> str | None:
    """The search query: a URL parameter, a search box's value, else the page title's search phrase."""
    try:
        parts = urlsplit(url or "")
    except ValueError:
        parts = urlsplit("")
    query = parts.query
    params = parse_qsl(query)
    if any("\ufffd" in v for _, v in params):  # 1688 and old Taobao URLs are GBK-encoded
        params = parse_qsl(query, encoding="gbk", errors="replace")
    for key, value in params:
        if key.lower() in _QUERY_PARAMS and collapse(value) and "\ufffd" not in value:
            return collapse(value)[:MAX_QUERY_CHARS]
    for sel in _QUERY_INPUTS:
        value = collapse(attr(body.css_first(sel), "value"))
        if value:
            return value[:MAX_QUERY_CHARS]
    for box in body.css('[class*="search"] input[value]')[:20]:  # a nameless box in the search bar
        value = collapse(attr(box, "value"))
        if value and attr(box, "type").lower() in ("", "text", "search"):
            return value[:MAX_QUERY_CHARS]
    m = _WHOLESALE_PATH.search(parts.path)
    if m:  # AliExpress: /w/wholesale-usb-cable.html
        return collapse(unquote(m.group(1)).replace("-", " "))
    title = tree.css_first("title")
    m = _TITLE_QUERY.match(collapse(title.text() if title is not None else ""))
    return collapse(m.group(1)) if m else None


def _page_num(body: LexborNode, url: str | None) -> int | None:
    m = re.search(r"[?&](?:page|pageno|pagenum|beginpage|pg)=(\d{1,4})", url or "", re.IGNORECASE)
    if m:
        return int(m.group(1))
    for sel in (".pn-curr", ".p-num .curr", ".fp-text b", ".next-pagination-display em", ".fui-current",
                ".next-pagination-item.next-current", '[class*="pagination"] [aria-current="page"]',
                '[class*="pagination"] [class*="current"]', '[class*="pager"] [class*="active"]'):
        node = body.css_first(sel)
        text = collapse(node.text()) if node is not None else ""
        if small_int(text) is not None:
            return small_int(text)
    return None


def _page_link(page: int, family: str | None, query: str | None) -> str | None:
    """Results page ``page`` of ``query`` at the shop's own search address (its search box submits by
    script, so there is no form to read).
    """
    template = _SEARCH_URLS.get(family or "")
    if template is None or not query:
        return None
    encoded = quote(query.encode("gbk", "ignore") if family == "1688" else query.encode())
    return template.format(q=encoded, page=page)


def _with_shop_ids(state: PageState, shop: str, hint: str | None) -> PageState:
    """The generic reading with the shop's name, its currency and the ids its item URLs carry."""
    results = [r.model_copy(update={"id": item_id(r.url) or r.id}) for r in state.results]
    product = state.product
    currency = state.currency if state.currency not in (None, "USD", "JPY") else hint or state.currency
    if product is not None:
        product = product.model_copy(update={"id": item_id(state.url) or product.id, "currency": currency})
    clickables = state.clickables
    if results != state.results:
        urls = {r.id: r.url or "" for r in results}
        clickables = results_clickables([(r, None) for r in results], state.next_page_url, state.prev_page_url,
                                        lambda i: urls.get(i, ""), next_control=has_next_page(state))
    return state.model_copy(update={"shop": shop, "currency": currency, "results": results, "product": product,
                                    "clickables": clickables})
