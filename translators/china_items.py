"""Item pages of Chinese shops: title, displayed price, SKU rows with their raw axis names, breadcrumb.

Each field is read by the markup of the shop's layouts (classic Taobao/Tmall ``tb-`` pages, the
React detail pages whose classes carry hashed suffixes such as ``SkuContent--skuItem--3Nb1tMw``, JD's
``sku-name`` / ``p-price`` / ``#choose-attrs``, 1688's ``od`` modules, AliExpress' ``sku-property``
rows), then by the page's script data (``script_data``: SKU property lists, product records),
then by its ``<title>`` with the shop's suffix taken off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.page import SkuPrice
from shopsim.translators.cards import price_text, text_of
from shopsim.translators.dom import ancestors, attr, collapse
from shopsim.translators.prices import PriceInfo, parse_price, parse_rating
from shopsim.translators.script_data import (
    PageScripts,
    ScriptBlob,
    script_product,
    script_text,
    sku_axes,
    sku_selected,
    walk,
)
from shopsim.translators.sku_prices import PropIds, sku_prices

__all__ = ["ITEM_TITLES", "ChinaItem", "page_title", "read_china_item"]

ITEM_TITLES: dict[str, tuple[str, ...]] = {
    "taobao": ('[class*="mainTitle--"]', '[class*="MainTitle--"]', "h3.tb-main-title", ".tb-main-title",
               ".tb-detail-hd h1", "#J_Title h3", '[class*="ItemTitle--"]'),
    "jd": (".sku-title-name", ".sku-name", '[class*="sku-title-name"]', '[class*="sku-name"]',
           ".itemInfo-wrap .name h1", ".product-intro .name"),
    "1688": (".title-content h1", ".od-pc-offer-title-contain h1", '[class*="offer-title"] h1', ".d-title h1",
             "#mod-detail-title h1"),
    "aliexpress": ('h1[data-pl="product-title"]', ".product-title-text", '[class*="title--wrap--"] h1',
                   ".product-title h1", '[data-pl="product-title"]'),
}
ITEM_TITLES["tmall"] = ITEM_TITLES["taobao"]
_PRICES: dict[str, tuple[str, ...]] = {
    "taobao": ('[class*="highlightPrice--"] [class*="text--"]', '[class*="Price--priceText--"]',
               '[class*="priceText--"]', "#J_PromoPriceNum", "#J_StrPrice .tb-rmb-num", ".tm-promo-price .tm-price",
               ".tm-price", ".tb-rmb-num"),
    "jd": (".product-price--main .product-price--value", ".price-single .price-value", "#J_FinalPrice .price",
           ".J-summary-price .price", ".p-price .price", ".summary-price .price", ".main-price .price",
           "#J-final-price",
           "#jd-price", '[class*="p-price"] [class*="price"]'),
    "1688": (".price-comp .price-info", '[class*="price-text"]', ".price-now", '[class*="price-info"]'),
    "aliexpress": (".product-price-current", '[class*="price--currentPriceText--"]', '[class*="currentPrice--"]',
                   '[class*="price-default--current--"]', ".uniform-banner-box-price", ".product-price-value"),
}
_PRICES["tmall"] = _PRICES["taobao"]
#: Script keys that name only the product's own title and displayed price (AliExpress' runParams
#: modules, JD's ware records); 'title' and 'price' alone name too many other things.
_SCRIPT_TITLES = ("subject", "itemTitle", "productTitle", "wareName", "skuName")
_SCRIPT_PRICES = ("formatedActivityPrice", "formatedPrice", "formattedPrice", "salePriceString", "jdPrice",
                  "priceText")
_RATINGS = (".overview-rating-average", '[class*="reviewer--rating--"] strong', '[data-pl="product-reviewer"] strong',
            '[class*="rateScore"]')
_STRUCK = re.compile(r"(?i)origin|subPrice|linePrice|del-|oldPrice|line-through|strike")


@dataclass(frozen=True)
class _SkuLayout:
    """Where one layout keeps its SKU rows: the row, its axis label, its values, a value's text."""

    row: str
    label: str
    value: str
    text: str = ""


_SKU_LAYOUTS = (
    _SkuLayout('[class*="skuItem--"]', '[class*="labelText--"], [class*="ItemLabel--"], [class*="skuCate"]',
               '[class*="valueItem--"]', '[class*="valueItemText--"]'),
    _SkuLayout("dl.tb-prop, dl.J_Prop", "dt", "dd li", "span"),
    _SkuLayout("#choose-attrs .p-choose, #choose-attrs [data-type], .choose-attrs .p-choose", ".dt", ".dd .item", "i"),
    _SkuLayout(".specification-series-layout, .specification-group",
               ".layout-label, .specification-group-label, .specification-label",
               ".specification-series-item, .specification-item-sku",
               '.specification-item-sku-text, [class*="series-item-text"], [class*="item-text"]'),
    _SkuLayout('#skuSelection .feature-item, [class*="sku-selection"] .feature-item', ".feature-item-label",
               ".item-label, .sku-item-name, .prop-name"),
    _SkuLayout('.sku-property, [class*="sku-item--property--"]', '.sku-title, [class*="sku-item--title--"]',
               '.sku-property-item, [class*="sku-item--image--"], [class*="sku-item--text--"]'),
)
_SELECTED = re.compile(r"(?i)(?:^|[\s_-])(?:tb-)?(?:is)?selected|(?:^|[\s_-])active(?:$|[\s_-])|--selected")
_PROP_ID = re.compile(r"\d+[:;][\d:;]*")
_LABEL_SPLIT = re.compile(r"^(.*?)\s*[:：]\s*(.*)$")
_LABEL_NOISE = re.compile(r"^(?:选择|選擇|请选择|請選擇)|[:：]\s*$")


@dataclass
class ChinaItem:
    """What a Chinese shop's item page shows."""

    title: str = ""
    price: PriceInfo = field(default_factory=lambda: PriceInfo(None, None, ""))
    options: dict[str, list[str]] = field(default_factory=dict)
    selected: dict[str, str | None] = field(default_factory=dict)
    category_path: list[str] = field(default_factory=list)
    rating: float | None = None
    sku_prices: list[SkuPrice] = field(default_factory=list)


def _first_text(root: LexborNode, selectors: tuple[str, ...]) -> str:
    for sel in selectors:
        for node in root.css(sel)[:3]:
            text = collapse(attr(node, "data-title")) or text_of(node)
            if text and len(text) >= 2:
                return text
    return ""


def _price(root: LexborNode, selectors: tuple[str, ...], hint: str | None) -> PriceInfo:
    for sel in selectors:
        for node in root.css(sel)[:6]:
            if any(_STRUCK.search(attr(n, "class")) for n in (node, node.parent) if n is not None):
                continue
            info = parse_price(price_text(node), hint)
            if info.value is None and node.parent is not None:  # '¥' and '12.90' in sibling spans
                info = parse_price(price_text(node.parent), hint)
            if info.value is not None:
                return PriceInfo(info.value, info.currency or hint, info.text)
    return PriceInfo(None, hint, "")


def _value_text(node: LexborNode, layout: _SkuLayout) -> str:
    inner = node.css_first(layout.text) if layout.text else None
    for text in (attr(node, "data-value") if "choose" in layout.row else "", text_of(inner) if inner else "",
                 attr(node, "title"), attr(node.css_first("[title]"), "title"), text_of(node),
                 attr(node.css_first("img[alt]"), "alt")):
        text = collapse(text)
        if text and not _PROP_ID.fullmatch(text):  # '20509:28313' is a property id, not a value
            return text
    return ""


def _axis_name(row: LexborNode, layout: _SkuLayout) -> tuple[str, str | None]:
    """The axis label as shown ('选择颜色' -> '颜色'; AliExpress 'Color: Black' -> 'Color', 'Black')."""
    label = collapse(text_of(row.css_first(layout.label)) or attr(row, "data-type") or attr(row, "data-property"))[:200]
    m = _LABEL_SPLIT.match(label)  # a label is short; its length is cut so the split stays cheap
    name, shown = (m.group(1), m.group(2) or None) if m else (label, None)
    return _LABEL_NOISE.sub("", name).strip(), shown


def _sku_rows(root: LexborNode) -> tuple[dict[str, list[str]], dict[str, str | None]]:
    for layout in _SKU_LAYOUTS:
        rows = root.css(layout.row)[:12]
        matched = {r.mem_id for r in rows}
        options: dict[str, list[str]] = {}
        selected: dict[str, str | None] = {}
        for row in rows:
            if any(p.mem_id in matched for p in ancestors(row, 6)):
                continue  # a row nested in another match (a wrapper matched too)
            name, shown = _axis_name(row, layout)
            values: list[str] = []
            chosen = shown
            for node in row.css(layout.value)[:200]:
                text = _value_text(node, layout)
                if text and text not in values and text != name:
                    values.append(text)
                    if chosen is None and (_SELECTED.search(attr(node, "class")) or "true" in (
                            attr(node, "aria-checked"), attr(node, "aria-selected"))):
                        chosen = text
            if name and values and name not in options:
                options[name] = values
                selected[name] = chosen if chosen in values else None
        if options:
            return options, selected
    return {}, {}


def _row_prop_ids(root: LexborNode) -> PropIds:
    """``pid:vid`` -> (axis, value) of SKU rows whose values carry their property id (classic Taobao/Tmall)."""
    ids: PropIds = {}
    for layout in _SKU_LAYOUTS:
        for row in root.css(layout.row)[:12]:
            name = _axis_name(row, layout)[0]
            for node in row.css(layout.value)[:200] if name else []:
                pv, text = attr(node, "data-value"), _value_text(node, layout)
                if _PROP_ID.fullmatch(pv) and text:
                    ids.setdefault(pv.strip(";"), (name, text))
        if ids:
            return ids
    return ids


def _crumbs(root: LexborNode, family: str) -> list[str]:
    if family != "jd":
        return []
    items = root.css("#crumb-wrap .crumb .item, .crumb-wrap .crumb .item")[:12]
    texts = [text_of(n) for n in items if "sep" not in attr(n, "class").split()]
    return [t for t in texts if t and t not in (">", "›")]


_RATING_KEYS = {"averagestar", "evaragestar", "averagescore", "ratingscore", "rating"}


def _script_rating(blobs: list[ScriptBlob]) -> float | None:
    for _, value in walk(blobs, 20_000):
        if not isinstance(value, dict):
            continue
        for key, raw in value.items():
            if str(key).lower() in _RATING_KEYS and isinstance(raw, (str, int, float)) and not isinstance(raw, bool):
                try:
                    rating = float(raw)
                except ValueError:
                    continue
                if 0 < rating <= 5:
                    return rating
    return None


_TITLE_SUFFIX = re.compile(r"\s*(?:【[^】]{0,40}】)?\s*[-–—_|]\s*(?:淘宝网|淘寶網|tmall\.com天猫|天猫|天貓|京东|京東|JD\.COM|"
                           r"阿里巴巴|1688|AliExpress|Aliexpress)[^-–—_|]*$", re.IGNORECASE)


def page_title(tree: LexborHTMLParser) -> str:
    """The ``<title>`` (or og:title) with the shop's name and JD's '【品牌】' / '【行情 报价 价格 评测】' taken off."""
    node = tree.css_first('meta[property="og:title"]')
    raw = collapse(attr(node, "content") or text_of(tree.css_first("title")))[:1000]  # titles are short
    cleaned = _TITLE_SUFFIX.sub("", raw)
    if cleaned != raw and cleaned.startswith("【"):
        cleaned = re.sub(r"^【[^】]{0,80}】", "", cleaned)
    return collapse(cleaned)


def _script_title(scripts: PageScripts, item_id: str) -> str:
    record = script_product(scripts.blobs, item_id) if item_id else None
    if record is not None and record.id == item_id:
        return record.title
    return script_text(scripts.blobs, _SCRIPT_TITLES)


def read_china_item(tree: LexborHTMLParser, body: LexborNode, family: str, scripts: PageScripts,
                    hint: str | None, item_id: str = "") -> ChinaItem:
    """The item fields this family's layouts show; script data fills in what they lack."""
    item = ChinaItem()
    item.title = _first_text(body, ITEM_TITLES.get(family, ())) or _script_title(scripts, item_id) or page_title(tree)
    item.price = _price(body, _PRICES.get(family, ()), hint)
    if item.price.value is None:
        record = script_product(scripts.blobs, item_id)
        shown = script_text(scripts.blobs, _SCRIPT_PRICES) or (record.price if record is not None else "")
        info = parse_price(shown, hint)
        item.price = PriceInfo(info.value, info.currency or hint, info.text)
    item.options, item.selected = _sku_rows(body)
    if not item.options:
        item.options = sku_axes(scripts.blobs)
        current = sku_selected(scripts.blobs, item_id)
        item.selected = {axis: current.get(axis) for axis in item.options}
    if item.options:
        item.sku_prices = sku_prices(scripts.blobs, item.options, _row_prop_ids(body))
    item.category_path = _crumbs(body, family)
    if family == "aliexpress":
        rating = parse_rating(_first_text(body, _RATINGS))
        item.rating = rating if rating is not None else _script_rating(scripts.blobs)
    return item
