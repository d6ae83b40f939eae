"""A PageState as the answer-key JSON (the shape of the hand-made keys ``score_translation.py`` reads).

``shopsim translate --format json`` prints it; so does ``python -m shopsim.translators.answer_key FILE
[--url URL] [--site SITE] [--format json|text]`` (any registered site; detected from the URL or the
page when not given). An empty ``--url ''`` means no URL.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from shopsim.page import PageState
from shopsim.translators.clickables import has_next_page
from shopsim.translators.prices import price_json
from shopsim.translators.registry import site_names, translate_file

__all__ = ["NO_URL_NEXT", "main", "to_annotation_json"]

#: ``next_page_url`` of a page whose next control has no URL (the answer keys' null with
#: ``next_page`` true): the scorer's own marker for it, since it reads "a next page" from a non-empty URL.
NO_URL_NEXT = "about:next"


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
        "next_page": has_next_page(state),
        "next_page_url": state.next_page_url or (NO_URL_NEXT if has_next_page(state) else None),
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
    ap = argparse.ArgumentParser(prog="python -m shopsim.translators.answer_key", description=__doc__)
    ap.add_argument("file")
    ap.add_argument("--url", default="", help="the page's URL ('' = unknown)")
    ap.add_argument("--site", choices=site_names(), default=None)
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
