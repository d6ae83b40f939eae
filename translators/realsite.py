"""The base translators for real shop pages: the parse skeleton, action resolution, marketplaces.

Site translators read the markup into :class:`ResultsRead` / :class:`ItemRead`; the base class
:class:`RealSiteTranslator` (generic shops) turns those into PageStates and maps actions to URLs,
and :class:`MarketTranslator` (Amazon, eBay) does so on each page's country site (``marketplaces``).
The ``Translator`` protocol every translator meets is in ``base``, the registry that picks one
per page in ``registry``. The helpers built on live in ``dom`` (text), ``prices``, ``documents``
(bytes to tree), ``detect`` (site, bot walls) and ``clickables``; import each name from its own
module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser

from shopsim.actions import parse_action
from shopsim.page import (
    Clickable,
    Navigation,
    PageState,
    ProductView,
    ResultCard,
)
from shopsim.translators.clickables import item_clickables, refuse, results_clickables
from shopsim.translators.detect import blocked_reason
from shopsim.translators.documents import decode_html, load_tree, page_url
from shopsim.translators.dom import (
    collapse,
)
from shopsim.translators.marketplaces import (
    Marketplace,
    default_market,
    find_market,
    localise,
    market_by_domain,
    state_urls,
    ui_prefix,
)
from shopsim.translators.prices import PriceInfo, page_currency

__all__ = [
    "ItemRead",
    "MarketTranslator",
    "RealSiteTranslator",
    "ResultsRead",
]

MAX_QUERY_CHARS = 500


@dataclass
class ResultsRead:
    """What one real results page shows (cards with their click selector), before PageState."""

    cards: list[tuple[ResultCard, str | None]] = field(default_factory=list)
    query: str | None = None
    page_num: int | None = None
    next_url: str | None = None
    prev_url: str | None = None
    total: int | None = None


@dataclass
class ItemRead:
    """What one real product page shows (plain fields; the translator builds the ProductView)."""

    id: str = ""
    title: str = ""
    price: PriceInfo = field(default_factory=lambda: PriceInfo(None, None, ""))
    rating: float | None = None
    rating_text: str = "N.A."
    options: dict[str, list[str]] = field(default_factory=dict)
    selected: dict[str, str | None] = field(default_factory=dict)
    option_urls: dict[str, dict[str, str]] = field(default_factory=dict)
    bullets: list[str] = field(default_factory=list)
    description: str = ""
    category_path: list[str] = field(default_factory=list)
    attributes: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)


class RealSiteTranslator:
    """Common parse skeleton and action resolution for real sites; subclasses read the markup."""

    site: str = "unknown"
    home_url: str = "https://www.example.com/"

    # -- hooks for subclasses -----------------------------------------------------------
    def search_url(self, query: str, page: int = 1) -> str:
        """URL of results page ``page`` for ``query`` on this site; subclasses give it."""
        raise NotImplementedError

    def product_url(self, item_id: str) -> str:
        """URL of the product page of ``item_id`` on this site; subclasses give it."""
        raise NotImplementedError

    #: How this site's search URLs look: a path marker, the query parameters, the page parameter.
    search_path = "/search"
    query_params: tuple[str, ...] = ("q",)
    page_param = "page"

    def paged_url(self, state: PageState, page: int) -> str | None:
        """Keep the page's own search URL (filters, sort) with the page number set; else build one."""
        if state.url and self.search_path in urlsplit(state.url).path:
            parts = urlsplit(state.url)
            params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != self.page_param]
            if any(k in self.query_params for k, _ in params):
                params.append((self.page_param, str(page)))
                return urlunsplit(parts._replace(query=urlencode(params)))
        return self.search_url(state.query, page) if state.query else None

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        """Results or item state, or None when the page shows neither."""
        raise NotImplementedError

    def results_state(self, res: ResultsRead, url: str | None) -> PageState:
        """The PageState of a read results page (same shape for every site)."""
        return PageState(
            page_type="results", site=self.site, url=url, query=res.query,  # type: ignore[arg-type]
            keywords=res.query.split() if res.query else None, page_num=res.page_num,
            results=[card for card, _ in res.cards], next_page_url=res.next_url,
            prev_page_url=res.prev_url, has_search_bar=True,
            clickables=results_clickables(res.cards, res.next_url, res.prev_url, self.product_url))

    def item_state(self, item: ItemRead, url: str | None) -> PageState:
        """The PageState of a read product page (same shape for every site; a field a site's reader
        does not fill keeps its empty default).
        """
        product = ProductView(
            id=item.id or "unknown", title=item.title, price=item.price.value, price_text=item.price.text,
            currency=item.price.currency, rating=item.rating, rating_text=item.rating_text,
            options=item.options, selected=item.selected, option_urls=item.option_urls,
            bullet_points=item.bullets, description=item.description, category_path=item.category_path,
            attributes=item.attributes, images=item.images)
        return PageState(page_type="item", site=self.site, url=url, product=product,  # type: ignore[arg-type]
                         clickables=item_clickables(product, None), has_search_bar=True)

    # -- Translator protocol --------------------------------------------------------------
    def parse(self, html: str, url: str | None = None) -> PageState:
        """Parse a real page; never raises: unreadable pages give ``unknown`` with a reason."""
        url = url or None
        try:
            if isinstance(html, (bytes, bytearray)):
                html = decode_html(bytes(html))
            tree, reason = load_tree(html)
            if tree is None:
                return self._unknown(url, reason or "unreadable page")
            text = html if isinstance(html, str) else ""
            state = self.read_page(tree, text, url)
            if state is not None:
                return state
            blocked = blocked_reason(tree, text)
            if blocked:
                return PageState(page_type="blocked", site=self.site, url=url or page_url(tree),  # type: ignore[arg-type]
                                 reason=blocked)
            return self._unknown(url or page_url(tree), f"no search results or product found on this {self.site} page")
        except Exception as exc:  # a malformed page must never crash a session
            return self._unknown(url, f"translator error: {type(exc).__name__}: {exc}")

    def _unknown(self, url: str | None, reason: str) -> PageState:
        return PageState(page_type="unknown", site=self.site, url=url, reason=reason)  # type: ignore[arg-type]

    def resolve(self, state: PageState, action: str) -> Navigation:
        """Map ``search[q]`` / ``click[arg]`` on ``state`` to a Navigation (never raises)."""
        try:
            return self._resolve(state, action)
        except Exception as exc:
            return refuse("navigation_failed", f"could not resolve {action!r}: {type(exc).__name__}")

    def _resolve(self, state: PageState, action: str) -> Navigation:
        name, arg = parse_action(action)
        name = name.strip().lower()
        if name == "search":
            query = collapse(arg or "")
            if not query:
                return refuse("empty_query", "search[] needs a query")
            if len(query) > MAX_QUERY_CHARS:
                return refuse("query_too_long", f"query longer than {MAX_QUERY_CHARS} characters")
            return self._search(state, query)
        if name != "click" or arg is None:
            return refuse("unknown_action", f"unknown action {action!r}: use search[...] or click[...]")
        key = collapse(arg).lower()
        target = state.clickable(key)
        if key in ("next >", "< prev"):
            return self._page_step(state, target, 1 if key == "next >" else -1)
        if target is None:
            target = self._card_clickable(state, key)
        if target is None:
            return refuse("not_available", f"{arg!r} is not clickable on this page")
        if target.kind == "back_to_search":
            return self._home(state)
        if target.kind == "product":
            return self._product(state, target)
        if target.kind == "buy":
            return Navigation(kind="purchase")
        if target.kind == "sub_page":  # drawn from the page already loaded: no request
            return Navigation(kind="sub_page", value=target.text)
        if target.kind == "option":
            if target.url:
                return Navigation(kind="goto", url=target.url, axis=target.axis, value=target.text)
            return Navigation(kind="select", axis=target.axis, value=target.text)
        return refuse("not_available", f"{arg!r} has no navigation here")

    # Where search, back to search and a product lead: the URL shapes of a site that has them
    # (Amazon, eBay); a shop known only by its pages overrides these.
    def _search(self, state: PageState, query: str) -> Navigation:
        return Navigation(kind="goto", url=self.search_url(query, 1))

    def _home(self, state: PageState) -> Navigation:
        return Navigation(kind="goto", url=self.home_url)

    def _product(self, state: PageState, target: Clickable) -> Navigation:
        return Navigation(kind="goto", url=self.product_url(target.text), selector=target.selector)

    def _card_clickable(self, state: PageState, key: str) -> Clickable | None:
        for card in state.results:
            if card.id.lower() == key:
                return Clickable(arg=key, text=card.id, kind="product")
        return None

    def _page_step(self, state: PageState, target: Clickable | None, step: int) -> Navigation:
        if target is not None and target.url:
            return Navigation(kind="goto", url=target.url, selector=target.selector)
        if target is not None and target.kind == "next":  # a next control without a link: no URL is made up
            return refuse("not_recorded", "the next page has no URL on this page (its next control is a script "
                          "button or a link without an address), so it was not recorded; no URL is guessed")
        if state.page_type != "results":
            return refuse("not_available", "the previous page is not known here (use the browser history)")
        page = (state.page_num or 1) + step
        if page < 1:
            return refuse("not_available", "already on the first results page")
        url = self.paged_url(state, page)
        if not url:
            return refuse("not_available", "no query known to page through")
        return Navigation(kind="goto", url=url)


class MarketTranslator(RealSiteTranslator):
    """A real-site translator for every country site of one shop (Amazon or eBay).

    ``market`` and ``prefix`` only serve pages and states that do not say where they are from;
    otherwise the page's own marketplace names ``PageState.shop`` and receives every URL, so one
    instance reads and resolves pages of any country.
    """

    def __init__(self, market: Marketplace | None = None, prefix: str = "") -> None:
        self.market = market or default_market(self.site)
        self.prefix = prefix
        self.home_url = self.market.home(prefix)

    def search_url(self, query: str, page: int = 1) -> str:
        """Search URL on this translator's ``market`` and UI ``prefix``."""
        return self.market.search_url(query, page, self.prefix)

    def product_url(self, item_id: str) -> str:
        """Product page URL on this translator's ``market`` and UI ``prefix``."""
        return self.market.product_url(item_id, self.prefix)

    def page_market(self, html: str, url: str | None, own_url: str | None) -> Marketplace:
        """The page's marketplace from its URLs or text, else this translator's default ``market``."""
        return find_market(self.site, (url, own_url), html) or self.market

    def parse(self, html: str, url: str | None = None) -> PageState:
        """As the base parse; a bot wall or unreadable page keeps the marketplace it says it is from."""
        state = super().parse(html, url)
        if state.shop is None:
            page = ""
            if state.page_type == "blocked":  # small pages: their text is read once more
                raw = decode_html(bytes(html)) if isinstance(html, (bytes, bytearray)) else html
                page = raw if isinstance(raw, str) else ""
            market = find_market(self.site, (url, state.url), page)
            if market is not None:
                state = state.model_copy(update={"shop": market.domain})
        return state

    def market_results(self, res: ResultsRead, url: str | None, own_url: str | None,
                       market: Marketplace) -> PageState:
        """The results state with its card links, shop and currency on the page's marketplace."""
        urls = [url, own_url, res.next_url, res.prev_url, *(card.url for card, _ in res.cards[:20])]
        local = type(self)(market, ui_prefix(urls))
        state = local.results_state(res, url or own_url)
        return localise(state, market, page_currency((card.price_text for card, _ in res.cards), market.currency))

    def market_item(self, item: ItemRead, url: str | None, market: Marketplace) -> PageState:
        """The product state with its shop and currency on the page's marketplace."""
        return localise(self.item_state(item, url), market, item.price.currency)

    def _resolve(self, state: PageState, action: str) -> Navigation:
        """Resolve on the state's own marketplace and UI prefix (amazon.co.jp stays on amazon.co.jp)."""
        urls = state_urls(state)
        market = market_by_domain(state.shop) or find_market(self.site, urls) or self.market
        if market.site != self.site:
            market = self.market
        return RealSiteTranslator._resolve(type(self)(market, ui_prefix(urls) or self.prefix), state, action)
