"""A results page built from script data alone, for shops whose markup holds no product cards.

Called by the generic translator as its last resort before calling a page unreadable: a page whose
products live only in an inline script (a Next.js flight payload, a ``window.__INITIAL_STATE__``
list) still shows them to a person once its scripts run, so its cards are the script's records.
"""

from __future__ import annotations

from selectolax.lexbor import LexborHTMLParser

from shopsim.page import PageState, ResultCard
from shopsim.translators.clickables import results_clickables
from shopsim.translators.documents import absolute
from shopsim.translators.prices import parse_price
from shopsim.translators.script_data import script_blobs, script_listing

__all__ = ["script_results"]


def script_results(tree: LexborHTMLParser, url: str | None, shop: str | None, query: str | None,
                   currency: str | None = None) -> PageState | None:
    """The page's script product list as a results page (None when its scripts hold none)."""
    items = script_listing(script_blobs(tree))
    if not items:
        return None
    cards: list[tuple[ResultCard, str | None]] = []
    for item in items:
        info = parse_price(item.price.replace("$$", "$"), currency)
        currency = currency or info.currency
        cards.append((ResultCard(id=item.id or f"r{len(cards) + 1}", title=item.title, price=info.value,
                                 price_text=info.text, sponsored=item.sponsored,
                                 url=absolute(item.url, url or "") if item.url else None), None))
    urls = {c.id: c.url or "" for c, _ in cards}
    return PageState(page_type="results", site="other", shop=shop, currency=currency, url=url, query=query,
                     keywords=query.split() if query else None, results=[c for c, _ in cards], has_search_bar=True,
                     clickables=results_clickables(cards, None, None, lambda i: urls.get(i, "")))
