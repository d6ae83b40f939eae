"""Shared helpers for translators of real shop pages (Amazon, eBay): text, prices, URLs, page kinds.

Real pages are large (0.5-3 MB) and come from many markup eras, so everything here works on
small subtrees or with plain ``str.find`` gates; one full-document CSS scan costs ~1 ms.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from shopsim.actions import parse_action
from shopsim.page import (
    Clickable,
    Feedback,
    FeedbackCode,
    Navigation,
    PageState,
    Price,
    ProductView,
    ResultCard,
)
from shopsim.translators.guard import MAX_HTML_CHARS, markup_refusal

__all__ = [
    "MAX_HTML_CHARS",
    "MAX_RESULT_CARDS",
    "ItemRead",
    "PriceInfo",
    "RealSiteTranslator",
    "ResultsRead",
    "absolute",
    "attr",
    "blocked_reason",
    "collapse",
    "decode_html",
    "detect_site",
    "first",
    "id_index",
    "item_clickables",
    "landmarks",
    "load_tree",
    "page_url",
    "parse_price",
    "parse_rating",
    "price_json",
    "refuse",
    "results_clickables",
    "select_all",
    "text_of",
]

_SKIP_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "-comment"})
#: Result cards read from one page (real pages show at most about 70): a page of 100,000 cards is
#: read in bounded time, its first cards only.
MAX_RESULT_CARDS = 1_000


# ------------------------------------------------------------------------------------ text --
def collapse(text: str | None) -> str:
    """Collapse whitespace (NBSP included) to single spaces, trimmed.

    Text and attribute values from the parser are already entity-decoded; decoding again would
    turn a literal '&amp;' shown on the page into '&'.
    """
    if not text:
        return ""
    return " ".join(text.split())


def text_of(node: LexborNode | None, skip_classes: Iterable[str] = (), sep: str = "") -> str:
    """Visible text of ``node``: scripts/styles and elements with any ``skip_classes`` left out."""
    if node is None:
        return ""
    skip = frozenset(skip_classes)
    parts: list[str] = []
    _walk(node, skip, parts)
    return collapse(sep.join(parts))


def _walk(node: LexborNode, skip: frozenset[str], parts: list[str]) -> None:
    """Text of ``node``'s subtree in document order; a loop, not recursion, so depth costs no stack."""
    pending = [node.iter(include_text=True)]
    while pending:
        child = next(pending[-1], None)
        if child is None:
            pending.pop()
            continue
        tag = child.tag
        if tag == "-text":
            parts.append(child.text_content or "")
        elif tag not in _SKIP_TAGS:
            if skip:
                cls = child.attributes.get("class")
                if cls and not skip.isdisjoint(cls.split()):
                    continue
            if tag == "br":
                parts.append(" ")
            pending.append(child.iter(include_text=True))


def attr(node: LexborNode | None, name: str) -> str:
    """Attribute value or '' (selectolax gives None for valueless attributes)."""
    if node is None:
        return ""
    return node.attributes.get(name) or ""


def first(root: LexborNode | LexborHTMLParser | None, *selectors: str) -> LexborNode | None:
    """First node matching the first selector that matches anything (selectors tried in order)."""
    if root is None:
        return None
    for sel in selectors:
        node = root.css_first(sel)
        if node is not None:
            return node
    return None


def select_all(root: LexborNode, selector: str) -> list[LexborNode]:
    """``root.css(selector)`` without repeats: lexbor returns a node once per matching list item."""
    seen: set[int] = set()
    out = []
    for node in root.css(selector):
        if node.mem_id not in seen:
            seen.add(node.mem_id)
            out.append(node)
    return out


def id_index(root: LexborNode) -> dict[str, LexborNode]:
    """Every element id under ``root`` -> its first element, from one scan (ids are exact-case)."""
    out: dict[str, LexborNode] = {}
    for node in root.css("[id]"):
        nid = node.id
        if nid and nid not in out:
            out[nid] = node
    return out


_SIMPLE_RE = re.compile(r"""([a-z0-9]+)?((?:[#.][\w\-]+)*)((?:\[[\w\-]+(?:="[^"]*")?\])*)$""")


def _simple(sel: str) -> tuple[str | None, str | None, frozenset[str], tuple[tuple[str, str | None], ...]]:
    """Split a simple selector 'tag#id.cls[attr="v"]' into parts (no combinators allowed)."""
    m = _SIMPLE_RE.match(sel.strip())
    if m is None:
        raise ValueError(f"landmark selectors must be simple, got {sel!r}")
    tag, marks, attrs = m.groups()
    ids = re.findall(r"#([\w\-]+)", marks)
    classes = frozenset(re.findall(r"\.([\w\-]+)", marks))
    pairs = tuple((k, v) for k, v in re.findall(r'\[([\w\-]+)(?:="([^"]*)")?\]', attrs))
    return tag, (ids[0] if ids else None), classes, tuple((k, v or None) for k, v in pairs)


def landmarks(root: LexborNode, selectors: dict[str, str]) -> dict[str, LexborNode]:
    """First node (document order) for each named selector list, from ONE scan of ``root``.

    Each value is a comma list of simple selectors (tag, #id, .class, [attr], [attr="v"]);
    matching the scan's nodes back to names is done in Python, which is far cheaper than
    one CSS scan per selector on a 1-3 MB page.
    """
    specs = [(name, _simple(part)) for name, sel in selectors.items() for part in sel.split(",")]
    found: dict[str, LexborNode] = {}
    for node in root.css(", ".join(selectors.values())):
        attrs = node.attributes
        classes = set((attrs.get("class") or "").split())
        for name, (tag, nid, cls, pairs) in specs:
            if name in found or (tag and node.tag != tag) or (nid and attrs.get("id") != nid):
                continue
            if cls <= classes and all(k in attrs and (v is None or attrs.get(k) == v) for k, v in pairs):
                found[name] = node
        if len(found) == len(selectors):
            break
    return found


# ---------------------------------------------------------------------------------- prices --
@dataclass(frozen=True)
class PriceInfo:
    """A parsed price: value (number or displayed range), its currency, and the text it came from."""

    value: Price
    currency: str | None
    text: str


_CURRENCY_MARKS: list[tuple[str, str]] = [
    ("US $", "USD"), ("US$", "USD"), ("USD", "USD"), ("C $", "CAD"), ("CA $", "CAD"), ("C$", "CAD"),
    ("CAD", "CAD"), ("AU $", "AUD"), ("A $", "AUD"), ("AU$", "AUD"), ("AUD", "AUD"), ("NZ $", "NZD"),
    ("HK$", "HKD"), ("S$", "SGD"), ("R$", "BRL"), ("MX$", "MXN"), ("EUR", "EUR"), ("€", "EUR"),
    ("GBP", "GBP"), ("£", "GBP"), ("JPY", "JPY"), ("円", "JPY"), ("¥", "JPY"), ("CNY", "CNY"),
    ("RMB", "CNY"), ("INR", "INR"), ("₹", "INR"), ("Rs.", "INR"), ("CHF", "CHF"), ("SEK", "SEK"),
    ("PLN", "PLN"), ("zł", "PLN"), ("kr", "SEK"), ("₩", "KRW"), ("KRW", "KRW"), ("TRY", "TRY"),
    ("₺", "TRY"), ("MXN", "MXN"), ("BRL", "BRL"), ("$", "USD"),
]
_NUM_RE = re.compile(r"\d{1,3}(?:[.,\u00a0\u202f' ]\d{3})+(?:[.,]\d{1,2})?(?!\d)|\d+(?:[.,]\d{1,2})?(?!\d)")
_RANGE_SEP_RE = re.compile(r"^\s*(?:-|–|—|~|～|to|bis|à|a|a partire da)\s*$", re.IGNORECASE)
_PRICE_HINT_RE = re.compile(r"\d")


def _number(token: str) -> float | None:
    """One displayed number in any locale: '1,299.99', '1.299,99', '3,858', '10,00', '1 299'."""
    t = token.replace("\u00a0", " ").replace("\u202f", " ").replace("'", " ")
    t = t.replace(" ", "")
    dots, commas = t.count("."), t.count(",")
    if dots and commas:
        dec = "." if t.rfind(".") > t.rfind(",") else ","
        t = t.replace("," if dec == "." else ".", "").replace(dec, ".")
    elif dots or commas:
        sep = "." if dots else ","
        head, _, tail = t.rpartition(sep)
        grouped = (dots + commas) > 1 or len(tail) == 3  # '1,299' / '1.299.000' are thousands
        t = t.replace(sep, "") if grouped else head.replace(sep, "") + "." + tail
    try:
        return float(t)
    except ValueError:
        return None


def _currency(text: str) -> str | None:
    for mark, code in _CURRENCY_MARKS:
        if mark in text:
            return code
    return None


def parse_price(text: str | None) -> PriceInfo:
    """Parse a displayed price; '$10.99 - $15.99' / '£1 to £2' / '3,858 円 ～ 13,507 円' give ranges.

    Only the first price (or the first two when joined by a range word) counts, so trailing unit
    prices such as '($1.16/Fl Oz)' are ignored. No digits -> value None.
    """
    s = collapse(text)
    if not s or not _PRICE_HINT_RE.search(s):
        return PriceInfo(None, _currency(s) if s else None, s)
    matches = list(_NUM_RE.finditer(s))
    if not matches:
        return PriceInfo(None, _currency(s), s)
    low = _number(matches[0].group())
    value: Price = low
    if len(matches) >= 2 and low is not None:
        between = s[matches[0].end() : matches[1].start()]
        between_clean = re.sub(r"[^\w\-–—~～]+", " ", between)
        for mark, _code in _CURRENCY_MARKS:
            between_clean = between_clean.replace(mark, " ")
        between_clean = re.sub(r"\b(?:US|CA|AU|C|A|EUR|GBP|JPY|USD)\b", " ", between_clean)
        if _RANGE_SEP_RE.match(between_clean) or (between_clean.strip() == "" and "-" in between):
            high = _number(matches[1].group())
            if high is not None and high >= low:
                value = (low, high)
    return PriceInfo(value, _currency(s), s)


def price_json(value: Price) -> float | list[float] | None:
    """A Price as the answer-key JSON wants it: float, [low, high] or null."""
    if isinstance(value, tuple):
        return [value[0], value[1]]
    return value


_RATING_RE = re.compile(r"(\d(?:[.,]\d+)?)\D{1,30}?\b5\b")  # '4.5 out of 5', '4,5 de un máximo de 5'
_RATING_JA_RE = re.compile(r"5つ星のうち\s*(\d(?:[.,]\d+)?)")


def parse_rating(text: str | None) -> float | None:
    """'4.5 out of 5 stars' / '4,5 von 5 Sternen' / '5つ星のうち4.5' / '5.0' -> float in 0..5, else None."""
    s = collapse(text)
    if not s:
        return None
    m = _RATING_JA_RE.search(s) or _RATING_RE.match(s) or _RATING_RE.search(s)
    raw = m.group(1) if m else (s if re.fullmatch(r"\d(?:[.,]\d+)?", s) else None)
    if raw is None:
        return None
    value = float(raw.replace(",", "."))
    return value if 0.0 <= value <= 5.0 else None


# ---------------------------------------------------------------------------- documents --
_META_CHARSET_RE = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?([A-Za-z0-9_\-]+)""", re.IGNORECASE)


def decode_html(data: bytes) -> str:
    """Bytes -> str: BOM (UTF-8 or UTF-16), then strict UTF-8, BOM-less UTF-16, the meta charset, cp1252.

    Never raises: undecodable bytes become U+FFFD.
    """
    if data.startswith(b"\xef\xbb\xbf"):
        return data[3:].decode("utf-8", "replace")
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return data.decode("utf-16", "replace")
    if len(data) >= 4 and (data[1] == data[3] == 0) != (data[0] == data[2] == 0):  # BOM-less UTF-16
        return data.decode("utf-16-le" if data[1] == 0 else "utf-16-be", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        pass
    m = _META_CHARSET_RE.search(data[:8192])
    enc = m.group(1).decode("ascii").lower() if m else "cp1252"
    if enc in ("iso-8859-1", "latin-1", "latin1", "us-ascii", "ascii"):
        enc = "cp1252"  # browsers treat these labels as windows-1252
    try:
        return data.decode(enc, "replace")
    except LookupError:
        return data.decode("cp1252", "replace")


def load_tree(html: object) -> tuple[LexborHTMLParser | None, str | None]:
    """Parse ``html``; returns (tree, None) or (None, reason) for input that is no HTML page.

    Pages whose parse would cost too much (``guard.markup_refusal``: too large, too deeply
    nested, too many elements or attributes) are refused with the reason, never parsed.
    """
    if isinstance(html, (bytes, bytearray)):
        html = decode_html(bytes(html))
    if not isinstance(html, str):
        return None, f"page is not text ({type(html).__name__})"
    if not html or html.isspace():  # isspace() stops at the first '<' instead of copying the page
        return None, "empty page"
    if len(html) > MAX_HTML_CHARS:
        return None, f"page too large ({len(html):,} characters; the limit is {MAX_HTML_CHARS:,})"
    if "<" not in html[:65536]:
        return None, "no HTML markup in page"
    if "\x00" in html:
        html = html.replace("\x00", "")
    refusal = markup_refusal(html)  # bounded parse time and memory whatever the page's shape
    if refusal is not None:
        return None, refusal
    try:
        tree = LexborHTMLParser(html)
    except Exception as exc:  # selectolax raises plain errors on pathological input
        return None, f"unparseable HTML: {type(exc).__name__}"
    if tree.body is None and tree.root is None:
        return None, "unparseable HTML"
    return tree, None


def page_url(tree: LexborHTMLParser) -> str | None:
    """The URL the page states for itself: canonical link, og:url or <base href>."""
    head = tree.head or tree.root
    if head is None:
        return None
    for sel, name in (('link[rel="canonical"]', "href"), ('meta[property="og:url"]', "content"),
                      ("base[href]", "href")):
        node = head.css_first(sel)
        value = attr(node, name).strip()
        if value.startswith("http"):
            return value
    return None


def absolute(href: str | None, base: str) -> str | None:
    """Absolute http(s) URL for a link, or None for empty/javascript links."""
    if not href:
        return None
    href = href.strip()
    if href.startswith(("https://", "http://")):
        return href
    if not href or href.startswith(("javascript:", "#", "mailto:")):
        return None
    if href.startswith("/") and not href.startswith("//"):
        parts = urlsplit(base)
        if parts.scheme and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}{href}"
    try:
        return urljoin(base, href)
    except ValueError:
        return None


# ------------------------------------------------------------------------ site and kind --
_SITE_HOSTS = {"amazon": ("amazon.",), "ebay": ("ebay.",)}


def _host_site(url: str | None) -> str | None:
    if not url:
        return None
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return None
    for site, marks in _SITE_HOSTS.items():
        if any(m in host for m in marks):
            return site
    return None


def detect_site(html: str, tree: LexborHTMLParser | None, url: str | None = None) -> str:
    """'amazon' / 'ebay' / 'unknown': from the URL, the page's own URL, then its markup."""
    site = _host_site(url)
    if site:
        return site
    if tree is not None:
        site = _host_site(page_url(tree))
        if site:
            return site
    head = html[:200_000]
    amazon = head.count("amazon.com") + head.count("media-amazon") + head.count("images-amazon")
    amazon += 5 * (head.count('id="nav-logo') + head.count("twotabsearchtextbox"))
    ebay = head.count("ebay.com") + head.count("ebaystatic") + head.count("ebayimg")
    ebay += 5 * (head.count('id="gh-ac"') + head.count("srp-results"))
    if amazon == ebay == 0 and len(html) > len(head):
        amazon = html.count("amazon.com")
        ebay = html.count("ebay.com")
    if amazon > ebay:
        return "amazon"
    if ebay > amazon:
        return "ebay"
    return "unknown"


_BLOCKED_TITLES = [
    ("robot check", "robot check (captcha)"),
    ("pardon our interruption", "bot challenge (Pardon Our Interruption)"),
    ("security measure", "bot challenge (security measure)"),
    ("attention required", "bot challenge (Cloudflare)"),
    ("just a moment", "bot challenge (browser check)"),
    ("access denied", "access denied"),
    ("page not found", "error page (not found)"),
    ("404 not found", "error page (404)"),
    ("403 forbidden", "error page (403)"),
    ("503 service", "error page (503)"),
    ("service unavailable", "error page (service unavailable)"),
    ("sorry! something went wrong", "error page (something went wrong)"),
    ("error page", "error page"),
]
_BLOCKED_TEXT = [
    ("/errors/validatecaptcha", "captcha (validateCaptcha form)"),
    ("captchacharacters", "captcha"),
    ("enter the characters you see below", "captcha"),
    ("type the characters you see in this image", "captcha"),
    ("click the button below to continue shopping", "captcha (continue-shopping check)"),
    ("checking your browser before you access", "bot challenge (browser check)"),
    ("pardon our interruption", "bot challenge (Pardon Our Interruption)"),
    ("/splashui/captcha", "captcha (eBay splash)"),
    ("px-captcha", "captcha (PerimeterX)"),
    ("we're sorry. the web address you entered is not a functioning page", "error page (not found)"),
    ("looks like this page is missing", "error page (not found)"),
    ("sorry! something went wrong on our end", "error page (something went wrong)"),
    ("sorry, we just need to make sure you're not a robot", "robot check (captcha)"),
]


def blocked_reason(tree: LexborHTMLParser, html: str) -> str | None:
    """Why this page is a captcha / bot challenge / error page, or None when it is not one.

    Called only after a page shows neither results nor a product, so strong phrases are enough.
    """
    title_node = (tree.head or tree.root).css_first("title") if (tree.head or tree.root) else None
    low_title = collapse(title_node.text() if title_node is not None else "").lower()
    for mark, reason in _BLOCKED_TITLES:
        if mark in low_title:
            return reason
    sample = html if len(html) < 400_000 else html[:200_000] + html[-200_000:]
    low = sample.lower()
    for mark, reason in _BLOCKED_TEXT:
        if mark in low:
            return reason
    return None


# ------------------------------------------------------------------- clickables / resolve --
def results_clickables(cards: list[tuple[ResultCard, str | None]], next_url: str | None,
                       prev_url: str | None, product_url: Callable[[str], str]) -> list[Clickable]:
    """WebShop's results-page actions: back, paging, then one ``click[<id>]`` per distinct card."""
    out = [Clickable(arg="back to search", text="Back to Search", kind="back_to_search")]
    if prev_url:
        out.append(Clickable(arg="< prev", text="< Prev", kind="prev", url=prev_url))
    if next_url:
        out.append(Clickable(arg="next >", text="Next >", kind="next", url=next_url))
    seen = {c.arg for c in out}
    for card, selector in cards:
        arg = card.id.lower()
        if arg in seen:
            continue
        seen.add(arg)
        out.append(Clickable(arg=arg, text=card.id, kind="product", url=product_url(card.id),
                             selector=selector))
    return out


def item_clickables(product: ProductView, prev_url: str | None) -> list[Clickable]:
    """Item-page actions; an option value shared by two axes is qualified as '<axis>: <value>'."""
    out = [Clickable(arg="back to search", text="Back to Search", kind="back_to_search"),
           Clickable(arg="< prev", text="< Prev", kind="prev", url=prev_url),
           Clickable(arg="buy now", text="Buy Now", kind="buy")]
    seen = {c.arg for c in out}
    for axis, values in product.options.items():
        urls = product.option_urls.get(axis, {})
        chosen = product.selected.get(axis)
        for value in values:
            arg = value.lower()
            if not arg:
                continue
            if arg in seen:
                arg = f"{axis}: {value}".lower()
                if arg in seen:
                    continue
            seen.add(arg)
            out.append(Clickable(arg=arg, text=value, kind="option", axis=axis, url=urls.get(value),
                                 clicked=value == chosen))
    return out


def refuse(code: FeedbackCode, message: str) -> Navigation:
    """A non-navigation: the action is refused with a feedback code saying why."""
    return Navigation(kind="none", feedback=Feedback(code=code, message=message))


MAX_QUERY_CHARS = 500


@dataclass
class ResultsRead:
    """What one real results page shows (cards with their click selector), before PageState."""

    cards: list[tuple[ResultCard, str | None]] = field(default_factory=list)
    query: str | None = None
    page_num: int | None = None
    next_url: str | None = None
    prev_url: str | None = None
    total: int | None = None


@dataclass
class ItemRead:
    """What one real product page shows (plain fields; the translator builds the ProductView)."""

    id: str = ""
    title: str = ""
    price: PriceInfo = field(default_factory=lambda: PriceInfo(None, None, ""))
    rating: float | None = None
    rating_text: str = "N.A."
    options: dict[str, list[str]] = field(default_factory=dict)
    selected: dict[str, str | None] = field(default_factory=dict)
    option_urls: dict[str, dict[str, str]] = field(default_factory=dict)
    bullets: list[str] = field(default_factory=list)
    description: str = ""
    category_path: list[str] = field(default_factory=list)
    attributes: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)


class RealSiteTranslator:
    """Common parse skeleton and action resolution for real sites; subclasses read the markup."""

    site: str = "unknown"
    home_url: str = "https://www.example.com/"

    # -- hooks for subclasses -----------------------------------------------------------
    def search_url(self, query: str, page: int = 1) -> str:
        raise NotImplementedError

    def product_url(self, item_id: str) -> str:
        raise NotImplementedError

    #: How this site's search URLs look: a path marker, the query parameters, the page parameter.
    search_path = "/search"
    query_params: tuple[str, ...] = ("q",)
    page_param = "page"

    def paged_url(self, state: PageState, page: int) -> str | None:
        """Keep the page's own search URL (filters, sort) with the page number set; else build one."""
        if state.url and self.search_path in urlsplit(state.url).path:
            parts = urlsplit(state.url)
            params = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != self.page_param]
            if any(k in self.query_params for k, _ in params):
                params.append((self.page_param, str(page)))
                return urlunsplit(parts._replace(query=urlencode(params)))
        return self.search_url(state.query, page) if state.query else None

    def read_page(self, tree: LexborHTMLParser, html: str, url: str | None) -> PageState | None:
        """Results or item state, or None when the page shows neither."""
        raise NotImplementedError

    def results_state(self, res: ResultsRead, url: str | None) -> PageState:
        """The PageState of a read results page (same shape for every site)."""
        return PageState(
            page_type="results", site=self.site, url=url, query=res.query,  # type: ignore[arg-type]
            keywords=res.query.split() if res.query else None, page_num=res.page_num,
            results=[card for card, _ in res.cards], next_page_url=res.next_url,
            prev_page_url=res.prev_url, has_search_bar=True,
            clickables=results_clickables(res.cards, res.next_url, res.prev_url, self.product_url))

    # -- Translator protocol --------------------------------------------------------------
    def parse(self, html: str, url: str | None = None) -> PageState:
        """Parse a real page; never raises: unreadable pages give ``unknown`` with a reason."""
        url = url or None
        try:
            if isinstance(html, (bytes, bytearray)):
                html = decode_html(bytes(html))
            tree, reason = load_tree(html)
            if tree is None:
                return self._unknown(url, reason or "unreadable page")
            text = html if isinstance(html, str) else ""
            state = self.read_page(tree, text, url)
            if state is not None:
                return state
            blocked = blocked_reason(tree, text)
            if blocked:
                return PageState(page_type="blocked", site=self.site, url=url or page_url(tree),  # type: ignore[arg-type]
                                 reason=blocked)
            return self._unknown(url or page_url(tree), f"no search results or product found on this {self.site} page")
        except Exception as exc:  # a malformed page must never crash a session
            return self._unknown(url, f"translator error: {type(exc).__name__}: {exc}")

    def _unknown(self, url: str | None, reason: str) -> PageState:
        return PageState(page_type="unknown", site=self.site, url=url, reason=reason)  # type: ignore[arg-type]

    def resolve(self, state: PageState, action: str) -> Navigation:
        """Map ``search[q]`` / ``click[arg]`` on ``state`` to a Navigation (never raises)."""
        try:
            return self._resolve(state, action)
        except Exception as exc:
            return refuse("navigation_failed", f"could not resolve {action!r}: {type(exc).__name__}")

    def _resolve(self, state: PageState, action: str) -> Navigation:
        name, arg = parse_action(action)
        name = name.strip().lower()
        if name == "search":
            query = collapse(arg or "")
            if not query:
                return refuse("empty_query", "search[] needs a query")
            if len(query) > MAX_QUERY_CHARS:
                return refuse("query_too_long", f"query longer than {MAX_QUERY_CHARS} characters")
            return Navigation(kind="goto", url=self.search_url(query, 1))
        if name != "click" or arg is None:
            return refuse("unknown_action", f"unknown action {action!r}: use search[...] or click[...]")
        key = collapse(arg).lower()
        target = state.clickable(key)
        if key in ("next >", "< prev"):
            return self._page_step(state, target, 1 if key == "next >" else -1)
        if target is None:
            target = self._card_clickable(state, key)
        if target is None:
            return refuse("not_available", f"{arg!r} is not clickable on this page")
        if target.kind == "back_to_search":
            return Navigation(kind="goto", url=self.home_url)
        if target.kind == "product":
            return Navigation(kind="goto", url=self.product_url(target.text), selector=target.selector)
        if target.kind == "buy":
            return Navigation(kind="purchase")
        if target.kind == "option":
            if target.url:
                return Navigation(kind="goto", url=target.url, axis=target.axis, value=target.text)
            return Navigation(kind="select", axis=target.axis, value=target.text)
        return refuse("not_available", f"{arg!r} has no navigation here")

    def _card_clickable(self, state: PageState, key: str) -> Clickable | None:
        for card in state.results:
            if card.id.lower() == key:
                return Clickable(arg=key, text=card.id, kind="product")
        return None

    def _page_step(self, state: PageState, target: Clickable | None, step: int) -> Navigation:
        if target is not None and target.url:
            return Navigation(kind="goto", url=target.url, selector=target.selector)
        if state.page_type != "results":
            return refuse("not_available", "the previous page is not known here (use the browser history)")
        page = (state.page_num or 1) + step
        if page < 1:
            return refuse("not_available", "already on the first results page")
        url = self.paged_url(state, page)
        if not url:
            return refuse("not_available", "no query known to page through")
        return Navigation(kind="goto", url=url)
