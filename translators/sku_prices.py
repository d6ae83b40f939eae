"""Each SKU's own price, read from the SKU map a Chinese shop's item page ships in its scripts.

A page whose SKU map prices each combination states what one configuration costs, which the one
listed price (often a range) does not. The maps come in a few shapes: Taobao/Tmall classic
``skuMap`` (``";pid:vid;pid:vid;" -> {"price": ...}``, value names from the SKU rows' ``data-value``),
the React pages' ``skuBase.skus`` (``propPath`` + ``skuId``) priced by ``skuCore.sku2info``,
AliExpress' ``skuPriceList`` (``skuPropIds`` + ``skuVal``) or ``skuPaths`` priced by
``skuIdStrPriceInfoMap``, 1688's ``skuInfoMap`` keyed by the value names themselves, and JD's
``colorSize`` records when they carry a price. A SKU counts only when every axis it names is an
option axis of the page with that value shown; nothing is guessed.
"""

from __future__ import annotations

import math
from typing import Any

from shopsim.page import SkuPrice
from shopsim.translators.prices import parse_price
from shopsim.translators.script_data import ScriptBlob, walk

__all__ = ["PropIds", "sku_prices"]

#: ``"pid:vid"`` -> (axis, value) as the page shows them.
PropIds = dict[str, tuple[str, str]]

MAX_SKUS = 2_000
_PATH_KEYS = ("propPath", "skuPropIds", "skuAttr", "path", "pvs")
_ID_KEYS = ("skuIdStr", "skuId")
_PRICE_MAPS = frozenset({"sku2info", "skuidstrpriceinfomap", "skupriceinfomap"})
#: What the buyer pays first (a promotion's price), then the SKU's own price.
_PRICE_KEYS = ("subPrice", "skuActivityAmount", "salePriceString", "salePrice", "actSkuCalPrice", "discountPrice",
               "promotionPrice", "price", "skuAmount", "skuCalPrice")
_AMOUNT_KEYS = ("priceText", "formatedAmount", "value", "amount")
_PROP_LISTS = frozenset({"props", "productskupropertylist", "skuproperties", "skupropertylist", "saleprops"})
_PROP_ID_KEYS = ("pid", "skuPropertyId", "propId")
_PROP_NAME_KEYS = ("name", "skuPropertyName", "propName")
_VALUE_LISTS = ("values", "skuPropertyValues", "propValues")
_VALUE_ID_KEYS = ("vid", "propertyValueIdLong", "propertyValueId", "valueId")
_VALUE_NAME_KEYS = ("name", "propertyValueDisplayName", "propertyValueName", "valueName")
_RECORD_SKIP = frozenset({"skuid", "sku_id", "sku", "id", "stock", "price", "image", "img", "url", "spuid"})


def _amount(raw: Any, depth: int = 0) -> float | None:
    """A price as a script states it: a number, a displayed text, or a dict holding one."""
    if isinstance(raw, bool) or raw is None or depth > 2:
        return None
    if isinstance(raw, (int, float)):
        return float(raw) if 0 < raw < math.inf else None  # the JSON decoder reads 1e400 and Infinity as inf
    if isinstance(raw, str):
        value = parse_price(raw[:60]).value
        return value if isinstance(value, float) and value > 0 else None
    if isinstance(raw, dict):
        return next((a for a in (_amount(raw.get(k), depth + 1) for k in _AMOUNT_KEYS if k in raw) if a), None)
    return None


def _record_price(record: Any) -> float | None:
    if not isinstance(record, dict):
        return None
    inner = record.get("skuVal")
    holder: dict[str, Any] = inner if isinstance(inner, dict) else record
    return next((a for a in (_amount(holder.get(k)) for k in _PRICE_KEYS if k in holder) if a), None)


def _first(obj: dict[str, Any], keys: tuple[str, ...]) -> str:
    return next((str(obj[k]).strip() for k in keys if isinstance(obj.get(k), (str, int)) and str(obj[k]).strip()), "")


def _script_prop_ids(blobs: list[ScriptBlob]) -> PropIds:
    """``pid:vid`` -> (axis, value) from the scripts' SKU property lists (React Taobao, AliExpress)."""
    ids: PropIds = {}
    for key, value in walk(blobs):
        if key.lower() not in _PROP_LISTS or not isinstance(value, dict):
            continue
        pid, axis = _first(value, _PROP_ID_KEYS), _first(value, _PROP_NAME_KEYS)
        values: list[Any] = next((value[k] for k in _VALUE_LISTS if isinstance(value.get(k), list)), [])
        for v in values[:200] if pid and axis else []:
            if isinstance(v, dict) and (vid := _first(v, _VALUE_ID_KEYS)) and (name := _first(v, _VALUE_NAME_KEYS)):
                ids.setdefault(f"{pid}:{vid}", (axis, name))
    return ids


def _resolve(combo: dict[str, str], options: dict[str, list[str]]) -> dict[str, str] | None:
    """The combination in the page's own axis names, or None when it is not a full shown selection.

    A script may name an axis otherwise than the SKU row does ('颜色分类' / '颜色'): its values then
    find the row that shows them.
    """
    out: dict[str, str] = {}
    for axis, value in combo.items():
        name = axis if value in options.get(axis, ()) else next(
            (a for a, vals in options.items() if value in vals and a not in out), None)
        if name is None or name in out:
            return None
        out[name] = value
    return out if len(out) == len(options) else None


def _path_combo(path: str, ids: PropIds) -> dict[str, str]:
    combo: dict[str, str] = {}
    for token in path.replace(",", ";").split(";"):
        token = token.split("#")[0].strip()
        if token:
            if token not in ids:
                return {}
            axis, value = ids[token]
            combo[axis] = value
    return combo


def _sku_path(record: dict[str, Any]) -> str:
    """A SKU record's property path (AliExpress' ``skuPropIds`` holds bare value ids: its ``skuAttr`` counts)."""
    return next((str(record[k]) for k in _PATH_KEYS if isinstance(record.get(k), str) and ":" in record[k]), "")


def _price_maps(blobs: list[ScriptBlob]) -> dict[str, float]:
    """SKU id -> price from ``sku2info`` / ``skuIdStrPriceInfoMap``-style maps."""
    prices: dict[str, float] = {}
    for key, value in walk(blobs):
        if key.lower() in _PRICE_MAPS and isinstance(value, dict):
            for sku, record in list(value.items())[:MAX_SKUS]:
                if (price := _record_price(record)) is not None:
                    prices.setdefault(str(sku), price)
    return prices


def _path_skus(blobs: list[ScriptBlob], ids: PropIds) -> list[tuple[dict[str, str], float]]:
    """SKUs named by property paths: classic ``skuMap`` keys and lists of records with a path."""
    found: list[tuple[dict[str, str], float]] = []
    by_id: dict[str, float] | None = None
    for key, value in walk(blobs):
        if key == "skuMap" and isinstance(value, dict):
            for path, record in list(value.items())[:MAX_SKUS]:
                price = _record_price(record)
                if price is not None and (combo := _path_combo(path, ids)):
                    found.append((combo, price))
        elif isinstance(value, dict) and (path := _sku_path(value)):
            price = _record_price(value)
            if price is None and (sku := _first(value, _ID_KEYS)):
                by_id = _price_maps(blobs) if by_id is None else by_id
                price = by_id.get(sku)
            if price is not None and (combo := _path_combo(path, ids)):
                found.append((combo, price))
    return found


def _named_skus(blobs: list[ScriptBlob], axes: list[str]) -> list[tuple[dict[str, str], float]]:
    """SKUs named by their values: 1688's ``skuInfoMap`` ('v1&gt;v2') and JD's priced ``colorSize``."""
    found: list[tuple[dict[str, str], float]] = []
    for key, value in walk(blobs):
        if key == "skuInfoMap" and isinstance(value, dict):
            for names, record in list(value.items())[:MAX_SKUS]:
                parts = [p.strip() for p in names.replace("&gt;", ">").split(">")]
                price = _record_price(record)
                if price is not None and len(parts) == len(axes):
                    found.append((dict(zip(axes, parts, strict=True)), price))
        elif key.lower() == "colorsize" and isinstance(value, list):
            for record in value[:MAX_SKUS]:
                if isinstance(record, dict) and (price := _amount(record.get("price"))) is not None:
                    combo = {str(k): str(v) for k, v in record.items()
                             if str(k).lower() not in _RECORD_SKIP and isinstance(v, str) and v}
                    found.append((combo, price))
    return found


def sku_prices(blobs: list[ScriptBlob], options: dict[str, list[str]], ids: PropIds | None = None) -> list[SkuPrice]:
    """Every fully named SKU's price the page's scripts state, in the page's axis names (first wins).

    ``ids`` maps the SKU rows' ``pid:vid`` values to what the rows show (classic Taobao/Tmall);
    the scripts' own property lists add theirs.
    """
    if not options or not blobs:
        return []
    known = {**_script_prop_ids(blobs), **(ids or {})}
    found = _path_skus(blobs, known) if known else []
    if not found:
        found = _named_skus(blobs, list(options))
    out: dict[tuple[tuple[str, str], ...], SkuPrice] = {}
    for combo, price in found:
        named = _resolve(combo, options)
        if named is not None:
            out.setdefault(tuple(sorted(named.items())), SkuPrice(options=named, price=price))
    return list(out.values())
