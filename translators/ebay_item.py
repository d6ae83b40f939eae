"""eBay listing (view-item) pages, 2010-2026 markup: title, price, variation selects, specifics.

Eras: ``h1#itemTitle`` with ``#prcIsum``/``#mm-saleDscPrc`` and ``select.msku-sel`` (2010-2021), and
the ``x-item-title``/``x-price-primary``/``ux-labels-values``/``x-msku`` layout (2021+). eBay has no
feature bullets: item specifics go to ``attributes``, bullet_points stay empty.
"""

from __future__ import annotations

import re

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.translators.dom import attr, collapse, first, landmarks, select_all, text_of
from shopsim.translators.ebay_results import item_id_from_url
from shopsim.translators.marketplaces import is_label, label_words
from shopsim.translators.prices import PriceInfo, parse_price, parse_rating
from shopsim.translators.realsite import ItemRead

__all__ = ["is_item_page", "read_item"]

_TITLE = {"t1": "h1.x-item-title__mainTitle", "t2": "h1#itemTitle", "t3": "h1.it-ttl", "t4": "h1.vi-is1-titleH1",
          "t5": 'h1[itemprop="name"]'}
_PRICES = ("x-price-primary", "prcIsum", "mm-saleDscPrc", "prcIsum_bidPrice", "vi-VR-cvipPrice", "itemprop-price",
           "x-bin-price", "vi-price")
#: page landmarks read with one scan (see realsite.landmarks); names are looked up below
_MARKS = {
    "x-price-primary": ".x-price-primary", "prcIsum": "#prcIsum", "mm-saleDscPrc": "#mm-saleDscPrc",
    "prcIsum_bidPrice": "#prcIsum_bidPrice", "vi-VR-cvipPrice": ".vi-VR-cvipPrice",
    "itemprop-price": '[itemprop="price"]', "x-bin-price": ".x-bin-price", "vi-price": ".vi-price",
    "crumbs": "nav.breadcrumbs, .seo-breadcrumbs-container, #vi-VR-brumb-lnkLst, #vi_pg_brdcrmb, #vi-bcrumb1",
    "rating": ".ux-summary__start--rating, .reviews-star-rating, .ebay-review-start-rating",
    "rating-value": '[itemprop="ratingValue"]',
    "specifics": ".x-about-this-item, #viTabs_0_is, div.itemAttr, #itemAttr",
    "item-number": "#descItemNumber",
    "image": "#icImg, img#vi_main_img_fs",
    "msku": ("select.msku-sel, select.x-msku__select-box, .x-msku, .vi-msku-cntr, .x-msku-evo, .x-msku__box-cont, "
             '[data-testid="x-msku-evo"]'),
}
_STOCK_RE = re.compile(r"\s*[\[(](?:" + "|".join(map(re.escape, label_words("sold_out"))) + r")[\])]\s*$",
                       re.IGNORECASE)  # '9 (Out of stock)', '42 [ausverkauft]'


Marks = dict[str, LexborNode]


def is_item_page(tree: LexborHTMLParser) -> LexborNode | None:
    """The listing title node when this is a view-item page."""
    body = tree.body
    if body is None:
        return None
    found = landmarks(body, _TITLE)
    for key in _TITLE:
        node = found.get(key)
        if node is not None and text_of(node, skip_classes=("g-hdn", "clipped")):
            return node
    return None


def _item_id(body: LexborNode, marks: Marks, page_url: str | None, og_url: str | None, url: str | None) -> str:
    for candidate in (og_url, page_url, url):
        found = item_id_from_url(candidate)
        if found:
            return found
    digits = re.sub(r"\D", "", text_of(marks.get("item-number")))
    if digits:
        return digits
    node = body.css_first('[data-testid="ux-layout-section__textual-display--itemId"] .ux-textspans--BOLD, '
                          "div[data-itemid], [data-listing-id]")
    return re.sub(r"\D", "", text_of(node)) or attr(node, "data-itemid") or attr(node, "data-listing-id")


def _placeholder(text: str) -> bool:
    """'- Select -', 'Bitte wählen', 'Sélectionner'...: no option value."""
    return is_label(text.strip(" -.:"), "select")


def _price(marks: Marks, hint: str | None) -> PriceInfo:
    for key in _PRICES:
        node = marks.get(key)
        if node is None:
            continue
        info = parse_price(text_of(node, skip_classes=("x-price-approx", "vi-bid-history-near-price")), hint)
        if info.value is None and attr(node, "content"):
            info = parse_price(attr(node, "content"), hint)
        if info.value is not None:
            return info
    return PriceInfo(None, None, "")


def _axis_label(body: LexborNode, select: LexborNode) -> str:
    sid = attr(select, "id")
    if sid:
        label = body.css_first(f'label[for="{sid}"]')
        text = text_of(label, skip_classes=("clipped",)).rstrip(":").strip()
        if text:
            return text
    name = attr(select, "name") or attr(select, "aria-label")
    return collapse(name).rstrip(":").strip()


def _options(body: LexborNode, marks: Marks, item: ItemRead) -> None:
    if "msku" not in marks:
        return
    selects = body.css('select.msku-sel, select[id^="msku-sel-"], select.x-msku__select-box, '
                       '.x-msku select, .vi-msku-cntr select')
    seen: set[int] = set()
    for select in selects:
        if select.mem_id in seen or attr(select, "id").startswith("mskuTmpClone"):
            continue
        seen.add(select.mem_id)
        axis = _axis_label(body, select)
        if not axis:
            continue
        values: list[str] = []
        chosen: str | None = None
        for opt in select.css("option"):
            text = _STOCK_RE.sub("", text_of(opt))
            if not text or attr(opt, "value") == "-1" or _placeholder(text):
                continue
            if text not in values:
                values.append(text)
            if opt.attributes.get("selected") is not None:
                chosen = text
        if values:
            item.options[axis] = values
            item.selected[axis] = chosen
    if not item.options:
        _listbox_options(body, item)


def _listbox_options(body: LexborNode, item: ItemRead) -> None:
    """2023+ variations: one listbox button per axis (label + current value), values as role=option."""
    for box in select_all(body, '[data-testid="x-msku-evo"] .x-sku, .x-msku-evo .x-sku, .x-msku__box-cont'):
        label = first(box, ".btn__label", ".x-msku__label-text", "label")
        axis = text_of(label, skip_classes=("clipped",)).rstrip(":").strip()
        values: list[str] = []
        for opt in box.css('[role="option"]'):
            shown = collapse(attr(opt, "data-sku-value-name")) or text_of(first(opt, ".listbox__value") or opt)
            text = _STOCK_RE.sub("", shown)
            if text and not _placeholder(text) and text not in values:
                values.append(text)
        if axis and values and axis not in item.options:
            current = text_of(box.css_first(".btn__text"))
            item.options[axis] = values
            item.selected[axis] = current if current in values else None


def _breadcrumbs(marks: Marks) -> list[str]:
    """The trail as shown; the overflow menu that repeats the middle entries is left out."""
    box = marks.get("crumbs")
    if box is None:
        return []
    out: list[str] = []
    seen: set[str] = set()
    for a in box.css("a"):
        href = attr(a, "href")
        text = text_of(a, skip_classes=("clipped",))
        if (not text or "/p/" in href or "fake-menu-button__item" in attr(a, "class").split()
                or text.lower().startswith(label_words("see_more")) or (href and href in seen)):
            continue
        seen.add(href)
        out.append(text)
    return out


def _rating(marks: Marks) -> tuple[float | None, str]:
    node = marks.get("rating") or marks.get("rating-value")
    if node is None:
        return None, "N.A."
    text = attr(node, "content") or attr(node, "title") or text_of(node)
    value = parse_rating(text)
    return value, (text if value is not None else "N.A.")


def _specifics(marks: Marks) -> list[str]:
    out: list[str] = []
    box = marks.get("specifics")
    if box is None:
        return out
    for pair in box.css(".ux-labels-values"):
        label = text_of(first(pair, ".ux-labels-values__labels")).rstrip(":").strip()
        value = text_of(first(pair, ".ux-labels-values__values"), skip_classes=("clipped",))
        if label and value:
            out.append(f"{label}: {value}")
    if out:
        return out
    for row in box.css("tr"):
        cells = [text_of(td) for td in row.css("td")]
        for label, value in zip(cells[0::2], cells[1::2], strict=False):
            label = label.rstrip(":").strip()
            if label and value:
                out.append(f"{label}: {value}")
    return out


def read_item(tree: LexborHTMLParser, title_node: LexborNode, page_url: str | None, url: str | None,
              hint: str | None = None) -> ItemRead:
    """Read every listing field the page shows (page landmarks come from one scan).

    ``hint`` is the marketplace's currency (for price marks several currencies share).
    """
    body = tree.body
    assert body is not None  # the caller read the title from the body (is_item_page)
    marks = landmarks(body, _MARKS)
    item = ItemRead()
    item.title = text_of(title_node, skip_classes=("g-hdn", "clipped"))
    head = tree.head or tree.root
    og = head.css_first('meta[property="og:url"]') if head is not None else None
    item.id = _item_id(body, marks, page_url, attr(og, "content"), url)
    item.price = _price(marks, hint)
    item.rating, item.rating_text = _rating(marks)
    _options(body, marks, item)
    item.category_path = _breadcrumbs(marks)
    item.attributes = _specifics(marks)
    img = marks.get("image")
    src = attr(img, "src") or attr(img, "data-src")
    item.images = [src] if src.startswith("http") else []
    return item
