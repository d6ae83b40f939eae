"""Parity: a real page's PageState redrawn with the sim's conventions, so every site reads alike.

A translator reports a real page as the site shows it (60 cards at once, ``EUR 17,72``, ``Rating: 4.6
out of 5 stars``, ``White/Black``). A sim-trained agent saw none of that in training. The functions here
give the view an agent gets instead, one rule per difference (the table is :data:`RULES`, also in the
README):

* results are shown :data:`WINDOW` (WebShop's 10) at a time, numbered as the sim numbers its pages;
* prices read as the sim's (``$29.95``, ``$10.0 to $20.0``), in the page's currency;
* ratings read as the catalog's (``4.5``, ``N.A.``);
* option axes and values are cased as WebShop's loader stores them (lower case, ``/`` as `` | ``);
* the sim's action model: only the search page has a search bar, and ``back to search`` leads to it
  (the ``native`` action model keeps the site's own search bar on every page).

The view is a pure function of the site's state and the window shown; walking between windows and the
search page is :class:`shopsim.adapters.parity_source.ParitySource`'s job.
"""

from __future__ import annotations

import math
from typing import Literal

from shopsim.page import Clickable, PageState, Price, ProductView, ResultCard

__all__ = [
    "RULES",
    "WINDOW",
    "ActionModel",
    "item_view",
    "results_view",
    "search_view",
    "sim_axis",
    "sim_option",
    "sim_price",
    "sim_rating",
    "view",
    "window_count",
]

ActionModel = Literal["sim", "native"]

#: Results per observation page: WebShop's ``SEARCH_RETURN_N`` results shown 10 a page.
WINDOW = 10

#: The parity rules, one row per difference: (what, on a real page, in the view). The README's table.
RULES: tuple[tuple[str, str, str], ...] = (
    ("results per page", "all the site's cards (20-60)",
     f"{WINDOW} a page; `next >` / `< prev` walk the page's windows before the site's own next page"),
    ("results header", "the site's own", "`Page N (Total results: T)`: N counts windows across site pages, "
     "T the site's total when the page states it, else the cards on the site page"),
    ("price", "`EUR 17,72 bis EUR 18,66`, `R$ 303,05`", "`€17.72 to €18.66`, `R$303.05`: the sim's number "
     "format, the page's currency symbol (ISO code for currencies without one); `N.A.` when none is shown"),
    ("rating", "`4.6 out of 5 stars`", "`4.6` (one decimal), `N.A.` when none is shown"),
    ("options", "`Color`: `White/Black`", "`color`: `white | black` (WebShop's loader: lower case, `/` as ` | `)"),
    ("search bar", "on every page", "on the search page only (`native`: on every page, as the site has it)"),
    ("back to search", "the site's home page", "the search page (`native`: the site's home page)"),
    ("visited products", "not marked", "marked as clicked until `back to search`, as the sim marks them"),
)

#: Currency symbols the view writes before a price (``$`` for US dollars, as the sim does).
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥", "CNY": "¥", "INR": "₹", "BRL": "R$", "KRW": "₩",
           "PLN": "zł", "TRY": "₺", "AUD": "A$", "CAD": "C$", "MXN": "MX$", "SGD": "S$", "CHF": "CHF ",
           "SEK": "SEK ", "TWD": "NT$", "AED": "AED ", "SAR": "SAR ", "EGP": "EGP ", "ZAR": "R"}


def sim_axis(axis: str) -> str:
    """An option axis as WebShop's loader keys it (lower case)."""
    return axis.strip().lower()


def sim_option(value: str) -> str:
    """An option value as WebShop's loader stores it (``'White/Black'`` -> ``'white | black'``)."""
    return value.strip().replace("/", " | ").lower()


def _number(x: float) -> str:
    return str(float(x))  # WebShop shows Python's float repr: 29.95, 115.0


def sim_price(price: Price, currency: str | None) -> str:
    """``$29.95`` / ``€10.0 to €20.0`` in the page's currency (``$`` when unknown); ``N.A.`` for none."""
    if price is None:
        return "N.A."
    code = (currency or "USD").upper()
    symbol = SYMBOLS.get(code, f"{code} ")
    if isinstance(price, tuple):
        return f"{symbol}{_number(price[0])} to {symbol}{_number(price[1])}"
    return f"{symbol}{_number(price)}"


def sim_rating(rating: float | None) -> str:
    """A rating as the catalog's ``average_rating`` reads (one decimal), ``N.A.`` when none is shown."""
    if rating is None or not math.isfinite(rating):
        return "N.A."
    return str(round(float(rating), 1))


def window_count(state: PageState) -> int:
    """How many windows a real results page is shown in (at least one, even with no results)."""
    return max(1, math.ceil(len(state.results) / WINDOW))


def _site_paging(state: PageState) -> tuple[Clickable | None, Clickable | None]:
    prev = next(iter(c for c in state.clickables if c.kind == "prev"), None)
    nxt = next(iter(c for c in state.clickables if c.kind == "next"), None)
    return prev, nxt


def results_view(state: PageState, window: int, *, action_model: ActionModel = "sim",
                 visited: list[str] | None = None) -> PageState:
    """Window ``window`` (1-based) of a real results page, as the sim shows a results page."""
    n = window_count(state)
    window = min(max(window, 1), n)
    site_prev, site_next = _site_paging(state)
    cards = state.results[(window - 1) * WINDOW: window * WINDOW]
    by_arg = {c.arg: c for c in state.clickables if c.kind == "product"}
    clickables = [Clickable(arg="back to search", text="Back to Search", kind="back_to_search")]
    if window > 1 or site_prev is not None:
        clickables.append(site_prev if window == 1 and site_prev is not None
                          else Clickable(arg="< prev", text="< Prev", kind="prev"))
    if window < n or site_next is not None:
        clickables.append(site_next if window == n and site_next is not None
                          else Clickable(arg="next >", text="Next >", kind="next"))
    seen = {c.arg for c in clickables}
    shown: list[ResultCard] = []
    for card in cards:
        shown.append(card.model_copy(update={"price_text": sim_price(card.price, state.currency)}))
        arg = card.id.lower()
        if arg not in seen:
            seen.add(arg)
            clickables.append(by_arg.get(arg) or Clickable(arg=arg, text=card.id, kind="product", url=card.url))
    return state.model_copy(update={
        "results": shown, "clickables": clickables, "page_num": ((state.page_num or 1) - 1) * n + window,
        "total_results": state.total_results if state.total_results is not None else len(state.results),
        "has_search_bar": action_model == "native", "visited_ids": list(visited or []),
    })


def _product_view(p: ProductView, currency: str | None) -> ProductView:
    options: dict[str, list[str]] = {}
    for axis, values in p.options.items():
        shown = options.setdefault(sim_axis(axis), [])
        shown += [v for v in dict.fromkeys(sim_option(v) for v in values) if v and v not in shown]
    selected = {sim_axis(a): (sim_option(v) if v is not None else None) for a, v in p.selected.items()}
    urls = {sim_axis(a): {sim_option(v): u for v, u in vals.items()} for a, vals in p.option_urls.items()}
    return p.model_copy(update={"options": options, "selected": selected, "option_urls": urls,
                                "price_text": sim_price(p.price, p.currency or currency),
                                "rating_text": sim_rating(p.rating)})


def item_view(state: PageState, *, action_model: ActionModel = "sim") -> tuple[PageState, dict[str, str]]:
    """A real item (or item sub) page as the sim shows it, and each option action's native argument.

    The second value maps the view's ``click[...]`` argument of every option to the site page's own
    (``'white | black'`` -> ``'white/black'``), so an action on the view resolves on the real page.
    """
    if state.product is None:
        return state.model_copy(update={"has_search_bar": action_model == "native"}), {}
    native_args: dict[str, str] = {}
    clickables: list[Clickable] = []
    seen: set[str] = set()
    for c in state.clickables:
        if c.kind != "option":
            seen.add(c.arg)
            clickables.append(c)
            continue
        axis, value = sim_axis(c.axis or ""), sim_option(c.text)
        arg = value if value not in seen else f"{axis}: {value}"
        if not value or arg in seen:
            continue
        seen.add(arg)
        native_args[arg] = c.arg
        clickables.append(c.model_copy(update={"arg": arg, "text": value, "axis": axis}))
    return state.model_copy(update={
        "product": _product_view(state.product, state.currency), "clickables": clickables,
        "has_search_bar": action_model == "native",
    }), native_args


def search_view(state: PageState, instruction: str | None) -> PageState:
    """The sim's search page for the shop ``state`` belongs to: a search bar and nothing else."""
    return PageState(page_type="search", site=state.site, shop=state.shop, currency=state.currency,
                     url=None, instruction=instruction, has_search_bar=True,
                     clickables=[Clickable(arg="search", text="Search", kind="search")])


def view(state: PageState, *, window: int = 1, action_model: ActionModel = "sim",
         visited: list[str] | None = None) -> PageState:
    """Any page as the sim would show it (simsite pages and done pages are already the sim's)."""
    if state.site == "simsite" or state.page_type in ("done", "search"):
        return state
    if state.page_type == "results":
        return results_view(state, window, action_model=action_model, visited=visited)
    if state.page_type in ("item", "item_detail"):
        return item_view(state, action_model=action_model)[0]
    return state.model_copy(update={"has_search_bar": action_model == "native"})
