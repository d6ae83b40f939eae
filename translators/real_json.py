"""Translate a saved real page and print it as the answer-key JSON (``shopsim translate --format json``).

``python -m shopsim.translators.real_json FILE [--url URL] [--site amazon|ebay|other] [--format json|text]``
An empty ``--url ''`` means no URL. The site is detected from the URL or the page when not given.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from shopsim.page import PageState
from shopsim.translators.detect import detect_site
from shopsim.translators.documents import decode_html, load_tree
from shopsim.translators.guard import read_regular_file
from shopsim.translators.prices import price_json

__all__ = ["main", "to_annotation_json", "translate_file", "translate_html", "translator_for"]


def translator_for(site: str) -> Any:
    """The translator object for 'amazon', 'ebay' or 'other' (any other shop: the generic translator).

    Imported lazily: each pulls in its parsers.
    """
    if site == "amazon":
        from shopsim.translators.amazon import AmazonTranslator

        return AmazonTranslator()
    if site == "ebay":
        from shopsim.translators.ebay import EbayTranslator

        return EbayTranslator()
    if site == "other":
        from shopsim.translators.generic import GenericTranslator

        return GenericTranslator()
    raise ValueError(f"no real-site translator for {site!r} (use amazon, ebay or other)")


def translate_html(html: str, url: str | None = None, site: str | None = None) -> PageState:
    """Parse one page with the right translator; a page of no known site is read by the generic one.

    A page that shows no site and no shop page stays ``unknown`` (site and page type) with a reason.
    """
    url = url or None
    if not site:
        tree, reason = load_tree(html)
        if tree is None:
            return PageState(page_type="unknown", site="unknown", url=url, reason=reason)
        site = detect_site(html, tree, url)
        if site == "unknown":
            state = translator_for("other").parse(html, url)
            if state.page_type == "unknown":
                return state.model_copy(update={
                    "site": "unknown", "reason": f"site not recognised and no shop page found ({state.reason})"})
            return state
    return translator_for(site).parse(html, url)


def translate_file(path: str | Path, url: str | None = None, site: str | None = None) -> PageState:
    """Read ``path`` (any encoding) and translate it; unreadable files give ``unknown``.

    Only a regular file of at most ``guard.MAX_PAGE_BYTES`` is read: a folder, FIFO or device is
    refused without blocking, a larger file without reading it.
    """
    try:
        data = read_regular_file(path)
    except OSError as exc:
        return PageState(page_type="unknown", site="unknown", url=url or None,
                         reason=f"cannot read {path}: {exc.strerror or exc}")
    return translate_html(decode_html(data), url, site)


def to_annotation_json(state: PageState) -> dict[str, Any]:
    """The page as the answer-key JSON shape (results pages keep page_type 'results')."""
    p = state.product
    product = None
    if p is not None:
        product = {
            "id": p.id, "title": p.title, "price": price_json(p.price), "options": p.options,
            "selected": p.selected, "bullet_points": p.bullet_points, "category_path": p.category_path,
            "rating": p.rating,
        }
    return {
        "page_type": state.page_type,
        "site": state.site,
        "shop": state.shop,
        "url": state.url,
        "query": state.query,
        "page_num": state.page_num,
        "results": [{"id": r.id, "title": r.title, "price": price_json(r.price), "sponsored": r.sponsored}
                    for r in state.results],
        "next_page": bool(state.next_page_url),
        "next_page_url": state.next_page_url,
        "id": p.id if p else None,
        "title": p.title if p else None,
        "price": price_json(p.price) if p else None,
        "options": p.options if p else {},
        "selected": p.selected if p else {},
        "bullet_points": p.bullet_points if p else [],
        "category_path": p.category_path if p else [],
        "rating": p.rating if p else None,
        "currency": p.currency if p else state.currency,
        "product": product,
        "clickables": [c.arg for c in state.clickables],
        "reason": state.reason,
    }


def _text(state: PageState) -> str:
    doc = to_annotation_json(state)
    lines = [f"{state.site} {state.page_type}" + (f" ({state.reason})" if state.reason else "")]
    if state.page_type == "results":
        lines.append(f"query: {state.query!r}  page: {state.page_num}  next: {state.next_page_url}")
        lines += [f"  {r.id}  {doc['results'][i]['price']}  {'[ad] ' if r.sponsored else ''}{r.title}"
                  for i, r in enumerate(state.results)]
    elif state.product is not None:
        p = state.product
        lines += [f"id: {p.id}", f"title: {p.title}", f"price: {p.price_text or None}",
                  f"options: {p.options}", f"selected: {p.selected}", f"path: {' > '.join(p.category_path)}"]
        lines += [f"  - {b}" for b in p.bullet_points]
    lines.append("actions: " + ", ".join(f"click[{c.arg}]" for c in state.clickables))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """CLI entry: print the page state of FILE as JSON (default) or a short text summary."""
    ap = argparse.ArgumentParser(prog="python -m shopsim.translators.real_json", description=__doc__)
    ap.add_argument("file")
    ap.add_argument("--url", default="", help="the page's URL ('' = unknown)")
    ap.add_argument("--site", choices=["amazon", "ebay", "other"], default=None)
    ap.add_argument("--format", choices=["json", "text"], default="json")
    args = ap.parse_args(argv)
    state = translate_file(args.file, args.url or None, args.site)
    if args.format == "json":
        print(json.dumps(to_annotation_json(state), ensure_ascii=False))
    else:
        print(_text(state))
    return 0


if __name__ == "__main__":
    sys.exit(main())
