"""The closed translator loop: a skin's page read back by our real-site translator, compared with the sim's state.

``read_back`` runs what ``shopsim translate --site <skin.site>`` runs on a saved page
(:func:`shopsim.translators.registry.translate_html`). ``view`` is what a reading must get right, the
same projection of both states: the page type (the real translators have no sub-pages: an
item_detail page reads as the item it shows), results (id, title, price), query and page number, and
the product fields the skin shows. Display texts (``$35.0`` against ``$35.00``) and links differ by
design and are left out; whitespace is collapsed, as every translator collapses it. Search and done
pages have no reading on real sites: there the loop checks that nothing reads them as results or items.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from shopsim.page import PageState
from shopsim.simsite.skins import Skin
from shopsim.translators.registry import translate_html

__all__ = ["mismatch", "read_back", "seeded_episode", "view"]

#: Page types the real-site translators read; a sim page of any other type must read as none of them.
READ_TYPES = {"results": "results", "item": "item", "item_detail": "item"}


def read_back(skin: Skin, html: str, url: str | None) -> PageState:
    """The page as ``shopsim translate --site <skin.site>`` reads it."""
    return translate_html(html, url, skin.site)


def _squash(value: Any) -> Any:
    """Whitespace collapsed in every string of ``value`` (lists and dicts walked); prices as floats."""
    if isinstance(value, str):
        return " ".join(value.split())
    if isinstance(value, (list, tuple)):
        return [_squash(v) for v in value]
    if isinstance(value, dict):
        return {_squash(k): _squash(v) for k, v in value.items()}
    return value


def view(state: PageState, skin: Skin) -> dict[str, Any]:
    """What a read-back must reproduce of ``state`` (see the module docstring)."""
    kind = READ_TYPES.get(state.page_type)
    if kind is None:
        return {"page_type": "other"}
    out: dict[str, Any] = {"page_type": kind}
    if kind == "results":
        out["results"] = [[c.id, c.title, c.price] for c in state.results]
        out["query"], out["page_num"] = state.query, state.page_num
    elif state.product is not None:
        product = state.product.model_dump()
        out["product"] = {f: product[f] for f in skin.fields}
        if "selected" in out["product"]:  # an axis with no value chosen reads as None or not at all
            out["product"]["selected"] = {k: v for k, v in product["selected"].items() if v is not None}
        if state.page_type == "item_detail":  # a sub-page shows the options, not which are chosen
            out["product"].pop("selected", None)
    return _squash(out)


def _drop(out: dict[str, Any], facts: tuple[str, ...]) -> dict[str, Any]:
    """``out`` without the facts named (``results``, ``product.price``): those a perturbation changes."""
    for fact in facts:
        top, _, sub = fact.partition(".")
        if sub and isinstance(out.get(top), dict):
            out[top].pop(sub, None)
        elif not sub:
            out.pop(top, None)
    return out


def mismatch(sim: PageState, html: str, skin: Skin,
             ignore: tuple[str, ...] = ()) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """None when ``html`` (``skin``'s page of ``sim``) reads back as ``sim`` (but for the facts in ``ignore``:
    :data:`shopsim.simsite.perturb.CHANGES`); else both views.
    """
    read = read_back(skin, html, sim.url)
    want = _drop(view(sim, skin), ignore)
    got = _drop(view(read, skin), ignore)
    if want.get("page_type") == "item" and got.get("page_type") == "item":
        want_p, got_p = want["product"], got["product"]
        if "selected" not in want_p:
            got_p.pop("selected", None)
    return None if want == got else (want, got)


def seeded_episode(source: Any, goal_index: int, seed: int, max_clicks: int = 8) -> Iterator[PageState]:
    """A seeded random episode on any page source: each page it visits, from the search page to done.

    It searches three words of the instruction on every search page, clicks valid actions at random
    elsewhere (buying last) and buys if it can, so every page type is visited; the read-back tests and
    ``benchmarks/skins.py`` drive it.
    """
    rng = random.Random(seed)
    state = source.reset(goal_index)
    yield state
    words = (state.instruction or "shop").split()
    done = False
    for _ in range(max_clicks + 1):
        if done:
            return
        args = [a for a in state.valid_actions()["clickables"] if a not in ("buy now", "search")]
        if state.page_type == "search" or not args:
            action = "search[" + " ".join(rng.sample(words, min(3, len(words)))) + "]"
        else:
            action = f"click[{rng.choice(args)}]"
        state, _, done, _ = source.step(action)
        yield state
    if not done and state.clickable("buy now"):
        state, *_ = source.step("click[buy now]")
        yield state
