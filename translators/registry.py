"""The one translator registry: which translator reads a page, and the entry points that ask it.

Every shop's translator is registered here with a ``detect`` predicate over the page (its markup,
its parsed tree, its URL); a page is read by the first registered translator whose predicate
accepts it. Built in, in this order: the sim's own pages (``simsite``), ``amazon``, ``ebay``, the Chinese and
Taiwanese shops (``china``), the Japanese and Korean shops (``japan_korea``: Rakuten, Yahoo!, Mercari,
Coupang, Gmarket...) and any other shop (``other``, the generic translator, which also reads a page
no predicate claims).
A shop registered with :func:`register_translator` is tried before the built-in ones, so adding a
shop is one call (the registry imports no parser until a page is read, so the command line can
list the sites cheaply). :func:`translate_html` and :func:`translate_file` are what ``shopsim.translate``
and ``shopsim translate`` both call, so the library and the command line read a page alike.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from shopsim.page import PageState
from shopsim.translators.base import Translator

if TYPE_CHECKING:
    from selectolax.lexbor import LexborHTMLParser

__all__ = [
    "PageSeen",
    "TranslatorEntry",
    "read_page_file",
    "register_translator",
    "site_names",
    "translate_file",
    "translate_html",
    "translator_for",
    "unregister_translator",
]


class PageSeen:
    """A page as the detect predicates see it: its markup, its URL and (parsed on first use) its tree."""

    def __init__(self, html: str, url: str | None = None) -> None:
        self.html = html
        self.url = url or None

    @cached_property
    def _loaded(self) -> tuple[LexborHTMLParser | None, str | None]:
        from shopsim.translators.documents import load_tree

        return load_tree(self.html)

    @property
    def tree(self) -> LexborHTMLParser | None:
        """The parsed page, or None when it is no HTML page or too costly to parse (see ``reason``)."""
        return self._loaded[0]

    @property
    def reason(self) -> str | None:
        """Why there is no tree (None when there is one)."""
        return self._loaded[1]

    def parse_with(self, translator: Translator) -> PageState:
        """``translator.parse`` on this page, reusing the tree the predicates parsed (one parse a page)."""
        if "_loaded" not in self.__dict__:
            return translator.parse(self.html, self.url)
        from shopsim.translators.documents import parsed_once

        with parsed_once(self.html, self._loaded):
            return translator.parse(self.html, self.url)

    @cached_property
    def market_site(self) -> str:
        """``detect.detect_site``'s verdict, computed once for the built-in predicates."""
        from shopsim.translators.detect import detect_site

        return detect_site(self.html, self.tree, self.url) if self.tree is not None else "unknown"


#: A detect predicate: does this translator read this page?
Detect = Callable[[PageSeen], bool]


@dataclass(frozen=True)
class TranslatorEntry:
    """One registered shop: its site name, its translator class and the predicate that claims pages.

    ``cls`` may be ``"module:Class"``, imported on first use (the built-ins pull in their parsers).
    """

    site: str
    cls: type | str
    detect: Detect

    def make(self) -> Translator:
        """A fresh translator (the generic one remembers the shops it has read, per instance)."""
        cls = self.cls
        if isinstance(cls, str):
            module, _, name = cls.partition(":")
            cls = getattr(importlib.import_module(module), name)
        return cls()  # type: ignore[no-any-return]


def _is_sim_page(page: PageSeen) -> bool:
    return 'id="shopsim-state"' in page.html  # the state block our own server embeds in every page


def _is_amazon(page: PageSeen) -> bool:
    return page.market_site == "amazon"


def _is_ebay(page: PageSeen) -> bool:
    return page.market_site == "ebay"


def _is_china_shop(page: PageSeen) -> bool:
    """Taobao, Tmall, JD, 1688, AliExpress and the Taiwanese shops, by URL or by their page marks."""
    if page.tree is None or page.market_site in ("amazon", "ebay"):
        return False
    from shopsim.translators.china_ids import family_of

    return family_of(page.url, page.html, page.tree) is not None


def _is_japan_korea_shop(page: PageSeen) -> bool:
    from shopsim.translators.japan_korea_shops import is_japan_korea_shop  # its parsers load on first use

    return is_japan_korea_shop(page)


def _is_other_shop(page: PageSeen) -> bool:
    return page.market_site == "other"


_BUILTIN: tuple[TranslatorEntry, ...] = (
    TranslatorEntry("simsite", "shopsim.translators.sim_pages:SimsiteTranslator", _is_sim_page),
    TranslatorEntry("amazon", "shopsim.translators.amazon:AmazonTranslator", _is_amazon),
    TranslatorEntry("ebay", "shopsim.translators.ebay:EbayTranslator", _is_ebay),
    TranslatorEntry("china", "shopsim.translators.china_shops:ChinaShopTranslator", _is_china_shop),
    TranslatorEntry("japan_korea", "shopsim.translators.japan_korea_shops:JapanKoreaTranslator",
                    _is_japan_korea_shop),
    TranslatorEntry("other", "shopsim.translators.generic:GenericTranslator", _is_other_shop),
)
#: The fallback: it reads a page no predicate claims (a page showing no shop stays ``unknown``).
FALLBACK_SITE = "other"
_entries: list[TranslatorEntry] = list(_BUILTIN)


def register_translator(site: str, cls: type | str, detect: Detect) -> None:
    """Register ``cls`` (a class with ``parse``/``resolve`` and no required arguments) for ``site``.

    A new site is tried before every built-in translator; registering a site again replaces its
    entry in place (so ``amazon`` can be swapped for another Amazon reader).
    """
    entry = TranslatorEntry(site, cls, detect)
    for i, old in enumerate(_entries):
        if old.site == site:
            _entries[i] = entry
            return
    first_builtin = next((i for i, e in enumerate(_entries) if e in _BUILTIN), len(_entries))
    _entries.insert(first_builtin, entry)


def unregister_translator(site: str) -> None:
    """Drop a site registered with :func:`register_translator`; a replaced built-in comes back."""
    for i, old in enumerate(_entries):
        if old.site == site:
            builtin = next((e for e in _BUILTIN if e.site == site), None)
            if builtin is None:
                del _entries[i]
            else:
                _entries[i] = builtin
            return


def site_names() -> list[str]:
    """The registered sites, in the order their predicates are asked."""
    return [e.site for e in _entries]


def translator_for(site: str) -> Translator:
    """A fresh translator for ``site`` ('simsite', 'amazon', 'ebay', 'other' or a registered one)."""
    for entry in _entries:
        if entry.site == site:
            return entry.make()
    raise ValueError(f"no translator for {site!r} (use {', '.join(site_names())})")


def translate_html(html: str, url: str | None = None, site: str | None = None) -> PageState:
    """Parse one page with the translator of ``site``, else the first whose predicate claims it.

    A page no predicate claims is read by the generic translator; one that shows no site and no
    shop page stays ``unknown`` (site and page type) with a reason, as does one that is no HTML.
    """
    url = url or None
    if site:
        return translator_for(site).parse(html, url)
    page = PageSeen(html, url)
    for entry in _entries:
        if entry.detect(page):
            return page.parse_with(entry.make())
    if page.tree is None:
        return PageState(page_type="unknown", site="unknown", url=url, reason=page.reason)
    state = page.parse_with(translator_for(FALLBACK_SITE))
    if state.page_type == "unknown":
        return state.model_copy(update={
            "site": "unknown", "reason": f"site not recognised and no shop page found ({state.reason})"})
    return state


def read_page_file(path: str | Path) -> str:
    """The text of a saved page (any encoding); raises OSError as ``read_regular_file`` does.

    Only a regular file of at most ``guard.MAX_PAGE_BYTES`` is read: a folder, FIFO or device is
    refused without blocking, a larger file without reading it.
    """
    from shopsim.regular_files import read_regular_file
    from shopsim.translators.documents import decode_html
    from shopsim.translators.guard import MAX_PAGE_BYTES

    return decode_html(read_regular_file(path, MAX_PAGE_BYTES))


def translate_file(path: str | Path, url: str | None = None, site: str | None = None) -> PageState:
    """Read ``path`` and translate it as :func:`translate_html`; an unreadable file gives ``unknown``."""
    try:
        html = read_page_file(path)
    except OSError as exc:
        return PageState(page_type="unknown", site="unknown", url=url or None,
                         reason=f"cannot read {path}: {exc.strerror or exc}")
    return translate_html(html, url, site)
