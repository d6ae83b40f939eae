"""A results page's pager: is there a next page, where do next and previous lead, which page is this.

Only URLs the page itself gives are used: a ``rel=next`` link, the next control's own link, or, when
that control has none (a script button, ``javascript:``, an ``<a>`` without href), the pager's link to
the following page number. Where the page offers a next control and no URL at all, :class:`Pager`
says so (``has_next`` without ``next_url``): an agent is offered ``next >`` and taking it is refused
as not recorded, never sent to a URL we made up.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import parse_qsl, urlsplit

from selectolax.lexbor import LexborNode

from shopsim.page import css_string
from shopsim.translators.documents import absolute
from shopsim.translators.dom import ancestors, attr, collapse, marked, small_int, text_of
from shopsim.translators.shops import PAGE_NAMES

__all__ = ["Pager", "pagination"]

_NEXT_WORDS = {"next", "next page", "siguiente", "próxima", "proxima", "suivant", "suivante", "weiter", "nächste",
               "nächste seite", "avanti", "successivo", "volgende", "次へ", "›", "»", ">", "→", "seguinte",
               "página siguiente", "berikutnya", "selanjutnya", "下一页", "下一頁", "次のページ", "다음", "sonraki",
               "następna", "další", "nästa", "neste", "næste", "seuraava", "следующая", "tiếp", "ถัดไป"}
_NEXT_MARK = re.compile(r"(?:^|[\s_-])next(?:$|[\s_-])")
_PAGE_OF = re.compile(r"(?i)\bpage\s+(\d{1,4})\s+(?:of|de|von|sur)\s+(\d{1,5})\b")
#: A pagination control's marks (attribute, substring), and a selector matching every element they match:
#: one class scan for 'ag' instead of three (``dom.marked``).
_PAGER = (("class", "paginat"), ("class", "Paginat"), ("class", "pager"), ("aria-label", "aginat"),
          ("aria-label", "aginación"), ("data-test", "paginat"), ("data-testid", "paginat"))
_PAGER_CANDIDATES = '[class*="ag"], [aria-label*="agina"], [data-test*="paginat"], [data-testid*="paginat"]'


@dataclass
class Pager:
    """What a results page's pager offers: next and previous URLs (as the page gives them), the current
    page, whether a next page exists (also when its control has no URL) and a selector for that control.
    """

    next_url: str | None = None
    prev_url: str | None = None
    page_num: int | None = None
    has_next: bool = False
    next_selector: str | None = None


def pagination(body: LexborNode, base: str, url: str | None) -> Pager:
    """The page's pager: ``rel`` links first, then the pagination control (see the module doc)."""
    pager = Pager(page_num=_url_page(url))
    root = body.parent or body
    pager.next_url = absolute(attr(root.css_first('a[rel~="next"], link[rel="next"]'), "href"), base)
    pager.prev_url = absolute(attr(root.css_first('a[rel~="prev"], link[rel="prev"]'), "href"), base)
    pager.has_next = pager.next_url is not None
    seen: set[int] = set()
    for box in marked(body, _PAGER, _PAGER_CANDIDATES, 40):
        if any(n.mem_id in seen for n in ancestors(box, 12)):
            continue  # the parts of a pager seen already
        seen.add(box.mem_id)
        _read_box(box, base, pager)
        if pager.has_next:
            if pager.next_url is None:  # the control has no link: the pager's link to the next number
                pager.next_url = _numbered_link(box, (pager.page_num or 1) + 1, base)
            break
    if pager.has_next and pager.page_num is None:
        pager.page_num = 1
    return pager


def _read_box(box: LexborNode, base: str, pager: Pager) -> None:
    """Read one pagination control into ``pager``: 'page N of M', the current number, the next control."""
    m = _PAGE_OF.search(text_of(box, sep=" "))
    if m:
        pager.page_num = pager.page_num or int(m.group(1))
        pager.has_next = pager.has_next or int(m.group(1)) < int(m.group(2))
    current = box.css_first('[aria-current="page"], [aria-current="true"], [class*="current"], '
                            '[class*="active"], [class*="selected"]')
    if current is not None and small_int(text_of(current)) is not None:
        pager.page_num = pager.page_num or small_int(text_of(current))
    for ctl in box.css("a, button, li")[:200]:
        label = collapse(text_of(ctl) or attr(ctl, "aria-label") or attr(ctl, "title")).casefold()
        marks = f"{attr(ctl, 'class')} {attr(ctl, 'rel')} {attr(ctl, 'data-test')}".casefold()
        if label in _NEXT_WORDS or label.startswith("next ") or _NEXT_MARK.search(marks):
            if not any(_disabled(n) for n in [ctl, *ctl.css("a, button")[:2]]):
                pager.has_next = True
                link = ctl if ctl.tag == "a" else ctl.css_first("a[href]")
                pager.next_url = pager.next_url or absolute(attr(link, "href"), base)
                pager.next_selector = _selector(ctl)
            return


def _disabled(ctl: LexborNode) -> bool:
    """A control shown disabled (attribute, aria-disabled, or a 'disabled' class): the last page's next."""
    return "disabled" in ctl.attributes or attr(ctl, "aria-disabled") == "true" or "disabled" in attr(ctl, "class")


def _numbered_link(box: LexborNode, number: int, base: str) -> str | None:
    """The pager's own link to page ``number`` ('2' when on page 1), or None."""
    for link in box.css("a[href]")[:200]:
        if collapse(text_of(link)) == str(number):
            return absolute(attr(link, "href"), base)
    return None


def _selector(ctl: LexborNode) -> str | None:
    """A CSS selector for a next control (a browser clicks it where there is no URL to load)."""
    if attr(ctl, "id"):
        return f"[id={css_string(attr(ctl, 'id'))}]"
    for name in ("aria-label", "data-testid", "data-test", "title"):
        if attr(ctl, name):
            return f"{ctl.tag}[{name}={css_string(attr(ctl, name))}]"
    return None


def _url_page(url: str | None) -> int | None:
    """The page number the URL's own page parameter gives."""
    try:
        params = parse_qsl(urlsplit(url or "").query)
    except ValueError:
        return None
    return next((n for k, v in params if k.casefold() in PAGE_NAMES and (n := small_int(v)) is not None), None)

