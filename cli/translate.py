"""``shopsim translate FILE``: read any shopping page (Amazon, eBay, our own shop) as PageState."""

from __future__ import annotations

import argparse
import errno
import json

from shopsim.errors import DataError
from shopsim.page import PageState

__all__ = ["register", "translate_path"]


def translate_path(path: str, url: str | None, site: str | None) -> PageState:
    """Translate a saved page through the translator registry, as ``shopsim.translate`` does.

    Raises DataError when the file cannot be read (missing, no permission, a folder, a FIFO or a
    device: only regular files are opened, so nothing blocks). A file over
    ``guard.MAX_PAGE_BYTES`` is not read; like any page too costly to parse it translates to page
    type ``unknown`` with the reason.
    """
    from shopsim.translators.registry import read_page_file, translate_html

    try:
        html = read_page_file(path)
    except OSError as exc:
        if exc.errno == errno.EFBIG:
            return PageState(page_type="unknown", site="unknown", url=url or None, reason=f"page {exc.strerror}")
        raise DataError(f"cannot read {path}: {exc.strerror or exc}") from exc
    return translate_html(html, url, site)


def cmd_translate(args: argparse.Namespace) -> int:
    """Print the page as JSON (the answer-key shape) or as the simple observation + valid actions."""
    from shopsim.render import render_simple
    from shopsim.simsite.profiles import get_profile
    from shopsim.translators.answer_key import to_annotation_json

    state = translate_path(args.file, args.url or None, args.site)
    profile = get_profile(args.profile)
    if profile.page_view is not None:  # the page under the profile's own contract (v8: observation_state)
        print(profile.part("page_view")(state, args.format))
        return 0
    if args.format == "json":
        print(json.dumps(to_annotation_json(state), ensure_ascii=False))
    else:
        if args.view != "site":
            from shopsim.translators.parity import view

            state = view(state, window=args.window, action_model=args.view)
        print(render_simple(state))
        print("valid actions: " + json.dumps(state.valid_actions(), ensure_ascii=False))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``translate`` to the command line."""
    p = sub.add_parser("translate", help="translate a saved shopping page into shopsim's PageState")
    from shopsim.simsite.profiles import PROFILES
    from shopsim.translators.registry import site_names

    p.add_argument("file", help="an HTML file (Amazon, eBay, another shop or shopsim)")
    p.add_argument("--url", default="", help="the page's URL ('' = unknown: detect from the content)")
    p.add_argument("--site", choices=site_names(), default=None,
                   help="the translator to read it with (default: the first registered one that claims the page)")
    p.add_argument("--format", choices=("json", "text"), default="json")
    p.add_argument("--profile", choices=sorted(PROFILES), default="webshop",
                   help="observation contract: webshop (annotation JSON / simple text) or shopsim-v8 "
                        "(observation_state / its text)")
    p.add_argument("--view", choices=("sim", "native", "site"), default="sim",
                   help="text format: the page as the sim shows pages (sim, the default: 10 results a window, the "
                        "sim's formats and action model), the same with the site's search bar everywhere (native), "
                        "or as the site shows it (site)")
    p.add_argument("--window", type=_positive, default=1, help="which 10-result window of a results page (default 1)")
    p.set_defaults(func=cmd_translate)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number of at least 1, got {text!r}")
    return value
