"""Which site a page is from, and whether it is a bot wall or an error page instead of a shop page."""

from __future__ import annotations

from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser

from shopsim.translators.documents import page_url
from shopsim.translators.dom import collapse

__all__ = ["blocked_reason", "detect_site"]

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
