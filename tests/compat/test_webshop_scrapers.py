"""ReAct, Reflexion and LATS read WebShop's pages over HTTP with BeautifulSoup; here the same way over
``shopsim serve``'s app on 127.0.0.1.

The scraper below is ours, written in the shape of their ``webshop_text``: GET WebShop's URL scheme
(``/{session}``, ``/search_results/...``, ``/item_page/...``, ``/item_sub_page/...``, ``/done/...``),
``soup.findAll(text=True)`` filtered to visible text, then positions in that list: the first two plain
texts of every page but the first are the instruction label and text, an option's axis is the plain
text before its labels, the reward is the node after ``Your score (min 0.0, max 1.0)``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import pytest

bs4 = pytest.importorskip("bs4", reason="BeautifulSoup is installed by the test extra")
requests = pytest.importorskip("requests")

from bs4.element import Comment  # noqa: E402

from shopsim.simsite.server import ServerThread  # noqa: E402
from shopsim.simsite.shop import Shop  # noqa: E402
from shopsim.simsite.web import create_app  # noqa: E402

SCORE = "Your score (min 0.0, max 1.0)"
# The scrapers call bs4's old spellings (``findAll(text=True)``); bs4 warns, they keep working.
pytestmark = [pytest.mark.filterwarnings("ignore:Call to deprecated method findAll:DeprecationWarning"),
              pytest.mark.filterwarnings("ignore:The 'text' argument:DeprecationWarning")]


def visible(element: object) -> bool:
    parent = getattr(element, "parent", None)
    name = getattr(parent, "name", None)
    return name not in {"style", "script", "head", "title", "meta", "[document]"} and not isinstance(element, Comment)


@dataclass
class Page:
    """What a ReAct-style scraper takes from one page."""

    url: str
    texts: list[str] = field(default_factory=list)  # plain (not button/label/link) visible texts
    buttons: list[str] = field(default_factory=list)
    asins: list[str] = field(default_factory=list)
    options: dict[str, str] = field(default_factory=dict)  # option value -> its axis
    reward: float | None = None
    state: dict = field(default_factory=dict)  # our JSON hook, to check what the text says


def scrape(url: str, first_page: bool) -> Page:
    html = requests.get(url, timeout=30).text
    soup = bs4.BeautifulSoup(html, "html.parser")
    nodes = [t for t in soup.findAll(text=True) if visible(t)]
    page = Page(url)
    raw = [str(t) for t in nodes]
    if SCORE in raw:
        page.reward = float(raw[raw.index(SCORE) + 1])
    plain_seen, axis = 0, ""
    for t in nodes:
        if t == "\n" or not t.strip():
            continue
        if t.parent.name == "button":
            page.buttons.append(str(t))
        elif t.parent.name == "label":
            page.options[str(t)] = axis
        elif t.parent.get("class") == ["product-link"]:
            page.asins.append(str(t))
        else:
            plain_seen += 1
            if plain_seen <= 2 and not first_page:
                continue  # "Instruction:" and the instruction itself
            axis = str(t).strip()
            page.texts.append(axis)
    block = soup.find("script", id="shopsim-state")
    page.state = json.loads(block.string) if block is not None else {}
    return page


@pytest.mark.slow
def test_react_style_scraper_runs_five_episodes(bundled_shop: Shop) -> None:
    with ServerThread(create_app(bundled_shop)) as srv:
        base = srv.base_url
        for goal in range(5):
            session = f"fixed_{goal}"
            start = scrape(f"{base}/{session}", first_page=True)
            assert start.texts[:2] == ["WebShop", "Instruction:"] and start.buttons == ["Search"]
            instruction = start.texts[2]
            query = " ".join(instruction.split(" ")[2:7])
            results = scrape(f"{base}/search_results/{session}/{query}/1", first_page=False)
            assert results.texts[0].startswith("Page 1 (Total results: ")
            assert results.buttons[0] == "Back to Search" and results.asins
            asin = results.asins[0]
            options: dict[str, str] = {}
            item = scrape(f"{base}/item_page/{session}/{asin}/{query}/1/{options}", first_page=False)
            assert {"< Prev", "Description", "Features", "Reviews", "Buy Now"} <= set(item.buttons)
            assert any(t.startswith("Price: $") for t in item.texts)
            assert any(t.startswith("Rating: ") for t in item.texts)
            for value, axis in list(item.options.items())[:1]:
                options[axis] = value
                picked = scrape(f"{base}/item_page/{session}/{asin}/{query}/1/{options}", first_page=False)
                assert picked.state["product"]["selected"][axis] == value
            product = bundled_shop.product(asin)
            assert product is not None
            for sub, wanted in (("Description", product.description), ("Features", product.bullet_points[:1])):
                page = scrape(f"{base}/item_sub_page/{session}/{asin}/{query}/1/{sub}/{options}", first_page=False)
                assert page.buttons[:2] == ["Back to Search", "< Prev"]
                expected = wanted if isinstance(wanted, str) else (wanted[0] if wanted else "")
                assert not expected or expected.strip() in [t.strip() for t in page.texts]
            done = scrape(f"{base}/done/{session}/{asin}/{options}", first_page=False)
            assert done.reward is not None and done.reward == pytest.approx(done.state["reward"], abs=1e-9)
            assert 0.0 <= done.reward <= 1.0
