"""Parity: for each page type, a sim page and real pages from every site read alike (README's rules).

Real pages come from ``../shared/fixtures/real`` (not redistributed); the sim's from the bundled shop.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import REAL_PAGES, needs_shared

from shopsim.adapters.bundle import BundleWriter
from shopsim.adapters.parity_source import ParitySource
from shopsim.adapters.replay import ReplaySource
from shopsim.cli import main
from shopsim.page import PageState
from shopsim.render import _segments, format_price, render_rich, render_simple
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop
from shopsim.translators.parity import RULES, WINDOW, results_view, sim_option, sim_price, sim_rating, view

pytestmark = needs_shared

#: Real results and item pages, one pair per site (Amazon, eBay, another shop), with their URLs.
RESULTS = {
    "amazon": ("amazon/search/amazonscraper-am_sneakers_2022-10.html", "https://www.amazon.com/s?k=sneakers"),
    "ebay": ("ebay/search/bescraper_lego-nan_ebay-de_2026.html", "https://www.ebay.de/sch/i.html?_nkw=LEGO+nan"),
    "other": ("other/search/precios1_mercadolibre-pe-mouse-gamer_2025.html", "https://listado.mercadolibre.com.pe/mouse-gamer"),
}
ITEMS = {
    "amazon": "amazon/item/amazonscraper-am_puma-california-sneaker_variant_2022-10.html",
    "ebay": "ebay/item/fathomproducts_massage-chair_390985762669_2017.html",
    "other": "other/item/fathomproducts_etsy-happy-soba-tee_252423036_2017.html",
}
INSTRUCTION = "i want something, and price lower than 50.00 dollars"
PRICE = r"(?:[^\d\s]{1,3}|[A-Z]{3} )\d+\.\d+(?: to (?:[^\d\s]{1,3}|[A-Z]{3} )\d+\.\d+)?|N\.A\."


def _shape(state: PageState) -> str:
    """The page's segment structure, with texts abstracted to what the rules fix."""
    out = []
    for kind, text in _segments(state):
        if not text.strip():
            continue
        if kind == "button":
            out.append(f"[{text}]")
        elif kind in ("option", "clicked_option"):
            out.append("option")
        elif kind in ("product", "clicked_product"):
            out.append("P")
        elif re.fullmatch(r"Page \d+ \(Total results: \d+\)", text):
            out.append("HEADER")
        elif re.fullmatch(rf"Price: (?:{PRICE})", text):
            out.append("PRICE")
        elif re.fullmatch(r"Rating: (?:\d\.\d|N\.A\.)", text):
            out.append("RATING")
        elif re.fullmatch(PRICE, text):
            out.append("price")
        else:
            out.append("t")
    text = " ".join(o for o in out if o != "[Attributes]")  # item specifics: the sim's show_attrs page
    text = re.sub(r"(P t price ?)+", "CARDS ", text)  # one product card: id, title, price
    text = re.sub(r"(t (?:option ?)+)+", "OPTIONS ", text)  # axis, values
    return " ".join(text.split())


def _kinds(state: PageState) -> set[str]:
    return {c.kind for c in state.clickables}


@pytest.fixture(scope="module")
def sim_pages(bundled_shop: Shop) -> dict[str, PageState]:
    """The sim's search, results, item and item_detail pages for one goal."""
    goal = next(g for g in bundled_shop.goals if g.goal_options)
    s = ShopSession(bundled_shop, goal, "parity")
    pages = {"search": s.state}
    s.step(f"search[{goal.instruction_text}]")
    pages["results"] = s.state
    item = next(c.arg for c in s.state.clickables if c.kind == "product")
    s.step(f"click[{item}]")
    pages["item"] = s.state
    s.step("click[description]")
    pages["item_detail"] = s.state
    return pages


def _bundle(tmp: Path, site: str, results: str | None, item: str | None) -> Path:
    """A bundle of one real results page (at its search URL) and/or one item page."""
    from shopsim.translators.registry import translator_for

    tr = translator_for(site)
    w: BundleWriter | None = None
    prev = None
    for file, url in ((results, RESULTS[site][1]), (item, None)):
        if file is None:
            continue
        data = (REAL_PAGES / file).read_bytes()
        if file == item and prev is not None:
            url = tr.resolve(prev, f"click[{prev.results[0].id}]").url
        url = url or tr.parse(data, None).url or "https://shop.example/item"
        w = w or BundleWriter(tmp / f"{site}-{bool(results)}", site=site, start_url=url, instruction=INSTRUCTION)
        w.add_page(None, url, data)
        prev = tr.parse(data, url)
    assert w is not None
    return w.finish()


@pytest.mark.parametrize("site", sorted(RESULTS))
def test_results_pages_read_like_the_sims(site: str, sim_pages: dict[str, PageState], tmp_path: Path) -> None:
    src = ParitySource(ReplaySource(_bundle(tmp_path, site, RESULTS[site][0], None), any_search=True), start="search")
    search = src.reset()
    assert _shape(search) == _shape(sim_pages["search"]) and search.valid_actions() == sim_pages["search"].valid_actions()
    real, _, _, _ = src.step("search[anything]")
    sim = sim_pages["results"]
    assert real.page_type == sim.page_type == "results"
    assert _shape(real) == _shape(sim) == "t t [Back to Search] HEADER [Next >] CARDS", render_simple(real)
    assert len(real.results) == len(sim.results) == WINDOW
    assert real.has_search_bar is sim.has_search_bar is False
    assert _kinds(real) == _kinds(sim) == {"back_to_search", "next", "product"}
    second, *_ = src.step("click[next >]")  # the next window of the same site page, no request
    assert _shape(second) == "t t [Back to Search] HEADER [< Prev] [Next >] CARDS"
    assert second.page_num == 2 and second.results[0].id == src.native.results[WINDOW].id


@pytest.mark.parametrize("site", sorted(ITEMS))
def test_item_pages_read_like_the_sims(site: str, sim_pages: dict[str, PageState], tmp_path: Path) -> None:
    src = ParitySource(ReplaySource(_bundle(tmp_path, site, None, ITEMS[site])))
    real = src.reset()
    sim = sim_pages["item"]
    assert real.page_type == sim.page_type == "item"
    assert _shape(real) == _shape(sim), (render_simple(real), render_simple(sim))
    assert _shape(real) == "t t [Back to Search] [< Prev] OPTIONS t PRICE RATING [Description] [Features] [Reviews] [Buy Now]"
    assert real.has_search_bar is sim.has_search_bar is False
    assert _kinds(real) <= _kinds(sim) | {"sub_page"} and "option" in _kinds(real)
    p = real.product
    assert p is not None and all(a == a.lower() for a in p.options)
    assert all(v == sim_option(v) for vals in p.options.values() for v in vals)
    detail, *_ = src.step("click[features]")
    assert _shape(detail).startswith("t t [Back to Search] [< Prev]")
    assert _shape(sim_pages["item_detail"]).startswith("t t [Back to Search] [< Prev]")
    assert detail.valid_actions() == sim_pages["item_detail"].valid_actions()


def test_option_actions_on_the_view_resolve_on_the_real_page(tmp_path: Path) -> None:
    src = ParitySource(ReplaySource(_bundle(tmp_path, "amazon", None, ITEMS["amazon"])))
    state = src.reset()
    assert "white | black" in state.valid_actions()["clickables"]  # the site shows 'White/Black'
    state, *_ = src.step("click[white | black]")
    assert state.feedback.code in ("ok",) and state.product is not None
    assert state.product.selected.get("color") == "white | black"
    assert src.native.product.selected.get("Color") == "White/Black"
    assert "[clicked button] white | black" in render_rich(state)


def test_windows_back_to_search_and_visited_marks(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, "amazon", RESULTS["amazon"][0], ITEMS["amazon"])
    src = ParitySource(ReplaySource(bundle))
    first = src.reset()
    n = -(-len(src.native.results) // WINDOW)
    pages = [first.page_num]
    for _ in range(n - 1):
        pages.append(src.step("click[next >]")[0].page_num)
    assert pages == list(range(1, n + 1))
    last, *_ = src.step("click[next >]")  # past the last window: the site's own next page (not recorded)
    assert last.feedback.code == "not_recorded"
    src.step("click[< prev]")
    assert src.current.page_num == n  # back on the window it left
    for _ in range(n - 1):
        src.step("click[< prev]")
    item_arg = first.results[0].id.lower()
    item, *_ = src.step(f"click[{item_arg}]")
    assert item.page_type == "item"
    back, *_ = src.step("click[< prev]")
    assert back.page_num == 1 and back.visited_ids == [first.results[0].id]
    assert "[clicked button] " + first.results[0].id in render_rich(back)
    search, *_ = src.step("click[back to search]")
    assert search.page_type == "search" and search.valid_actions() == {"has_search_bar": True, "clickables": ["search"]}
    refused, *_ = src.step("click[next >]")
    assert refused.feedback.code == "not_available" and refused.page_type == "search"


def test_native_action_model_keeps_the_sites_search_bar(tmp_path: Path) -> None:
    bundle = _bundle(tmp_path, "amazon", RESULTS["amazon"][0], ITEMS["amazon"])
    src = ParitySource(ReplaySource(bundle), action_model="native")
    first = src.reset()
    assert first.has_search_bar is True and len(first.results) == WINDOW  # formats and windows still apply
    item, *_ = src.step(f"click[{first.results[0].id.lower()}]")
    assert item.has_search_bar is True
    start, *_ = src.step("click[back to search]")  # the site's start page, as the inner source has it
    assert start.page_type == "results"


def test_strict_search_needs_the_search_bar(tmp_path: Path) -> None:
    src = ParitySource(ReplaySource(_bundle(tmp_path, "amazon", RESULTS["amazon"][0], None)), strict=True)
    src.reset()
    refused, *_ = src.step("search[sneakers]")
    assert refused.feedback.code == "not_available" and "back to search" in refused.feedback.message


def test_price_and_rating_formats_match_the_sims() -> None:
    for price in (12.5, 29.95, 115.0, (10.0, 20.0)):
        assert sim_price(price, "USD") == format_price(price) == sim_price(price, None)
    assert sim_price(17.72, "EUR") == "€17.72" and sim_price((1.0, 2.5), "GBP") == "£1.0 to £2.5"
    assert sim_price(303.05, "BRL") == "R$303.05" and sim_price(71492.0, "COP") == "COP 71492.0"
    assert sim_price(None, "USD") == "N.A."
    assert sim_rating(4.6) == "4.6" and sim_rating(4.9869) == "5.0" and sim_rating(None) == "N.A."
    assert sim_option(" White/Black ") == "white | black"


@pytest.mark.parametrize("site", sorted(RESULTS))
def test_real_prices_show_in_the_sims_format_with_the_pages_currency(site: str) -> None:
    from shopsim.cli.translate import translate_path

    state = translate_path(str(REAL_PAGES / RESULTS[site][0]), None, None)
    shown = results_view(state, 1)
    for card in shown.results:
        assert re.fullmatch(PRICE, card.price_text), card.price_text
    sim_like = view(state)
    assert sim_like.results == shown.results


def test_translate_cli_shows_the_view_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    page = str(REAL_PAGES / RESULTS["ebay"][0])
    assert main(["translate", page, "--format", "text"]) == 0
    text, actions = capsys.readouterr().out.splitlines()
    assert "Page 1 (Total results: 60)" in text and "EUR" not in text and "€" in text
    assert len(json.loads(actions.split(": ", 1)[1])["clickables"]) == 2 + WINDOW
    assert main(["translate", page, "--format", "text", "--window", "6"]) == 0
    assert "Page 6 (Total results: 60)" in capsys.readouterr().out
    assert main(["translate", page, "--format", "text", "--view", "site"]) == 0
    site = capsys.readouterr().out
    assert "EUR 17,72" in site and '"has_search_bar": true' in site
    with pytest.raises(SystemExit) as bad:
        main(["translate", page, "--format", "text", "--window", "0"])
    assert bad.value.code == 2 and "at least 1" in capsys.readouterr().err


def test_the_rules_table_is_in_the_readme() -> None:
    readme = (Path(__file__).resolve().parents[2] / "docs" / "translators.md").read_text(encoding="utf-8")
    for what, _, _ in RULES:
        assert f"| {what} |" in readme, what
