"""The HTML standard's element categories, as the tree-builder model reads them.

From the parsing section of the HTML standard (https://html.spec.whatwg.org/#parsing-main-inbody):
which elements are void, raw text, formatting, scope markers, special, table parts..., and the
tokenizer's patterns for tags and attributes. :mod:`shopsim.translators.tree_model` and :mod:`shopsim.translators.tree_stack` use them.
"""

from __future__ import annotations

import re
from typing import Final


def words(text: str) -> frozenset[str]:
    """The whitespace-separated names in ``text`` as a frozenset (for the tables below)."""
    return frozenset(text.split())


VOID: Final = words("area base basefont bgsound br embed frame image img input keygen link meta param source "
               "track wbr")
RAW_TEXT: Final = frozenset(["script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"])
FORMATTING: Final = words("a b big code em font i nobr s small strike strong tt u")
MARKERS: Final = frozenset(["applet", "marquee", "object", "template", "td", "th", "caption"])
HEADINGS: Final = ("h1", "h2", "h3", "h4", "h5", "h6")
CLOSES_P: Final = words("address article aside blockquote center details dialog dir div dl fieldset figcaption "
                   "figure footer header hgroup main menu nav ol p search section summary ul pre listing "
                   "form plaintext hr xmp li dd dt") | frozenset(HEADINGS)
# block start tags whose only effect is to close an open <p> (li, dd, dt, headings need more)
BLOCKS: Final = CLOSES_P - {"li", "dd", "dt", "hr", "plaintext", "xmp", "form", *HEADINGS}
SPECIAL: Final = words("address applet area article aside base basefont bgsound blockquote body br button "
                  "caption center col colgroup dd details dir div dl dt embed fieldset figcaption figure "
                  "footer form frame frameset head header hgroup hr html iframe img input keygen li link "
                  "listing main marquee menu meta nav noembed noframes noscript object ol p param "
                  "plaintext pre script search section select source style summary table tbody td "
                  "template textarea tfoot th thead title tr track ul wbr xmp") | frozenset(HEADINGS)
SCOPE: Final = frozenset(["applet", "caption", "html", "table", "td", "th", "marquee", "object", "template"])
TABLE_PARTS: Final = frozenset(["caption", "colgroup", "col", "tbody", "thead", "tfoot", "tr", "td", "th"])
TABLE_SCOPED: Final = words("table tbody thead tfoot tr td th caption colgroup template")
HEAD: Final = words("base basefont bgsound link meta title noframes style script noscript template head")
BREAKOUT: Final = words("b big blockquote body br center code dd div dl dt em embed h1 h2 h3 h4 h5 h6 head hr "
                   "i img li listing menu meta nobr ol p pre ruby s small span strong strike sub sup "
                   "table tt u ul var")
# start tags that only open an element: no scope search, no list to update
PLAIN: Final = words("span label abbr bdi bdo cite data dfn kbd mark q samp sub sup time var ins del picture "
                "canvas audio video map output progress meter slot")

# how an element's children are parsed (MAYBE: HTML or MathML); Final: mypyc compiles them in as constants
HTML: Final = 0
SVG: Final = 1
MATH: Final = 2
MAYBE: Final = 3
SVG_HTML: Final = frozenset(["foreignobject", "desc", "title"])  # SVG elements whose children are HTML
MATH_HTML: Final = frozenset(["mi", "mo", "mn", "ms", "mtext"])  # MathML elements whose children are HTML

# kinds of stack entries that end a scope search, each with its own stack of indexes
B_SPECIAL: Final = 0
B_SCOPE: Final = 1
B_BUTTON: Final = 2
B_LIST: Final = 3
B_TABLE: Final = 4
B_LI_STOP: Final = 5
B_FOREIGN: Final = 6


def html_bits(name: str) -> tuple[int, ...]:
    """The scope-search kinds (``B_*``) that element ``name`` counts as on the stack of open elements."""
    bits = []
    if name in SPECIAL:
        bits.append(B_SPECIAL)
        if name not in ("address", "div", "p"):
            bits.append(B_LI_STOP)
    if name in SCOPE:
        bits += [B_SCOPE, B_BUTTON, B_LIST]
    if name == "button":
        bits.append(B_BUTTON)
    if name in ("ol", "ul"):
        bits.append(B_LIST)
    if name in ("html", "table", "template"):
        bits.append(B_TABLE)
    return tuple(bits)


BITS: Final = {name: html_bits(name) for name in SPECIAL | SCOPE}
INTEGRATION_BITS: Final = (B_SPECIAL, B_LI_STOP, B_SCOPE, B_BUTTON, B_LIST, B_FOREIGN)
FOREIGN_BITS: Final = (B_FOREIGN,)  # SVG and MathML elements: named '~name', so HTML end tags never match them
DEAD: Final = ""  # the name of an entry the parser may have dropped: counted, never closed by name

ATTRS = (  # the attributes of a tag, tokenised as the HTML standard does (a quote opens a value only after '=')
    r"""(?:[\t\n\f\r /]++|[^\t\n\f\r />][^\t\n\f\r />=]*+"""
    r"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+'|[^\t\n\f\r >"'][^\t\n\f\r >]*+)?+)?+)*+""")
TOKEN_RE: Final = re.compile(  # every branch matches whatever follows its start, so each '<' is looked at once
    r"<(?:!--(?:>|->|(?:[^-]++|-(?!-!?>))*+(?:--!?>|\Z))"  # comment
    r"|[!?][^>]*+>?|/(?![A-Za-z])[^>]*+>?"  # doctype, bogus comment
    r"|(/?)([A-Za-z][^\t\n\f\r />]*+)(" + ATTRS + r")(?:>|\Z))")  # start or end tag
ATTR_NAME_RE: Final = re.compile(  # attribute names, for the few tags whose meaning depends on them
    r"""[\t\n\f\r /]*+([^\t\n\f\r />][^\t\n\f\r />=]*+)"""
    r"""(?:[\t\n\f\r ]*+=[\t\n\f\r ]*+(?:"[^"]*+"|'[^']*+'|[^\t\n\f\r >"'][^\t\n\f\r >]*+)?+)?+""")
UNQUOTED_END: Final = re.compile(r"""=[\t\n\f\r ]*+[^\t\n\f\r "'>][^\t\n\f\r >]*+\Z""")  # '/>' ending a bare value
RAW_END: Final = {name: re.compile(rf"</{name}[\t\n\f\r />]", re.IGNORECASE) for name in RAW_TEXT}
