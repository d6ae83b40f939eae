"""Which site a page is from, and whether it is a bot wall or an error page instead of a shop page.

Sites: ``amazon`` and ``ebay`` have their own translators; any other shop is ``other`` (read by the
generic translator) when its URL or its markup says it is a shop page; ``unknown`` is left for pages
that show nothing to go on. Bot walls are recognised by the challenge vendors' own marks (Cloudflare,
PerimeterX/HUMAN, DataDome, Akamai, Imperva) and by the phrases their pages show.
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser

from shopsim.translators.documents import page_url
from shopsim.translators.dom import MarkScan, ascii_lowered, collapse

__all__ = ["blocked_reason", "china_wall", "detect_site", "wall_reason"]

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


def _has_host(url: str | None) -> bool:
    try:
        return bool(url) and bool(urlsplit(url or "").hostname)
    except ValueError:
        return False


#: Marks of a shop page (structured product data, shop platforms) or of a bot wall in front of one, looked
#: for in any case: ASCII, no 'k', none ending in 'i' (``dom.ascii_lowered`` finds them as ``str.lower`` would).
_SHOP_MARKS = ('"@type":"product"', '"@type": "product"', "schema.org/product", "schema.org/offer",
               "og:price:amount", "product:price:amount", 'content="product"', "cdn.shopify.com",
               "data-vocabulary.org/product", "schema.org/itemlist", '"@type":"itemlist"', '"@type": "itemlist"')
_SHOP_ANCHORS = ('"@type"', "schema.org/", ":price:amount")


def detect_site(html: str, tree: LexborHTMLParser | None, url: str | None = None) -> str:
    """'amazon' / 'ebay' / 'other' / 'unknown': from the URL, the page's own URL, then its markup.

    Another shop's URL (given or stated by the page) means 'other'; without one, a page that carries
    shop marks or a bot wall is 'other' too, unless it reads as Amazon or eBay.
    """
    site = _host_site(url)
    if site:
        return site
    if _has_host(url):
        return "other"
    own = page_url(tree) if tree is not None else None
    if tree is not None:
        site = _host_site(own)
        if site:
            return site
    head = html[:200_000]
    scan = MarkScan(head, ("amazon", "ebay"))
    amazon = scan.count(("amazon.com", "media-amazon", "images-amazon"))
    amazon += 5 * scan.count(('id="nav-logo', "twotabsearchtextbox"))
    ebay = scan.count(("ebay.com", "ebaystatic", "ebayimg"))
    ebay += 5 * scan.count(('id="gh-ac"', "srp-results"))
    if amazon == ebay == 0 and len(html) > len(head):
        amazon = html.count("amazon.com")
        ebay = html.count("ebay.com")
    if amazon > ebay:
        return "amazon"
    if ebay > amazon:
        return "ebay"
    if _has_host(own):
        return "other"
    if MarkScan(ascii_lowered(head), _SHOP_ANCHORS).any(_SHOP_MARKS) or (tree is not None and wall_reason(tree, html)):
        return "other"
    return "unknown"


_BLOCKED_TITLES = [
    ("robot check", "robot check (captcha)"),
    ("robot or human", "bot challenge (PerimeterX/HUMAN press & hold)"),
    ("are you a robot", "robot check (captcha)"),
    ("are you a human", "robot check (captcha)"),
    ("verify you are human", "bot challenge (human verification)"),
    ("human verification", "bot challenge (human verification)"),
    ("request unsuccessful", "bot challenge (Imperva/Incapsula)"),
    ("one more step", "bot challenge (Cloudflare)"),
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
    ("访问频繁", "rate limit (访问频繁)"),
    ("訪問頻繁", "rate limit (訪問頻繁)"),
    ("请求过于频繁", "rate limit (请求过于频繁)"),
    ("操作过于频繁", "rate limit (操作过于频繁)"),
    ("验证一下，购物无忧", "captcha (JD verification)"),
    ("滑动验证", "captcha (slider)"),
    ("请拖动下方滑块", "captcha (slider)"),
    ("请按住滑块", "captcha (slider)"),
]


#: Marks of Chinese shops' walls (JD risk pages, Alibaba's slider captcha and punish pages, login walls):
#: their scripts and the '亲，请登录' login link also ride along on ordinary pages, so on a large page
#: they count only once it shows no product (``china_wall(..., strict=False)``).
CHINA_WALL_TEXT = [
    ("访问频繁", "rate limit (访问频繁)"),
    ("請求過於頻繁", "rate limit (請求過於頻繁)"),
    ("请求过于频繁", "rate limit (请求过于频繁)"),
    ("risk_handler", "captcha (JD risk check)"),
    ("验证一下，购物无忧", "captcha (JD verification)"),
    ("滑动验证", "captcha (slider)"),
    ("请拖动下方滑块", "captcha (slider)"),
    ("请按住滑块", "captcha (slider)"),
    ("nc_1_n1z", "captcha (Alibaba slider)"),
    ("x5secdata", "bot wall (Alibaba punish page)"),
    ("/_____tmd_____/punish", "bot wall (Alibaba punish page)"),
    ("baxia-punish", "bot wall (Alibaba punish page)"),
    ("punish?x5", "bot wall (Alibaba punish page)"),
]
#: Login prompts: every Taobao page's site nav says '亲，请登录', so they count only on a page that
#: showed no product.
_CHINA_LOGIN_TEXT = [
    ("fm-login-id", "login wall (login form)"),
    ("login.taobao.com/member/login", "login wall (Taobao login)"),
    ("passport.jd.com/new/login", "login wall (JD login)"),
    ("亲，请登录", "login wall (亲，请登录)"),
]
#: Titles of those walls: the whole title (a shop's name may follow a separator), since a product may be
#: named '登录器 游戏手柄' or 'YubiKey 安全验证密钥'; words anywhere in a title count only on a page as small
#: as a wall.
_CHINA_WALL_TITLES = re.compile(r"(?:京东验证|京東驗證|安全验证|验证中心|身份验证|滑动验证|访问受限|访问频繁|访问被拒绝|"
                                r"请登录|登录|用户登录|欢迎登录|淘宝网 - 淘！我喜欢|page unavailable|captcha interception|"
                                r"验证码拦截|访问验证|人机验证)(?:\s*[-|_–—:：]\s*.{0,30})?", re.I)
_CHINA_WALL_WORDS = re.compile(r"欢迎登录|用户登录|访问频繁|操作频繁|请求频繁|過於頻繁|安全验证|人机验证|验证码拦截|访问验证")


def china_wall(tree: LexborHTMLParser, html: str, strict: bool = True) -> str | None:
    """A Chinese shop's captcha, rate-limit, punish or login page: by its title, by its marks on a
    page as small as a wall, or (``strict=False``, for a page that showed no product) anywhere.
    """
    raw_title = _title(tree)[:200]
    small = len(html) < WALL_PAGE_CHARS
    if _CHINA_WALL_TITLES.fullmatch(raw_title) or ((small or not strict) and _CHINA_WALL_WORDS.search(raw_title)):
        return f"bot wall ({raw_title[:60]})"
    if strict and len(html) >= WALL_PAGE_CHARS:
        return None
    sample = html if len(html) < 400_000 else html[:200_000] + html[-200_000:]
    for mark, reason in CHINA_WALL_TEXT if strict else CHINA_WALL_TEXT + _CHINA_LOGIN_TEXT:
        if mark in sample:
            return reason
    return None


#: Marks of challenge vendors. Their scripts also ride along on ordinary pages (Cloudflare injects its
#: challenge-platform script into many shops), so they count only on a page as small as a wall.
_WALL_TEXT = [
    ("px-captcha", "captcha (PerimeterX)"),
    ("press & hold", "bot challenge (PerimeterX/HUMAN press & hold)"),
    ("press and hold", "bot challenge (PerimeterX/HUMAN press & hold)"),
    ("captcha-delivery.com", "bot challenge (DataDome)"),
    ("/cdn-cgi/challenge-platform/", "bot challenge (Cloudflare)"),
    ("cf-chl-", "bot challenge (Cloudflare)"),
    ("cf_chl_", "bot challenge (Cloudflare)"),
    ("_incapsula_resource", "bot challenge (Imperva/Incapsula)"),
    ("incapsula incident id", "bot challenge (Imperva/Incapsula)"),
    ("you don't have permission to access", "access denied (Akamai)"),
    ("errors.edgesuite.net", "access denied (Akamai)"),
    ("verify you are a human", "bot challenge (human verification)"),
    *CHINA_WALL_TEXT,
]
#: A wall page is a few kilobytes of markup (challenge scripts included); shop pages are far larger.
WALL_PAGE_CHARS = 60_000

#: Titles only a bot wall shows: a page titled so is a wall whatever else it carries.
_WALL_TITLES = {"robot or human", "just a moment", "attention required", "access denied", "are you a robot",
                "pardon our interruption", "robot check", "human verification", "request unsuccessful",
                "verify you are human", "one more step", "security check", "captcha"}
_AKAMAI_RE = re.compile(r"access denied.{0,600}reference\s*#\s*\d", re.IGNORECASE | re.DOTALL)


def wall_reason(tree: LexborHTMLParser, html: str) -> str | None:
    """A bot wall recognised before reading the page as a shop page: its title, or a challenge page's marks.

    Challenge scripts (DataDome, PerimeterX, Cloudflare) also ride along on ordinary product pages,
    so their marks count only on a small page (a wall is a few kilobytes of markup).
    """
    china = china_wall(tree, html)
    if china:
        return china
    title = _title(tree).rstrip(" ?!.…")
    if title in _WALL_TITLES or any(re.match(re.escape(t) + r"\W", title) for t in _WALL_TITLES if " " in t):
        return blocked_reason(tree, html) or f"bot wall ({title})"
    return _small_wall(html)


def _small_wall(html: str) -> str | None:
    if len(html) >= WALL_PAGE_CHARS:
        return None
    low = html.lower()
    if _AKAMAI_RE.search(low):
        return "access denied (Akamai)"
    return next((reason for mark, reason in _WALL_TEXT if mark in low), None)


def _title(tree: LexborHTMLParser) -> str:
    root = tree.head or tree.root
    node = root.css_first("title") if root is not None else None
    return collapse(node.text() if node is not None else "").lower()


def blocked_reason(tree: LexborHTMLParser, html: str) -> str | None:
    """Why this page is a captcha / bot challenge / error page, or None when it is not one.

    Called only after a page shows neither results nor a product, so strong phrases are enough.
    """
    root = tree.head or tree.root
    title_node = root.css_first("title") if root else None
    low_title = collapse(title_node.text() if title_node is not None else "").lower()
    for mark, reason in _BLOCKED_TITLES:
        if mark in low_title:
            return reason
    sample = html if len(html) < 400_000 else html[:200_000] + html[-200_000:]
    low = sample.lower()
    for mark, reason in _BLOCKED_TEXT:
        if mark in low:
            return reason
    return _small_wall(html)
