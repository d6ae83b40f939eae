"""Product data that a page keeps only in its inline scripts, read without running any of them.

Shops that render in the browser ship their data as JSON inside ``<script>`` elements: assigned to a
global (``window.__INITIAL_STATE__ = {...}``, ``var skuMap = {...}``, ``g_page_config = {...}``),
passed to a function (``window.context = (function(){...})(path, {...})``), as a JSON script
(``<script type="application/json">``, ``__NEXT_DATA__``) or as a Next.js flight payload
(``self.__next_f.push([1, "..."])``). This module finds the JSON objects and arrays in those texts
with the standard JSON decoder (JavaScript it cannot read as JSON gives nothing), then looks in
them for product lists, one product's fields and SKU axes by the key names shops use.

Everything is bounded: scripts and characters scanned, decode attempts per script, nodes walked;
nothing is evaluated. The page's ``<script type="application/ld+json">`` is ``schema_org``'s.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from selectolax.lexbor import LexborHTMLParser

__all__ = ["PageScripts", "ScriptBlob", "ScriptItem", "script_blobs", "script_listing", "script_product", "script_text",
           "sku_axes", "sku_selected",
           "walk"]

MAX_SCRIPTS = 300
MAX_SCRIPT_CHARS = 4_000_000
MAX_TOTAL_CHARS = 12_000_000
#: Failed decode attempts per script: a script of 100,000 '{"' that are no JSON costs 40 failed looks.
MAX_ATTEMPTS = 40
#: Decodes of any kind per script: small literals before the page's data (``a0=["x"];`` ...) do not use
#: up the failed attempts, and 4 MB of them still stop here.
MAX_LOOKS = 2_000
MAX_BLOBS = 400
#: Characters that failed decode attempts may read in one script.
MAX_FAILED_CHARS = 6_000_000
#: JSON nodes visited in one search over a page's blobs.
MAX_NODES = 40_000
MIN_BLOB_CHARS = 40
#: Entries of one dict or list looked at (a list of 100,000 numbers is no product list).
MAX_CHILDREN = 1_000

_DECODER = json.JSONDecoder()
_START = re.compile(r'[{\[]\s*"|\[\s*\{\s*"')
_NAME_BEFORE = re.compile(r"([A-Za-z_$][\w$]*)[\"']?\s*[:=]\s*(?:JSON\.parse\(\s*)?$")
_FLIGHT = re.compile(r"self\.__next_f\.push\(\[\s*1\s*,\s*(?=\")")
_TAG = re.compile(r"<[^>]{0,200}>")
_FLIGHT_LINE = re.compile(r"^[0-9a-f]{1,8}:", re.MULTILINE)


@dataclass(frozen=True)
class ScriptBlob:
    """One JSON value found in a script, with the name it was assigned to ('' when none was seen)."""

    name: str
    value: Any


@dataclass
class ScriptItem:
    """A product as a script describes it: what a result card or an item page would show."""

    id: str = ""
    title: str = ""
    price: str = ""
    url: str = ""
    sponsored: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _script_texts(tree: LexborHTMLParser) -> Iterator[tuple[str, str]]:
    """(type, text) of the page's inline scripts, bounded in number and characters."""
    total = 0
    for count, node in enumerate(tree.css("script")):
        if count >= MAX_SCRIPTS or total >= MAX_TOTAL_CHARS:
            return
        kind = (node.attributes.get("type") or "").lower()
        if "ld+json" in kind or node.attributes.get("src"):
            continue
        text = node.text(deep=True) or ""
        if len(text) < MIN_BLOB_CHARS:
            continue
        text = text[:MAX_SCRIPT_CHARS]
        total += len(text)
        yield kind, text


def _decode(text: str, at: int) -> tuple[Any, int] | None:
    try:
        return _DECODER.raw_decode(text, at)
    except (ValueError, RecursionError):
        return None


def _json_in(text: str, blobs: list[ScriptBlob]) -> None:
    """The JSON objects/arrays embedded in one script text, outermost first, in order.

    A failed look costs the characters the decoder read before giving up; the looks at one script
    together read at most ``MAX_FAILED_CHARS`` (a 3 MB object that fails at its end, nested 40 deep,
    is not read 40 times).
    """
    pos = 0
    attempts = looks = 0
    wasted = 0
    while attempts < MAX_ATTEMPTS and looks < MAX_LOOKS and len(blobs) < MAX_BLOBS and wasted < MAX_FAILED_CHARS:
        m = _START.search(text, pos)
        if m is None:
            return
        looks += 1
        try:
            got = _DECODER.raw_decode(text, m.start())
        except json.JSONDecodeError as exc:
            wasted += exc.pos - m.start()
            got = None
        except (ValueError, RecursionError):
            got = None
        if got is None:
            attempts += 1
            pos = m.start() + 1
            continue
        value, end = got
        if end - m.start() >= MIN_BLOB_CHARS:
            named = _NAME_BEFORE.search(text, max(0, m.start() - 80), m.start())
            blobs.append(ScriptBlob(named.group(1) if named else "", value))
        pos = end


def _flight_text(text: str) -> str:
    """The decoded string chunks of a Next.js flight payload (``self.__next_f.push([1, "..."])``)."""
    parts: list[str] = []
    for m in _FLIGHT.finditer(text):
        got = _decode(text, m.end())
        if got is not None and isinstance(got[0], str):
            parts.append(got[0])
    return "".join(parts)


def script_blobs(tree: LexborHTMLParser) -> list[ScriptBlob]:
    """Every JSON value the page's inline scripts hold (JSON scripts whole, others searched)."""
    blobs: list[ScriptBlob] = []
    flight: list[str] = []
    for kind, text in _script_texts(tree):
        if len(blobs) >= MAX_BLOBS:
            break
        if "json" in kind:
            got = _decode(text.strip(), 0)
            if got is not None:
                blobs.append(ScriptBlob("", got[0]))
                continue
        if "__next_f" in text:
            flight.append(_flight_text(text))
            continue
        _json_in(text, blobs)
    if flight:
        payload = "".join(flight)[:MAX_TOTAL_CHARS]
        for m in _FLIGHT_LINE.finditer(payload):
            if len(blobs) >= MAX_BLOBS:
                break
            got = _decode(payload, m.end()) if payload[m.end():m.end() + 1] in "{[" else None
            if got is not None and got[1] - m.end() >= MIN_BLOB_CHARS:
                blobs.append(ScriptBlob("", got[0]))
    return blobs


class PageScripts:
    """A page's script blobs, read on first use (most pages never need them)."""

    def __init__(self, tree: LexborHTMLParser) -> None:
        self._tree = tree
        self._blobs: list[ScriptBlob] | None = None

    @property
    def blobs(self) -> list[ScriptBlob]:
        """The page's blobs (``script_blobs``), read once."""
        if self._blobs is None:
            self._blobs = script_blobs(self._tree)
        return self._blobs


def walk(blobs: list[ScriptBlob], budget: int = MAX_NODES) -> Iterator[tuple[str, Any]]:
    """(key, container) of every dict and list under the blobs, depth-first in document order, bounded.

    A list's items carry the list's key; scalars are not visited (they are most of a page's JSON).
    """
    stack: list[tuple[str, Any]] = [(b.name, b.value) for b in reversed(blobs) if isinstance(b.value, (dict, list))]
    while stack and budget > 0:
        key, value = stack.pop()
        yield key, value
        if isinstance(value, dict):
            children = [(str(k), v) for k, v in islice(value.items(), MAX_CHILDREN) if isinstance(v, (dict, list))]
        else:
            children = [(key, v) for v in value[:MAX_CHILDREN] if isinstance(v, (dict, list))]
        budget -= len(children)  # paid for when stacked, not when visited: a deep chain of wide dicts stays bounded
        stack.extend(reversed(children))


# ----------------------------------------------------------------------------- field names --
_TITLE_KEYS = ("goodsName", "title", "name", "subject", "itemTitle", "productName", "displayTitle", "skuName",
               "wareName", "offerTitle", "raw_title", "item_title", "product_title", "titleText")
_PRICE_KEYS = ("price", "goodsPrice", "salePrice", "finalPrice", "view_price", "priceText", "jdPrice", "minPrice",
               "currentPrice", "promotionPrice", "sellPrice", "priceShow", "showPrice", "displayPrice", "priceStr",
               "formatedActivityPrice", "formatedPrice", "salePriceString")
_TITLE_SET = frozenset(_TITLE_KEYS)
_ID_KEYS = ("goodsCode", "itemId", "item_id", "nid", "offerId", "skuId", "wareId", "productId", "product_id", "sku",
            "goodsId", "id", "itemIdStr", "i_code")
_URL_KEYS = ("url", "href", "link", "detail_url", "detailUrl", "itemUrl", "productUrl", "odUrl", "goodsUrl")
_AD_KEYS = ("isAd", "isAdGoods", "is_ad", "ad", "isP4p", "p4p", "sponsored", "isSponsored")


def _text(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float)):
        return f"{value}"
    if isinstance(value, str):
        return " ".join(value[:2000].split())[:1000]
    if isinstance(value, dict):  # {'price': {'priceText': '12.90'}} / {'text': ...}
        for key in ("priceText", "text", "value", "price", "amount", "formatedAmount", "minPrice"):
            if key in value and not isinstance(value[key], (dict, list)):
                return _text(value[key])
    return ""


def _first(obj: dict[str, Any], keys: tuple[str, ...]) -> str:
    return next((t for t in (_text(obj.get(k)) for k in keys if k in obj) if t), "")


def _item(obj: dict[str, Any]) -> ScriptItem | None:
    """A product record: a dict with a title and an id or price under the usual key names."""
    title = _TAG.sub("", _first(obj, _TITLE_KEYS)).strip()  # '<span class=H>手机</span>壳': highlight marks
    if not title or len(title) < 2 or title.startswith(("http", "/")):
        return None
    ident = _first(obj, _ID_KEYS)
    price = _first(obj, _PRICE_KEYS)
    if not ident and not price:
        return None
    ad = any(obj.get(k) in (True, 1, "1", "true") for k in _AD_KEYS)
    return ScriptItem(id=ident, title=title, price=price, url=_first(obj, _URL_KEYS), sponsored=ad)


def script_listing(blobs: list[ScriptBlob], minimum: int = 3) -> list[ScriptItem]:
    """The page's product list: the longest list of product records (a list repeated is read once)."""
    best: list[ScriptItem] = []
    for _, value in walk(blobs):
        if not isinstance(value, list) or len(value) < max(minimum, len(best) + 1) or \
                not isinstance(value[0], dict) or _TITLE_SET.isdisjoint(value[0]):
            continue
        items = [it for it in (_item(v) for v in value[:500] if isinstance(v, dict)) if it is not None]
        if len(items) >= minimum and len(items) >= 0.8 * len(value) and len(items) > len(best) and \
                sum(1 for it in items if it.id) >= 0.8 * len(items) and len({it.title for it in items}) > 1:
            best = items
    return best


def script_product(blobs: list[ScriptBlob], item_id: str = "") -> ScriptItem | None:
    """The page's one product: the record whose id is ``item_id``, else the first with title and price."""
    first: ScriptItem | None = None
    for _, value in walk(blobs):
        if not isinstance(value, dict):
            continue
        it = _item(value)
        if it is None:
            continue
        if item_id and it.id == item_id and it.title:
            return it
        if first is None and it.price:
            first = it
    return first


def script_text(blobs: list[ScriptBlob], keys: tuple[str, ...]) -> str:
    """The first non-empty text any of ``keys`` holds in the scripts (document order)."""
    wanted = frozenset(keys)
    for _, value in walk(blobs):
        if isinstance(value, dict) and not wanted.isdisjoint(value):
            found = _first(value, keys)
            if found:
                return found
    return ""


# ------------------------------------------------------------------------------- SKU axes --
_AXIS_KEYS = ("name", "prop", "skuPropertyName", "propName", "label", "text", "attrName", "title", "dimName")
_VALUES_KEYS = ("values", "value", "skuPropertyValues", "propValues", "options", "items", "valueList", "attrValues")
_VALUE_KEYS = ("name", "propertyValueDisplayName", "propertyValueName", "valueName", "text", "label", "title",
               "value", "displayName")


def _axis(obj: dict[str, Any]) -> tuple[str, list[str]] | None:
    name = _first(obj, _AXIS_KEYS)
    raw = next((obj[k] for k in _VALUES_KEYS if isinstance(obj.get(k), list)), None)
    if not name or not raw or len(name) > 40:
        return None
    values = [_first(v, _VALUE_KEYS) if isinstance(v, dict) else _text(v) for v in raw[:200]]
    values = [v for v in values if v]
    return (name, list(dict.fromkeys(values))) if values and len(values) == len(raw[:200]) else None


def sku_axes(blobs: list[ScriptBlob], names: tuple[str, ...] = ()) -> dict[str, list[str]]:
    """SKU axes as a script lists them: ``[{name: '颜色分类', values: [{name: '黑色'}, ...]}, ...]``.

    Only lists under a key named like a SKU property list count (``skuProps``, ``props``,
    ``productSKUPropertyList``...; ``names`` adds more); the first such list wins.
    """
    keys = {"skuprops", "props", "productskupropertylist", "skuproperties", "saleprops", "skupropertylist",
            "skuattrs", "salepropertylist", *(n.lower() for n in names)}
    for key, value in walk(blobs):
        if key.lower() not in keys or not isinstance(value, list) or not value:
            continue
        axes = [a for a in (_axis(v) for v in value[:20] if isinstance(v, dict)) if a is not None]
        if axes and len(axes) == len(value[:20]):
            return dict(axes)
    return _sku_map_axes(blobs)


_SKU_ID_KEYS = frozenset({"skuid", "sku_id", "sku", "id", "stock", "price", "image", "img", "url", "spuid"})


def _sku_records(blobs: list[ScriptBlob]) -> list[dict[str, Any]]:
    """A list of SKU records keyed by axis name (JD's ``colorSize``)."""
    for key, value in walk(blobs):
        if key.lower() == "colorsize" and isinstance(value, list) and value and \
                all(isinstance(r, dict) for r in value[:500]):
            return value[:500]
    return []


def _record_axes(record: dict[str, Any]) -> list[tuple[str, str]]:
    return [(str(name), text) for name, raw in record.items()
            if str(name).lower() not in _SKU_ID_KEYS and len(str(name)) <= 20 and (text := _text(raw))]


def _sku_map_axes(blobs: list[ScriptBlob]) -> dict[str, list[str]]:
    """Axes from SKU records keyed by axis name (``[{"skuId": 1, "颜色": "黑色", "版本": "128GB"}, ...]``):
    every key but the SKU's own fields, values in order of first appearance.
    """
    axes: dict[str, list[str]] = {}
    for record in _sku_records(blobs):
        for name, text in _record_axes(record):
            values = axes.setdefault(name, [])
            if text not in values:
                values.append(text)
    return axes


def sku_selected(blobs: list[ScriptBlob], sku_id: str) -> dict[str, str]:
    """The axis values of the SKU record whose id is ``sku_id`` (the SKU the page shows)."""
    for record in _sku_records(blobs):
        if sku_id and str(record.get("skuId", record.get("skuid", ""))) == sku_id:
            return dict(_record_axes(record))
    return {}
