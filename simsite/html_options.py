"""The item page's option radios, written by format strings instead of the template's two loops.

The radios were most of an item page's render time: per value some fifteen template expressions
(each an attribute lookup, an escape and a call through the Jinja runtime) and a link whose every
segment was percent-encoded again. Here an axis's links are built together
(:meth:`~shopsim.links.PageUrls.with_each_option`: only the options segment differs) and each value
is escaped once. The text is the template's own, character for character, whitespace included
(WebShop's markup: see :mod:`shopsim.simsite.html`); ``tests/simsite/test_html_options.py`` renders
the loops item.html had beside this and compares them.

Two things differ from WebShop's markup, adding no text: our ``data-*`` values are written by
:func:`~shopsim.attr_text.attr_text` (no quote in them: ``16"`` is ``16%22``; WebShop's own ``name``
and ``value`` keep the text, as its clients read them), and each label names itself
(``aria-labelledby`` its own id): Chromium gives a bare ``<label>`` an empty accessible name, so
BrowserGym's AXTree showed the clickable labels nameless; the radio's own name is unchanged.
"""

from __future__ import annotations

from collections.abc import Mapping

from markupsafe import Markup

from shopsim.attr_text import attr_text
from shopsim.links import PageUrls
from shopsim.page import Clickable, PageState
from shopsim.simsite.html_text import Fragment, escape_text
from shopsim.simsite.images import option_image_url

__all__ = ["option_radios"]

_AXIS_OPEN = Fragment('\n            <div class="row top-buffer">\n              <h4>{axis}</h4>\n'
                      '              <div class="radio-toolbar" data-axis="{axis_attr}">\n                ')
_RADIO = Fragment('\n                  \n                  \n                  \n'
                  '                  <input type="radio" id="{rid}" name="{axis}" value="{value}" data-url="{url}" '
                  'data-axis="{axis_attr}" data-value="{value_attr}"{hooks}{checked}>\n'
                  '                  <label for="{rid}" id="{lid}" aria-labelledby="{lid}"><img class="swatch" src="{image}" '
                  'alt="" width="24" height="24">{value}</label>\n                ')
_AXIS_CLOSE = "\n              </div>\n            </div>\n          "


def _hooks(c: Clickable | None, order: Mapping[str, int]) -> str:
    """Our click hooks on a radio that is one of the page's clickables (``data-arg``, its index, clicked)."""
    if c is None:
        return ""
    index = order.get(c.arg)
    return (f' data-arg="{attr_text(c.arg)}" data-click-index="{escape_text(index)}" '
            f'data-clicked="{"true" if c.clicked else "false"}"')


def option_radios(state: PageState, urls: PageUrls, order: Mapping[str, int]) -> Markup:
    """Every option axis of the item page's product with a radio per value, as item.html's loops wrote them."""
    view = state.product
    if view is None or state.page_type != "item":
        return Markup("")
    clicks = {(c.axis, c.text): c for c in state.clickables if c.kind == "option"}
    out = []
    for a, (axis, values) in enumerate(view.options.items()):
        name, axis_attr = escape_text(axis), attr_text(axis)
        out.append(_AXIS_OPEN.fill(axis=name, axis_attr=axis_attr))
        chosen = view.selected.get(axis)
        for i, (value, url) in enumerate(zip(values, urls.with_each_option(axis, values), strict=True)):
            out.append(_RADIO.fill(
                rid=escape_text(f"radio_{axis}{i}"), lid=f"option-label-{a}-{i}", axis=name, axis_attr=axis_attr,
                value=escape_text(value), value_attr=attr_text(value), url=escape_text(url),
                hooks=_hooks(clicks.get((axis, value)), order), checked=" checked" if chosen == value else "",
                image=escape_text(option_image_url(view.id, a, i))))
        out.append(_AXIS_CLOSE)
    return Markup("".join(out))
