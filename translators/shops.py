"""A shop as its pages show it: its name, its currency, and how its URLs work.

Names follow the answer keys: the registrable domain's label (``www1.crutchfield.com`` ->
``crutchfield``) unless the label alone would be ambiguous: shops that run one site per country keep
their country domain (``mercadolibre.com.co``), so does a site under a country domain
(``kabum.com.br``) and a very short label (``buy.com``); Shopify stores are ``shopify:<domain>``.
Without a URL the page's own signals name it (og:site_name, the host it links to most).

URLs: the search box (form action + input name) and the query it shows, the product id a URL
carries, and results-page URLs (the page parameter set, or built from the search form) for a
``next >`` asked of a page that offers none; the pager itself is read in ``pager``.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.translators.documents import absolute
from shopsim.translators.dom import MarkScan, ancestors, attr, collapse

__all__ = ["ID_VALUE", "PAGE_NAMES", "QUERY_NAMES", "SearchForm", "currency_for", "heading_query", "host_of", "page_url",
           "registrable", "search_form", "searchy", "shop_name", "site_origin", "url_id", "url_query", "with_params"]

#: Shops with one site per country: the country domain is part of the name.
MULTI_COUNTRY = frozenset({
    "amazon", "ebay", "mercadolibre", "mercadolivre", "aliexpress", "rakuten", "olx", "jumia", "lazada", "shopee",
    "falabella", "carrefour", "decathlon", "ikea", "zalando", "cdiscount", "otto", "allegro", "bol", "fnac",
    "mediamarkt", "linio", "dafiti", "noon", "tokopedia", "coupang"})
#: Portals whose shops are separate services on their own host (Yahoo! Shopping, Auctions, Flea Market).
_PORTALS = frozenset({"yahoo"})
_GENERIC_TLDS = frozenset({"com", "net", "org", "shop", "store", "co", "io", "biz", "info", "us"})
_SECOND_LEVEL = frozenset({"com", "co", "net", "org", "gov", "gob", "edu", "ac", "or", "ne", "go", "ltd", "plc"})
#: Hosts that serve many sites (CDNs, analytics, bot walls): never a shop's own host.
_THIRD_PARTY = re.compile(r"google|gstatic|facebook|fbcdn|twitter|doubleclick|cloudflare|akamai|px-cloud|perimeterx|"
                          r"datadome|captcha|jquery|bootstrapcdn|cloudfront|amazonaws|youtube|pinterest|instagram|"
                          r"linkedin|apple\.com|w3\.org|schema\.org|adobe|newrelic")
#: Query-string names shops give the search box, and the results page number.
QUERY_NAMES = frozenset({"q", "k", "query", "keywords", "keyword", "search_query", "searchterm", "search", "_nkw",
                         "w", "qu", "text", "term", "as_word", "field-keywords", "s", "searchtext", "ntt", "st"})
PAGE_NAMES = frozenset({"page", "p", "pg", "pagina", "_pgn", "pagenumber", "currentpage", "page_num", "pageno"})
_SEARCHY = re.compile(r"(?i)search|busca|suche|recherche|cerca|/s/?$|/sch/|find|query")
_SEARCH_PATH = re.compile(r"(?i)/(?:s|search|sch|busca|buscar|suche|recherche)(?:/|\.|$)")


def host_of(url: str | None) -> str:
    """The lower-cased host of a URL ('' when none or unparseable)."""
    if not url or ("//" not in url and "\t" not in url and "\n" not in url and "\r" not in url):
        return ""  # a relative link (most of a page's): urlsplit, which drops tabs and newlines, finds no host
    try:
        return (urlsplit(url or "").hostname or "").lower().strip(".")
    except ValueError:
        return ""


def registrable(host: str) -> str:
    """The registrable domain: ``listado.mercadolibre.com.pe`` -> ``mercadolibre.com.pe``."""
    labels = [x for x in host.split(".") if x]
    if len(labels) > 2 and len(labels[-1]) == 2 and labels[-2] in _SECOND_LEVEL:
        return ".".join(labels[-3:])
    return ".".join(labels[-2:])


def _name(domain: str, html: str, host: str = "") -> str:
    """The shop's name from its registrable ``domain``; a Shopify store is named by its own ``host``
    ('shopify:www.nobodyschild.com', 'shopify:ostrichpillow.com'), as its storefront shows it.
    """
    labels = domain.split(".")
    if MarkScan(html[:400_000], ("hopify",)).any(("cdn.shopify.com", "Shopify.shop", ".myshopify.com")):
        return f"shopify:{host or domain}"
    if labels[0] in _PORTALS and host:  # a portal's shops are its services: tw.buy.yahoo.com, auctions.yahoo.co.jp
        return host.removeprefix("www.")
    label, suffix = labels[0], ".".join(labels[1:])
    if len(labels) < 2 or label in MULTI_COUNTRY or len(label) < 4 or suffix not in _GENERIC_TLDS:
        return domain
    return label


def _linked_host(tree: LexborHTMLParser) -> str:
    """The registrable domain the page links to most (its own site), third parties left out."""
    counts: Counter[str] = Counter()
    for node in tree.css("a[href], form[action], link[href], script[src]")[:3000]:
        value = attr(node, "href") or attr(node, "action") or attr(node, "src")
        host = host_of("https:" + value if value.startswith("//") else value)
        if host and not _THIRD_PARTY.search(host):
            counts[registrable(host)] += 2 if node.tag in ("a", "form") else 1
    return counts.most_common(1)[0][0] if counts else ""


def shop_name(url: str | None, tree: LexborHTMLParser | None, html: str) -> str | None:
    """The shop's name from its URL, else from the page (og:site_name when it is a domain, linked hosts)."""
    host = host_of(url)
    if not host and tree is not None:
        site = attr(tree.css_first('meta[property="og:site_name"]'), "content").strip().lower()
        host = site if re.fullmatch(r"(?:www\.)?[a-z0-9\-]+(?:\.[a-z]{2,6}){1,2}", site) else _linked_host(tree)
    if not host or host.replace(".", "").isdigit():
        return None
    return _name(registrable(host), html, host)


def site_origin(url: str | None) -> str | None:
    """``scheme://host`` of a URL, for the shop's home and default search."""
    try:
        parts = urlsplit(url or "")
    except ValueError:
        return None
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else None


# ------------------------------------------------------------------------------- currency --
#: Countries whose currency is also written '$' (or 'kr'), by country-code top-level domain.
_DOLLAR_TLD = {"co": "COP", "mx": "MXN", "ar": "ARS", "cl": "CLP", "uy": "UYU", "ca": "CAD", "au": "AUD",
               "nz": "NZD", "sg": "SGD", "hk": "HKD", "tw": "TWD", "br": "BRL"}
_KRONA_TLD = {"se": "SEK", "no": "NOK", "dk": "DKK", "is": "ISK"}
_MARKS = [("S/", "PEN"), ("R$", "BRL"), ("₹", "INR"), ("€", "EUR"), ("£", "GBP"), ("₩", "KRW"), ("₺", "TRY"),
          ("₽", "RUB"), ("₱", "PHP"), ("₫", "VND"), ("₪", "ILS"), ("฿", "THB"), ("zł", "PLN"), ("Kč", "CZK"),
          ("¥", "JPY"), ("円", "JPY"), ("Rp", "IDR"), ("RM", "MYR")]
_CODE = re.compile(r"\b(USD|EUR|GBP|INR|BRL|COP|PEN|MXN|ARS|CLP|JPY|CAD|AUD|CHF|SEK|NOK|DKK|PLN|TWD|CNY|KRW|IDR|MYR|SGD|HKD)\b")


def currency_for(price_text: str, url: str | None, parsed: str | None = None) -> str | None:
    """ISO code of a displayed price, reading '$' and 'kr' by the shop's country domain."""
    text = price_text or ""
    code = _CODE.search(text)
    if code:
        return code.group(1)
    mark = next((iso for m, iso in _MARKS if m in text), None)
    if mark:
        return mark
    host = host_of(url)
    tld, first = host.rsplit(".", 1)[-1], host.split(".", 1)[0]  # a country site: 'shop.tw' or 'tw.buy.yahoo.com'
    if "$" in text:
        return _DOLLAR_TLD.get(tld) or _DOLLAR_TLD.get(first, "USD")
    if re.search(r"\bkr\b", text):
        return _KRONA_TLD.get(tld) or _KRONA_TLD.get(first, "SEK")
    return parsed


# ------------------------------------------------------------------------------ product ids --
_ID_PARAMS = {"pid", "productid", "product_id", "itemid", "item_id", "sku", "skuid", "listing_id", "prodid",
              "products_id", "tcin", "asin", "id",
              # goods / offer numbers of Asian and European shops (Yahoo Taiwan gdid and actid, momo i_code)
              "gdid", "actid", "goodsid", "goods_id", "goodsno", "goodscode", "i_code", "itemno", "item_no",
              "productno", "prdno", "offerid", "offer_id"}
ID_VALUE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]{2,39}$")
_PREFIXED_ID = re.compile(r"^[A-Za-z]{1,2}[-_]([A-Za-z0-9]*\d[A-Za-z0-9]*)$")  # 'A-94651514', 'p_333ORAK'
_PLAIN_ID = re.compile(r"^(?=(?:[A-Za-z]*\d){3})[A-Za-z0-9]{4,40}$")  # '252423036', 'MCO42090990'
_SLUG_TAIL_ID = re.compile(r"-(\d{4,}|[A-Za-z]\d{6,})$")  # '3506b001-p-271456', Wayfair's '...-w004938717'
#: An article number closing a slug: nine then three letters and digits, each part with a digit
#: (Zalando: '...-skinny-fit-indigo-di121n08p-k12.html' -> 'DI121N08P-K12').
_ARTICLE_TAIL = re.compile(r"-((?=[a-z]*\d)[a-z0-9]{9}-(?=[a-z]*\d)[a-z0-9]{3})$", re.IGNORECASE)
#: A page extension ('.html', '.aspx', Very's '.prd', Best Buy's '.p'): letters only, up to five.
_EXT = re.compile(r"\.[A-Za-z]{1,5}$")


def url_id(url: str | None, params: bool = True) -> str:
    """The product id a shop URL carries: an id query parameter, the last id-like path segment, a slug's tail."""
    try:
        parts = urlsplit(url or "")
    except ValueError:
        return ""
    for key, value in parse_qsl(parts.query) if params else []:
        if key.casefold() in _ID_PARAMS and ID_VALUE.match(value) and any(c.isdigit() for c in value):
            return value
    segments = [_EXT.sub("", unquote(s)) for s in parts.path.split("/") if s]
    for seg in reversed(segments):
        m = _PREFIXED_ID.match(seg)
        if m or _PLAIN_ID.match(seg):
            return m.group(1) if m else seg
    for seg in reversed(segments):
        m = _ARTICLE_TAIL.search(seg)
        if m:
            return m.group(1).upper()
    return next((m.group(1) for m in map(_SLUG_TAIL_ID.search, reversed(segments)) if m), "")


# ----------------------------------------------------------------------------- search box --
@dataclass(frozen=True)
class SearchForm:
    """A shop's search box: where it submits and under which name, as the page's own form says."""

    action: str
    name: str
    method: str = "GET"


def search_form(body: LexborNode, base: str, max_query: int) -> tuple[SearchForm | None, str | None]:
    """The page's search form and the query shown in its box (either may be missing)."""
    found: SearchForm | None = None
    query: str | None = None
    for box in body.css('input[type="search"], input[type="text"], input:not([type])')[:80]:
        name = attr(box, "name")
        marks = " ".join(attr(box, k) for k in ("name", "id", "class", "placeholder", "aria-label", "role", "title"))
        form = next((n for n in ancestors(box, 30) if n.tag == "form"), None)
        action = attr(form, "action")
        if not (name.casefold() in QUERY_NAMES or _SEARCHY.search(marks) or _SEARCHY.search(action)):
            continue  # a search box with no name (a script sends it) still shows the query
        value = collapse(attr(box, "value"))
        query = query or (value if value and len(value) <= max_query else None)
        target = absolute(action, base) if action else None
        if found is None and target and name:
            method = "POST" if attr(form, "method").upper() == "POST" else "GET"
            found = SearchForm(action=target.split("#", 1)[0], name=name, method=method)
        if found is not None and query:
            break
    return found, query



def _params(url: str | None) -> list[tuple[str, str]]:
    try:
        return parse_qsl(urlsplit(url or "").query, keep_blank_values=True)
    except ValueError:
        return []


def url_query(url: str | None, form: SearchForm | None = None) -> str | None:
    """The search query a URL carries (a known query parameter, or the search form's own name)."""
    names = QUERY_NAMES | ({form.name.casefold()} if form is not None else set())
    return next((collapse(v) for k, v in _params(url) if k.casefold() in names and collapse(v)), None)


#: A results heading's query in quotes: 'Showing results for "women blue"', '223 search results for
#: 'Airpods max apple'', '全部分類 中搜尋 “iphone”', 'Suchergebnisse für „jeans“'.
_HEADING_QUERY = re.compile(
    r"""(?i)(?:result|search|ergebnis|résultat|resultado|risultat|resultaten|搜尋|搜索|検索|결과)[^"“”'‘’„«»]{0,40}"""
    r"""(?:"([^"]{1,200})"|“([^”]{1,200})”|‘([^’]{1,200})’|„([^“”]{1,200})[“”]|«\s*([^»]{1,200}?)\s*»"""
    r"""|'(.{1,200}?)'(?=\s*(?:$|[.,:;!?)(|-])))""")  # paired quotes; 'men's shoes' ends at its last quote


def heading_query(heading: str) -> str | None:
    """The query a results heading quotes, or None (a heading without quotes names no query)."""
    m = _HEADING_QUERY.search(heading[:400])
    return collapse(next(g for g in m.groups() if g is not None)) if m else None


def searchy(url: str | None) -> bool:
    """Whether a URL looks like a search: a query parameter or a /search-like path."""
    try:
        path = urlsplit(url or "").path
    except ValueError:
        return False
    return bool(url_query(url)) or bool(_SEARCH_PATH.search(path))


def with_params(url: str, updates: dict[str, str]) -> str:
    """``url`` with query parameters set (others kept, fragment dropped)."""
    parts = urlsplit(url)
    params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k not in updates]
    return urlunsplit(parts._replace(query=urlencode([*params, *updates.items()]), fragment=""))


def page_url(url: str | None, page: int, form: SearchForm | None, query: str | None) -> str | None:
    """Results page ``page``: the current URL's page parameter set, else the search form's URL with one."""
    params = _params(url)
    try:
        key = next((k for k, _ in params if k.casefold() in PAGE_NAMES), None)
        if url and key:
            return with_params(url, {key: str(page)})
        if url and url_query(url, form):
            return with_params(url, {"page": str(page)})
        if form is not None and query:
            return with_params(form.action, {form.name: query, "page": str(page)})
        return with_params(url, {"page": str(page)}) if url else None
    except ValueError:
        return None
