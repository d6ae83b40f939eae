"""The results page's product cards, written by one format string per card (a
:class:`~shopsim.simsite.html_text.Fragment`) instead of the template.

The card loop was most of a results page's render time (about 80 us a card in Jinja: twenty
expressions, each an attribute lookup, an escape and a call through the template runtime, and a
product link whose every segment was percent-encoded again), and results pages are what HTTP
agents load most. The text is the template's own, character for
character: WebShop's markup (see :mod:`shopsim.simsite.html`), each value escaped as Jinja's
autoescape escapes it (``markupsafe.escape``'s five entities) and the price as Jinja's ``tojson``
filter writes it; attribute values hold no quote (:mod:`shopsim.attr_text`: ``data-*`` values encoded,
``alt`` with typographic quotes).
tests/simsite/test_html_cards.py renders the template's card loop beside this and compares them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from markupsafe import Markup

from shopsim.attr_text import attr_prose, attr_text
from shopsim.links import PageUrls
from shopsim.page import Clickable, PageState
from shopsim.simsite.html_text import Fragment, escape_text

__all__ = ["result_cards"]

_CARD = Fragment(
    '\n        <div class="col-lg-12 mx-auto list-group-item">\n          <div class="col-lg-4">\n'
    '            <img src="{src}" class="result-img" alt="{alt}" width="96" height="96" decoding="async"{original}>\n'
    '          </div>\n          <div class="col-lg-8">\n            <ul class="list-group shadow">\n'
    '                <div class="media align-items-lg-center flex-column flex-lg-row p-3">\n'
    '                  <div class="media-body order-2 order-lg-1 searched-product" data-asin="{asin_attr}">\n'
    '                    \n'
    '                    <h4 class="mt-0 font-weight-bold mb-2 product-asin"><a class="product-link" href="{href}" '
    'data-asin="{asin_attr}"{click}{url}>{asin}</a></h5>\n'
    '                    <h4 class="mt-0 font-weight-bold mb-2 product-title">{title}</h5>\n'
    '                    <div class="d-flex align-items-center justify-content-between mt-1">\n'
    '                      <h5 class="font-weight-bold my-2 product-price" data-price="{price}"{sponsored}>'
    '{price_text}</h6>\n'
    '                    </div>\n<!--\n'
    '                    <div class="d-flex align-items-center justify-content-between mt-1">\n'
    '                      <h5 class="font-weight-bold my-2 product-category">{category}</h5>\n'
    '                    </div>\n'
    '                    <div class="d-flex align-items-center justify-content-between mt-1">\n'
    '                      <h5 class="font-weight-bold my-2 product-query">{query}</h5>\n'
    '                    </div>\n'
    '                    <div class="d-flex align-items-center justify-content-between mt-1">\n'
    '                      <h5 class="font-weight-bold my-2 product-product_category">{product_category}</h5>\n'
    '                    </div>\n-->\n                  </div>\n                </div>\n            </ul>\n'
    '          </div>\n        </div>\n        '
)


#: What percent-encoding leaves as it is (``quote(..., safe="")``): such an ASIN is its own path segment.
_UNRESERVED = re.compile(r"[A-Za-z0-9_.~-]+")
_MARK = "B0CARDMARK0"


def _product_paths(urls: PageUrls, asins: Iterable[str]) -> dict[str, str]:
    """Each card's link, ``urls.product(asin)``: one path built, the ASIN segment swapped per card.

    A page's product links differ only in that segment, and building a path percent-encodes every
    segment again (half of the cards' cost). An ASIN that encoding would change, or a page whose
    other segments happen to hold the marker, is built in full.
    """
    path = urls.product(_MARK)
    before, _, after = path.partition(_MARK)
    whole = path.count(_MARK) != 1
    return {a: urls.product(a) if whole or not _UNRESERVED.fullmatch(a) else before + a + after for a in asins}


def _price(price: Any) -> str:
    """``{{ price|tojson }}``: a finite float is its repr in JSON, and has nothing to escape."""
    if type(price) is float and price - price == 0:  # finite
        return repr(price)
    from jinja2.utils import htmlsafe_json_dumps  # rare (a price range); jinja2 loads only with HTML pages

    return str(htmlsafe_json_dumps(price, sort_keys=True))


def _info(info: Any, name: str) -> str:
    """``{{ info.<name> if info else '' }}``: Jinja renders a missing attribute as nothing."""
    return escape_text(getattr(info, name, "")) if info else ""


def result_cards(state: PageState, urls: PageUrls, order: Mapping[str, int], images: Mapping[str, Mapping[str, Any]],
                 info: Mapping[str, Any]) -> Markup:
    """Every result card of ``state``, as the results template's card loop wrote them."""
    clicks: dict[str, Clickable] = {}
    for clickable in state.clickables:
        clicks.setdefault(clickable.arg, clickable)  # the first, as ``PageState.clickable`` finds it
    paths = _product_paths(urls, (card.id for card in state.results))
    out = []
    for card in state.results:
        c = clicks.get(card.id.lower())
        img = images[card.id]
        product = info.get(card.id)
        out.append(_CARD.fill(
            src=escape_text(img["src"]), title=escape_text(card.title), alt=escape_text(attr_prose(card.title)),
            original=f' data-original-src="{attr_text(img["original"])}"' if img["original"] else "",
            asin=escape_text(card.id), asin_attr=attr_text(card.id), href=escape_text(paths[card.id]),
            click=f' data-click-index="{order[c.arg]}" data-clicked="{"true" if c.clicked else "false"}"' if c else "",
            url=f' data-url="{attr_text(card.url)}"' if card.url else "",
            price=_price(card.price) if card.price is not None else "",
            sponsored=' data-sponsored="true"' if card.sponsored else "", price_text=escape_text(card.price_text),
            category=_info(product, "category"), query=_info(product, "query"),
            product_category=_info(product, "product_category")))
    return Markup("".join(out))
