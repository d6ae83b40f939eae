"""Chinese (and Taiwanese) shops by their hosts and page marks, and the product ids their URLs carry.

Names follow the answer keys and ``shops``' rule (a short label keeps its domain): ``jd.com``,
``taobao``, ``tmall``, ``1688.com``, ``aliexpress.com``, ``tw.buy.yahoo.com``, ``momoshop.com.tw``.
Ids are the shop's own, as its item URLs write them: ``item.jd.com/<sku>.html``,
``item.taobao.com/item.htm?id=<n>``, ``detail.1688.com/offer/<n>.html``, ``aliexpress.com/item/<n>.html``.
"""

from __future__ import annotations

import re
from urllib.parse import parse_qsl, urlsplit

from selectolax.lexbor import LexborHTMLParser

from shopsim.translators.documents import page_url
from shopsim.translators.dom import MarkScan

__all__ = ["FAMILIES", "family_of", "item_id", "saved_from", "shop_label"]

#: Shop family -> the host suffixes that are its pages.
FAMILIES: dict[str, tuple[str, ...]] = {
    "jd": ("jd.com", "jd.hk", "360buy.com"),
    "tmall": ("tmall.com", "tmall.hk"),
    "taobao": ("taobao.com",),
    "1688": ("1688.com",),
    "aliexpress": ("aliexpress.com", "aliexpress.us", "aliexpress.ru"),
    "yahoo-tw": ("tw.buy.yahoo.com", "tw.mall.yahoo.com", "tw.bid.yahoo.com"),
    "momo": ("momoshop.com.tw",),
}
#: Marks of each family in a page that states no URL (its own links, scripts and CDNs).
_MARKS: dict[str, tuple[str, ...]] = {
    "jd": ("item.jd.com", "search.jd.com", "360buyimg.com", "//www.jd.com", "misc.360buyimg"),
    "tmall": ("detail.tmall.com", "tmall.com/item", "list.tmall.com"),
    "taobao": ("item.taobao.com", "s.taobao.com", "g_page_config", "taobao.com/item"),
    "1688": ("detail.1688.com", "s.1688.com", "p4psearch.1688.com", "cbu01.alicdn.com", "1688.com/offer"),
    "aliexpress": ("aliexpress.com/item", "ae01.alicdn.com", "aliexpress-media.com", "window.runParams"),
    "yahoo-tw": ("tw.buy.yahoo.com", "tw.mall.yahoo.com"),
    "momo": ("momoshop.com.tw",),
}
#: Pieces the marks share: a page without one is not scanned for the marks holding it (``dom.MarkScan``).
_ANCHORS = ("jd.com", "360buyimg", "tmall.com", "taobao.com", "1688.com", "alicdn.com", "aliexpress", "yahoo.com",
            "momoshop")
_LABELS = {"jd": "jd.com", "tmall": "tmall", "taobao": "taobao", "1688": "1688.com"}


def _host(url: str | None) -> str:
    try:
        return (urlsplit(url or "").hostname or "").lower()
    except ValueError:
        return ""


def _family_of_host(host: str) -> str | None:
    for family, suffixes in FAMILIES.items():
        if any(host == s or host.endswith("." + s) for s in suffixes):
            return family
    return None


_SAVED_FROM = re.compile(r"<!--\s*saved from url=\(\d+\)(https?://[^\s>]{1,2000}?)\s*-->", re.IGNORECASE)


def saved_from(html: str) -> str | None:
    """The URL a browser's 'Save page as' wrote at the top of the page (``<!-- saved from url=(N)... -->``)."""
    m = _SAVED_FROM.search(html[:4000])
    return m.group(1) if m else None


def family_of(url: str | None, html: str, tree: LexborHTMLParser | None = None) -> str | None:
    """The shop family of a page: its URL's host, the URL it states, else the marks it carries most."""
    family = _family_of_host(_host(url))
    if family or _host(url):
        return family
    own = (page_url(tree) if tree is not None else None) or saved_from(html)
    family = _family_of_host(_host(own))
    if family or _host(own):
        return family
    scan = MarkScan(html[:300_000], _ANCHORS)
    counts = {f: scan.count(marks) for f, marks in _MARKS.items()}
    best = max(counts, key=lambda f: counts[f])
    return best if counts[best] >= 2 else None


def shop_label(family: str, url: str | None) -> str:
    """The shop's name as the answer keys give it (AliExpress keeps its country domain)."""
    host = _host(url)
    if family == "jd" and host.endswith(".hk"):
        return "jd.hk"
    if family in _LABELS:
        return _LABELS[family]
    if family == "aliexpress":
        return next((s for s in FAMILIES["aliexpress"] if host.endswith(s)), "aliexpress.com")
    if family == "yahoo-tw":
        return host if host.startswith("tw.") else "tw.buy.yahoo.com"
    return "momoshop.com.tw"


_PATH_IDS = [
    re.compile(r"(?:^|\.)jd\.(?:com|hk)/(?:product/)?(\d{5,})\.html"),
    re.compile(r"1688\.com/offer/(\d{6,})\.html"),
    re.compile(r"aliexpress\.[a-z]{2,3}/(?:item|i)/(?:[\w-]+/)?(\d{6,})\.html"),
    re.compile(r"/item/(\d{8,})\.html"),
    re.compile(r"taobao\.com/i(\d{6,})\.htm"),
    re.compile(r"-(p\d{9,}|\d{6,})\.html?$"),  # Yahoo TW /gdsale/<slug>-<gdid>.html
]
_PARAM_IDS = ("id", "itemid", "item_id", "offerid", "offer_id", "gdid", "actid", "i_code", "goodscode", "productid",
              "sku", "skuid")


def item_id(url: str | None) -> str:
    """The product id an item URL of these shops carries ('' when it carries none)."""
    if not url:
        return ""
    link = url if "//" in url else "https://x/" + url.lstrip("/")
    try:
        parts = urlsplit(link if not link.startswith("//") else "https:" + link)
    except ValueError:
        return ""
    host = (parts.hostname or "").lower()
    if host.endswith(("click.simba.taobao.com", "dj.1688.com", "ccc-x.jd.com")):  # ad click servers
        return next((v for k, v in parse_qsl(parts.query) if k.lower() == "offerid" and v.isdigit()), "")
    path = (host + parts.path).lower()
    for pattern in _PATH_IDS:
        m = pattern.search(path)
        if m:
            return m.group(1)
    for key, value in parse_qsl(parts.query):
        if key.lower() in _PARAM_IDS and re.fullmatch(r"[A-Za-z]?\d{5,}", value):
            return value
    return ""
