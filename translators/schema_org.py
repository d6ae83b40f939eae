"""Structured data a shop page carries, read into plain records: JSON-LD, microdata, RDFa, OpenGraph.

Shops describe their products for search engines (schema.org ``Product``/``Offer``/``ItemList``/
``BreadcrumbList``), and that description is cleaner than any markup heuristic, so the generic
translator reads it first. Pages are hostile input: every ``ld+json`` block is size-capped, parsed
leniently (control characters, trailing commas) and walked iteratively with depth and node budgets,
so bad, huge or deeply nested JSON gives fewer records, never an exception or a hang.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.page import Price
from shopsim.translators.dom import attr, collapse, text_of
from shopsim.translators.prices import parse_price

__all__ = ["ListEntry", "ProductRecord", "Structured", "number", "own_url", "read_structured"]

#: One ``ld+json`` block above this many characters is skipped; all blocks together are capped too.
MAX_LD_CHARS = 1_000_000
MAX_LD_TOTAL = 3_000_000
#: Nesting walked inside one JSON-LD document, and objects visited in all of them.
MAX_LD_DEPTH = 12
MAX_LD_NODES = 20_000
#: Microdata/RDFa elements read from one page.
MAX_PROP_NODES = 3_000

_PRODUCT_TYPES = {"product", "productgroup", "individualproduct", "productmodel", "vehicle", "book"}
#: Products inside these (list entries, variants, related products) are not the page's own product.
_CONTAINER_TYPES = _PRODUCT_TYPES | {"itemlist", "offercatalog"}
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_PLAIN_NUMBER = re.compile(r"^\s*-?\d+(?:\.\d+)?\s*$")


@dataclass
class ProductRecord:
    """One product as a page's structured data describes it (fields empty when absent)."""

    source: str
    name: str = ""
    ids: list[str] = field(default_factory=list)
    url: str = ""
    price: Price = None
    currency: str | None = None
    rating: float | None = None
    description: str = ""
    variants: list[dict[str, str]] = field(default_factory=list)


@dataclass
class ListEntry:
    """One entry of an ``ItemList`` (a results page's products, in page order)."""

    url: str = ""
    name: str = ""
    price: Price = None
    currency: str | None = None
    sku: str = ""


@dataclass
class Structured:
    """Everything structured on one page."""

    products: list[ProductRecord] = field(default_factory=list)
    listed: list[ListEntry] = field(default_factory=list)
    breadcrumbs: list[list[str]] = field(default_factory=list)
    types: set[str] = field(default_factory=set)
    og: dict[str, str] = field(default_factory=dict)
    search_target: str | None = None

    @property
    def main_product(self) -> ProductRecord | None:
        """The page's one product: the first record with a name, when all named ones agree."""
        named = [p for p in self.products if p.name]
        if not named or len({p.name.casefold() for p in named}) > 1:
            return None
        return named[0]


# ------------------------------------------------------------------------------- values --
def number(value: Any) -> float | None:
    """A JSON-LD/microdata number: int, float or numeric string ('45.00'); display text goes to parse_price."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value) if value == value and abs(value) < 1e12 else None
    if isinstance(value, str) and value.strip():
        if _PLAIN_NUMBER.match(value):
            return float(value)
        parsed = parse_price(value[:100]).value
        return parsed if isinstance(parsed, float) else None
    return None


def _text(value: Any, limit: int = 1000) -> str:
    """A scalar as display text; the first element of a list; names of nested objects."""
    if isinstance(value, list):
        value = value[0] if value else ""
    if isinstance(value, dict):
        value = value.get("name") or value.get("@id") or ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(int(value)) if float(value).is_integer() else str(value)
    return collapse(html.unescape(value))[:limit] if isinstance(value, str) else ""


def _types(obj: dict) -> set[str]:
    raw = obj.get("@type") or obj.get("type") or ""
    items = raw if isinstance(raw, list) else [raw]
    return {t.rsplit("/", 1)[-1].rsplit(":", 1)[-1].casefold() for t in items if isinstance(t, str)}


def _first(value: Any) -> Any:
    return value[0] if isinstance(value, list) and value else value


# ------------------------------------------------------------------------------ JSON-LD --
def _load_json(text: str) -> Any:
    text = text.strip()
    if text.startswith("<!--"):
        text = text[4:].rsplit("-->", 1)[0]
    for candidate in (text, _TRAILING_COMMA.sub(r"\1", text)):
        try:
            return json.loads(candidate, strict=False)  # strict=False: raw newlines inside strings
        except (ValueError, RecursionError):
            continue
    return None


def _walk(doc: Any, budget: list[int]) -> list[tuple[dict, int, bool]]:
    """Every object in ``doc`` with its depth and whether it sits inside a list or another product."""
    out: list[tuple[dict, int, bool]] = []
    stack: list[tuple[Any, int, bool]] = [(doc, 0, False)]
    while stack and budget[0] > 0:
        obj, depth, listed = stack.pop()
        budget[0] -= 1
        if depth > MAX_LD_DEPTH:
            continue
        if isinstance(obj, list):
            stack.extend((o, depth + 1, listed) for o in reversed(obj[:500]))
        elif isinstance(obj, dict):
            out.append((obj, depth, listed))
            inner = listed or bool(_types(obj) & _CONTAINER_TYPES)
            stack.extend((v, depth + 1, inner) for v in reversed(list(obj.values())[:200])
                         if isinstance(v, (dict, list)))
    return out


def _offer_price(offers: Any) -> tuple[Price, str | None]:
    """(price, currency) of an ``offers`` value: Offer, AggregateOffer (a range when low != high) or a list."""
    items = offers if isinstance(offers, list) else [offers]
    for offer in items[:50]:
        if not isinstance(offer, dict):
            continue
        spec = offer.get("priceSpecification")
        spec = _first(spec) if isinstance(_first(spec), dict) else {}
        currency = _text(offer.get("priceCurrency") or spec.get("priceCurrency")) or None
        low, high = number(offer.get("lowPrice")), number(offer.get("highPrice"))
        if low is not None and high is not None and high > low:
            return (low, high), currency
        value = number(offer.get("price"))
        if value is None:
            value = number(spec.get("price")) if spec else None
        if value is None:
            value = low if low is not None else high
        if value is not None:
            return value, currency
    return None, None


def _rating(obj: dict) -> float | None:
    agg = _first(obj.get("aggregateRating"))
    value = number(agg.get("ratingValue")) if isinstance(agg, dict) else None
    return value if value is not None and 0 <= value <= 5 else None


def _product(obj: dict, source: str) -> ProductRecord:
    rec = ProductRecord(source=source, name=_text(obj.get("name")), url=_text(obj.get("url") or obj.get("@id")))
    rec.ids = [v for v in (_text(obj.get(k)) for k in ("productID", "sku", "productGroupID")) if v]
    rec.price, rec.currency = _offer_price(obj.get("offers"))
    rec.rating = _rating(obj)
    rec.description = _text(obj.get("description"), 5000)
    variants = obj.get("hasVariant")
    prices: list[float] = []
    for v in (variants if isinstance(variants, list) else [])[:200]:
        if isinstance(v, dict):
            price, currency = _offer_price(v.get("offers"))
            rec.currency = rec.currency or currency
            if isinstance(price, float):
                prices.append(price)
            rec.variants.append({k: _text(v.get(k)) for k in ("name", "color", "size", "material", "pattern")
                                 if _text(v.get(k))})
    if rec.price is None and prices:
        rec.price = prices[0] if min(prices) == max(prices) else (min(prices), max(prices))
    return rec


def _crumbs(obj: dict) -> list[str]:
    elements = obj.get("itemListElement")
    rows = []
    for i, el in enumerate(elements if isinstance(elements, list) else []):
        if not isinstance(el, dict):
            continue
        item = el.get("item")
        name = _text(el.get("name")) or (_text(item.get("name")) if isinstance(item, dict) else "")
        pos = number(el.get("position"))
        if name:
            rows.append((pos if pos is not None else float(i), i, name))
    return [name for _, _, name in sorted(rows)]


def _list_entries(obj: dict) -> list[ListEntry]:
    out = []
    elements = obj.get("itemListElement")
    for el in (elements if isinstance(elements, list) else [])[:500]:
        if not isinstance(el, dict):
            continue
        raw_item = el.get("item")
        item = raw_item if isinstance(raw_item, dict) else el
        price, currency = _offer_price(item.get("offers"))
        out.append(ListEntry(url=_text(item.get("url") or el.get("url") or item.get("@id")),
                             name=_text(item.get("name") or el.get("name")), price=price, currency=currency,
                             sku=_text(item.get("sku") or item.get("productID"), 100)))
    return out


def _read_json_ld(tree: LexborHTMLParser, data: Structured) -> None:
    total, budget = 0, [MAX_LD_NODES]
    for script in tree.css('script[type="application/ld+json"]'):
        text = script.text(deep=True) or ""
        total += len(text)
        if len(text) > MAX_LD_CHARS or total > MAX_LD_TOTAL:
            continue
        doc = _load_json(text)
        for obj, _depth, listed in _walk(doc, budget):
            types = _types(obj)
            data.types |= types
            if types & _PRODUCT_TYPES and not listed:
                data.products.append(_product(obj, "json-ld"))
            elif "breadcrumblist" in types:
                trail = _crumbs(obj)
                if trail:
                    data.breadcrumbs.append(trail)
            elif "itemlist" in types and not data.listed:
                data.listed = _list_entries(obj)
            action = obj.get("potentialAction")
            for act in (action if isinstance(action, list) else [action])[:5]:
                target = _first(act.get("target")) if isinstance(act, dict) else None
                target = target.get("urlTemplate") if isinstance(target, dict) else target
                if isinstance(target, str) and target.startswith("http") and data.search_target is None:
                    data.search_target = target


# ---------------------------------------------------------------------- microdata, RDFa --
def _prop_value(node: LexborNode) -> str:
    for name in ("content", "value"):
        if node.attributes.get(name) is not None:
            return collapse(attr(node, name))
    if node.tag in ("a", "link"):
        return attr(node, "href")
    if node.tag in ("img", "source"):
        return attr(node, "src")
    if node.tag in ("time",) and attr(node, "datetime"):
        return attr(node, "datetime")
    return text_of(node, sep=" ")[:1000]


def _opens(node: LexborNode, scope_attr: str) -> bool:
    """Whether ``node`` opens an item: ``itemscope`` (often valueless) or a non-empty ``typeof``."""
    return scope_attr in node.attributes if scope_attr == "itemscope" else bool(attr(node, scope_attr))


def _scope_of(node: LexborNode, scope_attr: str) -> LexborNode | None:
    """The nearest ancestor that opens an item."""
    parent, hops = node.parent, 0
    while parent is not None and hops < 60:
        if _opens(parent, scope_attr):
            return parent
        parent, hops = parent.parent, hops + 1
    return None


def _read_items(tree: LexborHTMLParser, prop_attr: str, scope_attr: str, type_attr: str, data: Structured) -> None:
    """Microdata (itemprop/itemscope/itemtype) or RDFa (property/typeof) into product and breadcrumb records."""
    root = tree.body or tree.root
    if root is None:
        return
    nodes = root.css(f"[{prop_attr}]")[:MAX_PROP_NODES]
    scopes: dict[int, tuple[LexborNode, dict[str, list[str]]]] = {}
    for node in nodes:
        if prop_attr == "property" and node.tag == "meta":
            continue  # OpenGraph meta tags are read separately
        scope = _scope_of(node, scope_attr)
        if scope is None:
            continue
        props = scopes.setdefault(scope.mem_id, (scope, {}))[1]
        for name in attr(node, prop_attr).split():
            name = name.rsplit("/", 1)[-1].rsplit(":", 1)[-1]
            props.setdefault(name, []).append("" if _opens(node, scope_attr) else _prop_value(node))
    crumbs: list[str] = []
    children: dict[int, list[dict[str, list[str]]]] = {}  # scope -> the props of the items nested in it
    for scope, props in scopes.values():
        owner = _scope_of(scope, scope_attr)
        if owner is not None:
            children.setdefault(owner.mem_id, []).append(props)
    for scope, props in scopes.values():
        kind = attr(scope, type_attr).rsplit("/", 1)[-1].rsplit(":", 1)[-1].casefold()
        data.types.add(kind)
        if kind in _PRODUCT_TYPES and len(data.products) < 50 and not _inside_list(scope):
            data.products.append(_micro_product(props, children.get(scope.mem_id, []), prop_attr))
        elif kind == "breadcrumb" and props.get("title"):  # data-vocabulary.org
            crumbs.append(props["title"][0])
        elif kind == "listitem" and props.get("name") and _is_breadcrumb_item(scope, type_attr):
            crumbs.append(props["name"][0])
    if crumbs:
        data.breadcrumbs.append([c for c in crumbs if c])


def _inside_list(scope: LexborNode) -> bool:
    parent, hops = scope.parent, 0
    while parent is not None and hops < 30:
        if "ItemList" in attr(parent, "itemtype") or "OfferCatalog" in attr(parent, "itemtype"):
            return True
        parent, hops = parent.parent, hops + 1
    return False


def _is_breadcrumb_item(scope: LexborNode, type_attr: str) -> bool:
    parent = scope.parent
    for _ in range(4):
        if parent is None:
            return False
        if "BreadcrumbList" in attr(parent, type_attr):
            return True
        parent = parent.parent
    return False


def _micro_product(props: dict[str, list[str]], nested: list[dict[str, list[str]]], prop_attr: str) -> ProductRecord:
    """A product from its own properties and those of the items nested in it (offer, rating)."""
    rec = ProductRecord(source="microdata" if prop_attr == "itemprop" else "rdfa")
    rec.name = next((v for v in props.get("name", []) if v), "")
    rec.url = next((v for v in props.get("url", []) if v), "")
    rec.ids = [v for k in ("productID", "sku") for v in props.get(k, []) if v][:3]
    rec.description = next((v for v in props.get("description", []) if v), "")[:5000]
    keys = {"price": "price", "priceCurrency": "priceCurrency", "currency": "priceCurrency",
            "lowPrice": "lowPrice", "highPrice": "highPrice"}
    merged: dict[str, list[str]] = {}
    for p in [*nested, props]:  # the product's own props win over its offer's
        merged.update({keys[k]: v for k, v in p.items() if k in keys})
    rec.price, rec.currency = _offer_price({k: next((x for x in v if x), "") for k, v in merged.items()})
    rating = next((number(v) for p in nested for v in p.get("ratingValue", []) if number(v) is not None), None)
    rec.rating = rating if rating is not None and 0 <= rating <= 5 else None
    return rec


# ---------------------------------------------------------------------------- OpenGraph --
_OG_KEYS = ("og:title", "og:url", "og:type", "og:site_name", "og:price:amount", "og:price:currency",
            "product:price:amount", "product:price:currency", "product:retailer_item_id", "og:description")


def _read_og(tree: LexborHTMLParser, data: Structured) -> None:
    for node in tree.css("meta[property], meta[name]")[:2000]:
        key = (attr(node, "property") or attr(node, "name")).strip().casefold()
        if key in _OG_KEYS and key not in data.og:
            value = collapse(attr(node, "content"))
            if value:
                data.og[key] = value[:2000]
    amount = number(data.og.get("product:price:amount") or data.og.get("og:price:amount"))
    if amount is not None and "product" in data.og.get("og:type", "product"):
        currency = data.og.get("product:price:currency") or data.og.get("og:price:currency")
        name = data.og.get("og:title", "")
        data.products.append(ProductRecord(source="og", name=name, price=amount, currency=currency or None,
                                           ids=[v for v in [data.og.get("product:retailer_item_id", "")] if v]))


def read_structured(tree: LexborHTMLParser) -> Structured:
    """All structured data of a page: JSON-LD first, then microdata, RDFa and OpenGraph."""
    data = Structured()
    _read_json_ld(tree, data)
    if tree.css_first("[itemscope]") is not None:
        _read_items(tree, "itemprop", "itemscope", "itemtype", data)
    if tree.css_first("[typeof]") is not None:
        _read_items(tree, "property", "typeof", "typeof", data)
    _read_og(tree, data)
    return data


def own_url(tree: LexborHTMLParser) -> str | None:
    """The URL a page states for itself (canonical, og:url, <base href>), looked up in head and body.

    Post-script DOM snapshots often move the canonical link into the body, and some shops print
    placeholders such as ``og:url = "false"``: only absolute http(s) URLs count.
    """
    for sel, name in (('link[rel="canonical"]', "href"), ('meta[property="og:url"]', "content"),
                      ("base[href]", "href")):
        for node in tree.css(sel)[:3]:
            value = attr(node, name).strip()
            if value.startswith(("http://", "https://")) and len(value) < 2000:
                return value
    return None
