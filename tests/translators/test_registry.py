"""The one translator registry: the facade and the CLI read a page alike, and a new shop is one call."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

import shopsim
from shopsim.cli import main as cli_main
from shopsim.cli.translate import translate_path
from shopsim.page import Navigation, PageState, ProductView
from shopsim.simsite.html import render_html
from shopsim.simsite.session import ShopSession
from shopsim.translators.answer_key import to_annotation_json
from shopsim.translators.registry import (
    PageSeen,
    register_translator,
    site_names,
    translate_file,
    translate_html,
    translator_for,
    unregister_translator,
)

TOY_PAGE = """<!doctype html><html><head><title>Toy Barn</title></head>
<body data-shop="toybarn"><h1 class="toy-name">Wooden train set</h1>
<p class="toy-price">$24.50</p></body></html>"""


class ToyBarnTranslator:
    """A user's translator for one tiny shop: the product's name and price, nothing else."""

    site = "toybarn"

    def parse(self, html: str, url: str | None = None) -> PageState:
        start = html.index('class="toy-name">') + len('class="toy-name">')
        title = html[start:html.index("</h1>", start)]
        start = html.index('class="toy-price">$') + len('class="toy-price">$')
        price = float(html[start:html.index("</p>", start)])
        product = ProductView(id="train-1", title=title, price=price, price_text=f"${price:.2f}")
        return PageState(page_type="item", site="other", shop="toybarn", url=url, product=product)

    def resolve(self, state: PageState, action: str) -> Navigation:
        return Navigation(kind="none")


@pytest.fixture
def toybarn() -> Iterator[None]:
    """The toy shop registered for one test only."""
    shopsim.register_translator("toybarn", ToyBarnTranslator, lambda page: 'data-shop="toybarn"' in page.html)
    yield
    unregister_translator("toybarn")


def _sim_page(shop: shopsim.Shop) -> str:
    """A results page of our own shop, as the web app renders it."""
    session = ShopSession(shop, shop.goal(0), "fixed_0")
    session.step("search[red shirt]")
    return render_html(session.state)


def test_a_sim_page_reads_alike_through_the_facade_and_the_cli(bundled_shop: shopsim.Shop, tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    html = _sim_page(bundled_shop)
    path = tmp_path / "sim.html"
    path.write_text(html, encoding="utf-8")
    by_facade = shopsim.translate(html)
    assert by_facade.site == "simsite" and by_facade.page_type == "results" and by_facade.results
    assert translate_path(str(path), None, None) == by_facade == shopsim.translate_file(path)
    assert cli_main(["translate", str(path)]) == 0
    assert json.loads(capsys.readouterr().out) == to_annotation_json(by_facade)


def test_the_built_in_translators_in_order() -> None:
    names = ("simsite", "amazon", "ebay", "china", "japan_korea", "other")
    assert site_names()[-6:] == list(names)
    assert [type(translator_for(s)).__name__ for s in names] == [
        "SimsiteTranslator", "AmazonTranslator", "EbayTranslator", "ChinaShopTranslator", "JapanKoreaTranslator",
        "GenericTranslator"]
    assert translator_for("other") is not translator_for("other")  # fresh: the generic one remembers shops
    with pytest.raises(ValueError, match="no translator for 'nope'"):
        translator_for("nope")


def test_a_page_no_translator_claims() -> None:
    state = translate_html("<html><head><title>x</title></head><body><p>nothing here</p></body></html>")
    assert (state.site, state.page_type) == ("unknown", "unknown")
    assert state.reason is not None and state.reason.startswith("site not recognised and no shop page found")
    assert translate_html("").reason == "empty page"
    assert translate_html("just text, no markup").site == "unknown"


def test_registering_a_shop_is_one_call(toybarn: None, tmp_path: Path) -> None:
    assert site_names()[0] == "toybarn"  # tried before the built-in translators
    state = translate_html(TOY_PAGE, "https://toybarn.example/train")
    assert state.product is not None and (state.product.title, state.product.price) == ("Wooden train set", 24.5)
    assert state.url == "https://toybarn.example/train"
    path = tmp_path / "toy.html"
    path.write_text(TOY_PAGE, encoding="utf-8")
    assert translate_file(path) == translate_path(str(path), None, None) == translate_html(TOY_PAGE)
    assert translate_html(TOY_PAGE, site="other").product != state.product  # --site still picks the reader
    assert shopsim.translate("<html><body><p>x</p></body></html>").site == "unknown"  # others are not claimed


def test_unregistering_restores_the_built_ins(toybarn: None) -> None:
    register_translator("amazon", ToyBarnTranslator, lambda page: False)
    assert type(translator_for("amazon")) is ToyBarnTranslator and site_names().index("amazon") == 2
    unregister_translator("amazon")
    assert type(translator_for("amazon")).__name__ == "AmazonTranslator"
    unregister_translator("toybarn")
    assert "toybarn" not in site_names()


def test_detect_predicates_see_the_url_and_a_lazy_tree() -> None:
    page = PageSeen("<html><body><p>hi</p></body></html>", "")
    assert page.url is None and page.market_site == "unknown"
    assert page.tree is not None and page.reason is None
    bad = PageSeen("no markup at all")
    assert bad.tree is None and bad.reason == "no HTML markup in page" and bad.market_site == "unknown"
    assert PageSeen("<html></html>", "https://www.ebay.de/itm/1").market_site == "ebay"


def test_a_page_is_parsed_once_per_translation(monkeypatch: pytest.MonkeyPatch) -> None:
    """Detection and the chosen translator share one parse of the page (a spy on lexbor, not a stand-in)."""
    import shopsim.translators.documents as documents

    parses: list[int] = []
    real = documents.LexborHTMLParser

    class Counting(real):  # type: ignore[misc, valid-type]
        def __init__(self, html: str) -> None:
            parses.append(len(html))
            super().__init__(html)

    monkeypatch.setattr(documents, "LexborHTMLParser", Counting)
    page = ("<html><head><title>Blue mug | Toy shop</title></head><body><h1>Blue mug</h1>"
            "<span class=price>$12.00</span><button>Add to cart</button></body></html>")
    state = translate_html(page, "https://shop.example/p/blue-mug-123")
    assert (state.page_type, state.product.title if state.product else None) == ("item", "Blue mug")
    assert len(parses) == 1
    translate_html(page, "https://shop.example/p/blue-mug-123")  # a new translation parses again
    assert len(parses) == 2
