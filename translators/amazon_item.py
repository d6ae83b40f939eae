"""Amazon product (detail) pages, 2010-2026 markup: title, price, variations, bullets, breadcrumbs.

Eras: ``#btAsinTitle`` (2010-2013), ``#productTitle``/``#ebooksProductTitle`` with ``#priceblock_*``
(2014-2020), ``corePrice*``/``apex*`` price blocks (2021+). Variations: classic twister
(``div[id^=variation_]``: swatches or dropdown), inline twister (``inline-twister-row-*``) and the
media-format swatches (``#tmmSwatches``). Lookups are scoped to small containers.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.translators.amazon_results import a_price_text
from shopsim.translators.documents import absolute
from shopsim.translators.dom import attr, collapse, first, select_all, text_of
from shopsim.translators.marketplaces import is_label, strip_label_prefix, ui_prefix
from shopsim.translators.prices import PriceInfo, parse_price, parse_rating
from shopsim.translators.realsite import ItemRead

__all__ = ["item_title", "read_item"]

Ids = dict[str, LexborNode]
_TITLE_IDS = ("productTitle", "ebooksProductTitle", "btAsinTitle", "title", "item_name")
_ASIN_RE = re.compile(r"/(?:dp|gp/product|gp/aw/d|product-reviews)/([A-Z0-9]{10})(?:[/?#]|$)")
_FORMAT_SUFFIX = re.compile(r"\s+(?:format|formato)\s*:$", re.IGNORECASE)


#: Containers of the title block: the mobile layout (``a-mobile``) puts a ``span#title`` in them.
_TITLE_BOXES = frozenset({"title_feature_div", "titleSection", "titleblock_feature_div"})


def _title_block(node: LexborNode) -> bool:
    """Whether ``#title`` is the product title: an h1 or wrapper, or a span in an h1 / the title block."""
    if node.tag in ("h1", "div"):
        return True
    parent, hops = node.parent, 0
    while parent is not None and hops < 4:
        if parent.tag == "h1" or attr(parent, "id") in _TITLE_BOXES:
            return True
        parent, hops = parent.parent, hops + 1
    return False


def item_title(ids: Ids) -> LexborNode | None:
    """The product title node when this is a product page (``#title`` only in a title block)."""
    for key in _TITLE_IDS:
        node = ids.get(key)
        if node is not None and (key != "title" or _title_block(node)) and text_of(node):
            return node
    return None


# ------------------------------------------------------------------------------- fields --
def _title(node: LexborNode) -> str:
    if attr(node, "id") == "btAsinTitle":
        own = collapse(node.text(deep=False))  # the '[Hardcover]' binding tag is a nested span
        if own:
            return own
    return text_of(node)


_JS_ASIN = {key: re.compile(rf'"{key}"\s*:\s*"([A-Z0-9]{{10}})"') for key in ("currentAsin", "mediaAsin", "pageAsin")}


def _js_asin(html: str) -> str:
    """The ASIN of the variant actually shown, from the page's twister/media data (cheap finds)."""
    for key, pattern in _JS_ASIN.items():
        at = html.find(f'"{key}"')
        while at >= 0:
            m = pattern.match(html, at)
            if m:
                return m.group(1)
            at = html.find(f'"{key}"', at + 1)
    return ""


def _asin(ids: Ids, html: str, page_url: str | None, url: str | None) -> str:
    shown = _js_asin(html)
    if shown:
        return shown
    for key in ("ASIN", "ftSelectAsin"):
        node = ids.get(key)
        value = attr(node, "value")
        if node is not None and node.tag == "input" and re.fullmatch(r"[A-Z0-9]{10}", value):
            return value
    for candidate in (page_url, url):
        m = _ASIN_RE.search(candidate or "")
        if m:
            return m.group(1)
    box = ids.get("buybox")
    node = box.css_first('input[name="ASIN.0"], input[name="ASIN"]') if box is not None else None
    return attr(node, "value") or attr(ids.get("averageCustomerReviews"), "data-asin")


def _a_price(node: LexborNode) -> str:
    return a_price_text(node) or text_of(node)


def _apex_price(box: LexborNode, hint: str | None) -> PriceInfo | None:
    """Price to pay inside one core-price container: a displayed range, else the first current price."""
    rng = box.css_first(".a-price-range")
    if rng is not None:
        ends = [_a_price(n) for n in rng.css(".a-price")]
        if len(ends) >= 2:
            info = parse_price(f"{ends[0]} - {ends[-1]}", hint)
            if info.value is not None:
                return info
    preferred = select_all(box, ".priceToPay, .apexPriceToPay, .apex-pricetopay-value")
    for node in [*preferred, *box.css(".a-price")]:
        if attr(node, "data-a-strike") == "true":
            continue
        cls = attr(node, "class")
        if "a-text-price" in cls and "apexPriceToPay" not in cls and "priceToPay" not in cls:
            continue
        info = parse_price(_a_price(node), hint)
        if info.value is not None:
            return info
    return None


#: Core price blocks, desktop first; the mobile layout's (``a-mobile``) have the same inner markup.
_CORE_PRICE = ("corePriceDisplay_desktop_feature_div", "corePrice_desktop", "corePrice_feature_div",
               "apex_desktop", "apex_offerDisplay_desktop", "corePriceDisplay_mobile_feature_div",
               "corePrice_mobile_feature_div", "apex_mobile", "apex_mobile_feature_div", "apex_offerDisplay_mobile",
               "newPitchPriceWrapper_feature_div")
#: (element id, selector inside it or None): older price blocks, most specific first
_LEGACY_PRICE: tuple[tuple[str, str | None], ...] = (
    ("priceblock_dealprice", None), ("priceblock_saleprice", None), ("priceblock_ourprice", None),
    ("priceblock_pospromoprice", None), ("buybox", "tr.kindle-price td.a-color-price"), ("kindle-price", None),
    ("price_inside_buybox", None), ("newBuyBoxPrice", None), ("buyNewSection", ".offer-price"),
    ("actualPriceValue", None), ("priceBlock", ".priceLarge"), ("sns-base-price", None),
    ("tmmSwatches", ".selected .a-color-price"), ("price", None),
)


def _price(ids: Ids, hint: str | None) -> PriceInfo:
    for key in _CORE_PRICE:
        box = ids.get(key)
        if box is not None:
            info = _apex_price(box, hint)
            if info is not None:
                return info
    for key, sub in _LEGACY_PRICE:
        node = ids.get(key)
        if key == "price" and node is not None and node.tag != "span":
            continue  # a bare '#price' span (books); the 2014-2019 '#price' table also lists struck prices
        if node is not None and sub:
            node = node.css_first(sub)
        if node is not None:
            info = parse_price(text_of(node), hint)
            if info.value is not None:
                return info
    return PriceInfo(None, None, "")


def _rating(body: LexborNode, ids: Ids, asin: str) -> tuple[float | None, str]:
    node = ids.get("acrPopover")
    text = attr(node, "title") or text_of(first(node, ".a-icon-alt")) if node is not None else ""
    if not text:  # the mobile layout may wrap the stars in the feature div only
        box = ids.get("averageCustomerReviews") or ids.get("averageCustomerReviews_feature_div")
        text = text_of(first(box, ".a-icon-alt"))
    if not text and asin and "acrPopover" not in ids:  # 2010-2013: star sprite next to the title
        summary = body.css_first(f'.asinReviewsSummary[name="{asin}"]')
        text = attr(first(summary, "[title]"), "title") if summary is not None else ""
    value = parse_rating(text)
    return value, (text if value is not None else "N.A.")


def _breadcrumbs(ids: Ids) -> list[str]:
    """Category links of the breadcrumb bar; its 'Back to results' / '検索結果に戻る' link is no category."""
    box = ids.get("wayfinding-breadcrumbs_feature_div") or ids.get("wayfinding-breadcrumbs_container")
    if box is None:
        return []
    crumbs = []
    for a in box.css("li a"):
        text = text_of(a)
        if text and attr(a, "id") != "breadcrumb-back-link" and not is_label(text, "back", exact=False):
            crumbs.append(text)
    return crumbs


def _bullets(body: LexborNode, ids: Ids) -> list[str]:
    box = ids.get("feature-bullets") or ids.get("featurebullets_feature_div")
    items: list[str] = []
    if box is not None:
        for li in box.css("li"):
            if attr(li, "id") == "replacementPartsFitmentBullet" or "aok-hidden" in attr(li, "class"):
                continue
            text = text_of(li)
            if text:
                items.append(text)
        return items
    scope = ids.get("productFactsDesktopExpander") or ids.get("productFactsDesktop_feature_div") or body
    for head in scope.css("h3.product-facts-title"):
        if not is_label(text_of(head), "about_item", exact=False):
            continue
        sib = head.next
        while sib is not None:
            if sib.tag in ("h3", "hr"):
                break
            if sib.tag == "ul":
                items.extend(t for t in (text_of(li) for li in sib.css("li")) if t)
            sib = sib.next
    return items


def _images(ids: Ids) -> list[str]:
    node = next((ids[k] for k in ("landingImage", "imgBlkFront", "ebooksImgBlkFront", "main-image", "prodImage")
                 if k in ids), None)
    src = attr(node, "data-old-hires") or attr(node, "src")
    return [src] if src.startswith("http") else []


# ----------------------------------------------------------------------------- options --
def _axis_name(text: str, fallback: str) -> str:
    name = collapse(text).rstrip(":：").strip()  # '色：' on Japanese pages
    if not name:
        name = fallback.replace("_name", "").replace("_", " ").strip().title()
    return name


def _add(item: ItemRead, axis: str, value: str, url: str | None, selected: bool) -> None:
    value = collapse(value)
    if not value or is_label(value.strip(" -"), "select"):
        return
    values = item.options.setdefault(axis, [])
    if value not in values:
        values.append(value)
    if url:
        item.option_urls.setdefault(axis, {})[value] = url
    if selected:
        item.selected[axis] = value
    item.selected.setdefault(axis, None)


def _swatch_value(li: LexborNode) -> str:
    """A swatch's value as shown: its text label, else the image's alt, else the 'select X' title."""
    text = text_of(li.css_first(".twisterTextDiv, .swatch-title-text-display, .swatch-title-text"))
    if text:
        return text
    alt = attr(li.css_first("img[alt]"), "alt").strip()
    if alt:
        return alt
    title = attr(li, "title")
    if title:
        return strip_label_prefix(title, "click_to_select")
    return text_of(first(li, "button", ".a-button-text"))


def _dp_url(asin: str, base: str) -> str | None:
    """A variant's product URL on the page's own site, keeping its UI-language prefix (``/-/en``)."""
    return absolute(f"{ui_prefix([base])}/dp/{asin}", base)


def _variation_rows(twister: LexborNode, item: ItemRead, base: str) -> None:
    for row in twister.css('div[id^="variation_"]'):
        dim = attr(row, "id")[len("variation_"):]
        axis = _axis_name(text_of(row.css_first("label")), dim)
        chosen = text_of(row.css_first(".selection"))
        select = row.css_first("select")
        if select is not None:
            for opt in select.css("option"):
                value = attr(opt, "value")
                if value == "-1":
                    continue
                asin = value.rpartition(",")[2]
                url = _dp_url(asin, base) if re.fullmatch(r"[A-Z0-9]{10}", asin) else None
                _add(item, axis, text_of(opt), url, opt.attributes.get("selected") is not None)
        for li in row.css("li"):
            if not (attr(li, "title") or attr(li, "data-defaultasin") or attr(li, "data-asin")):
                continue
            href, default = attr(li, "data-dp-url"), attr(li, "data-defaultasin")
            url = absolute(href, base) if href else _dp_url(default, base) if default else None
            cls = attr(li, "class")
            _add(item, axis, _swatch_value(li), url,
                 "swatchSelect" in cls or li.css_first(".a-button-selected") is not None)
        if chosen and not is_label(chosen.strip(" -"), "select"):
            if axis not in item.options:  # a singleton dimension shows only its one value
                _add(item, axis, chosen, None, True)
            elif chosen in item.options[axis]:
                item.selected[axis] = chosen
        elif axis in item.options:
            item.selected.setdefault(axis, None)


def _inline_rows(ids: Ids, item: ItemRead, base: str) -> None:
    rows = [(key, node) for key, node in ids.items() if key.startswith("inline-twister-row-")]
    for key, row in rows:
        dim = key[len("inline-twister-row-"):]
        head = row.css_first(f"#inline-twister-dim-title-{dim}") or row
        axis = _axis_name(text_of(first(head, ".a-color-secondary")), dim)
        chosen = text_of(row.css_first(f"#inline-twister-expanded-dimension-text-{dim}"))
        for opt in row.css("select option"):
            value = attr(opt, "value")
            asin = value.rpartition(",")[2]
            url = _dp_url(asin, base) if re.fullmatch(r"[A-Z0-9]{10}", asin) else None
            if value != "-1":
                _add(item, axis, text_of(opt), url, opt.attributes.get("selected") is not None)
        for li in select_all(row, "li[data-asin], li.inline-twister-swatch"):
            asin = attr(li, "data-asin")
            link = li.css_first("a[href]")
            href = attr(link, "href")
            url = absolute(href, base) if href else _dp_url(asin, base) if asin else None
            selected = attr(li, "data-initiallyselected") == "true" or li.css_first(".a-button-selected") is not None
            _add(item, axis, _swatch_value(li), url, selected)
        if chosen and axis in item.options and chosen in item.options[axis]:
            item.selected[axis] = chosen


def _format_swatches(ids: Ids, item: ItemRead, base: str) -> None:
    """Media formats (Kindle / Hardcover / Audiobook...) as an axis named 'Format'."""
    box = ids.get("tmmSwatches")
    if box is None:
        return
    for el in box.css(".swatchElement"):
        button = first(el, "a.a-button-text", ".a-button-text", "a[href]")
        label = first(el, ".slot-title", ".audibleTitle", "a.a-button-text span", ".a-button-text span", "span")
        value = text_of(label) or text_of(button)
        value = _FORMAT_SUFFIX.sub("", value)
        selected = "selected" in attr(el, "class").split() or el.css_first(".a-button-selected") is not None
        _add(item, "Format", value, absolute(attr(button, "href"), base), selected)


def read_item(tree: LexborHTMLParser, html: str, ids: Ids, title_node: LexborNode, base: str,
              page_url: str | None, url: str | None, hint: str | None = None) -> ItemRead:
    """Read every product field the page shows (element lookups go through the id index).

    ``hint`` is the marketplace's currency (for price marks several currencies share).
    """
    body = tree.body
    assert body is not None  # the caller read the title from the body's id index
    item = ItemRead()
    item.title = _title(title_node)
    item.id = _asin(ids, html, page_url, url)
    item.price = _price(ids, hint)
    item.rating, item.rating_text = _rating(body, ids, item.id)
    twister = ids.get("twister") or ids.get("twister_feature_div") or ids.get("twisterContainer")
    if twister is not None:
        _variation_rows(twister, item, base)
    else:  # the mobile layout's twister card wraps the same rows under other ids
        for key in ("twister-plus-inline-twister-card", "twister-plus-mobile-inline-twister-card",
                    "twister-plus-inline-twister", "twister-plus-mobile-inline-twister"):
            if key in ids:
                _variation_rows(ids[key], item, base)
                break
    _inline_rows(ids, item, base)
    _format_swatches(ids, item, base)
    item.bullets = _bullets(body, ids)
    item.category_path = _breadcrumbs(ids)
    desc = ids.get("productDescription") or ids.get("bookDescription_feature_div")
    item.description = text_of(desc, sep=" ")[:5000]
    item.images = _images(ids)
    return item
