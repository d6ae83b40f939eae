"""Perturbations: same seed and page give the same bytes, rewards do not change, and every perturbed page
reads back through our translators as the sim's state but for the facts the perturbation says it changes."""

from __future__ import annotations

import pytest

from shopsim.adapters.env import ShopEnv
from shopsim.adapters.skin_readback import mismatch, read_back, seeded_episode, view
from shopsim.adapters.sources import InProcessSource
from shopsim.cli import main
from shopsim.errors import ConfigError
from shopsim.page import PageState
from shopsim.simsite.perturb import CHANGES, PERTURBATIONS, apply_state, parse_perturb, perturbed_skin
from shopsim.simsite.server import ServerThread
from shopsim.simsite.shop import Shop
from shopsim.simsite.skins import SKINS, get_skin
from shopsim.simsite.web import create_app
from tests.adapters.test_skins import _play

SPECS = [*(n + ("=de" if n in ("locale", "labels") else "") for n in PERTURBATIONS), "locale=fr"]


@pytest.fixture(scope="module")
def pages(bundled_shop: Shop) -> list[PageState]:
    src = InProcessSource(bundled_shop)
    return [s for ep in range(8) for s in seeded_episode(src, ep % len(bundled_shop.goals), seed=ep)]


@pytest.mark.parametrize("skin", list(SKINS))
@pytest.mark.parametrize("spec", SPECS)
def test_read_back_is_the_sims_state_but_for_what_the_perturbation_changes(spec: str, skin: str, pages,
                                                                            bundled_shop: Shop) -> None:
    name = spec.split("=")[0]
    drawn = perturbed_skin(get_skin(skin), parse_perturb(spec, seed=3))
    bad = [m for s in pages
           if (m := mismatch(s, drawn.render(s, bundled_shop.products), drawn, CHANGES[name]))]
    assert not bad, bad[0]


@pytest.mark.parametrize("spec", ["sponsored", "count", "order", "price_range"])
def test_changed_facts_read_back_as_the_page_shows_them(spec: str, pages, bundled_shop: Shop) -> None:
    """What a state perturbation changes is read, not lost: the read-back equals the perturbed state's view."""
    p = parse_perturb(spec, seed=5)
    skin = get_skin("amazon")
    drawn = perturbed_skin(skin, p)
    changed = 0
    for s in pages:
        shown = apply_state(p, s)
        changed += shown != s
        assert mismatch(shown, drawn.render(s, bundled_shop.products), skin) is None
    assert changed > 0
    if spec == "sponsored":
        results = next(read_back(skin, drawn.render(s, None), s.url) for s in pages if s.page_type == "results")
        assert results.results[0].sponsored and results.results[0].id in {r.id for r in results.results[1:]}


def _with_dollars(state: PageState) -> PageState:
    """``state`` with catalog text that quotes a price ("Save $150.00", as 2 of webshop-small's 1,000 products do)."""
    text = " Save $1,150.00 and $5.00 today "
    cards = [c.model_copy(update={"title": c.title + text}) for c in state.results]
    product = state.product
    if product is not None:
        axes = {a: [*vals, "$5.00 gift"] for a, vals in product.options.items()}
        product = product.model_copy(update={"title": product.title + text, "description": product.description + text,
                                             "bullet_points": [*product.bullet_points, text], "options": axes})
    return state.model_copy(update={"results": cards, "product": product})


@pytest.mark.parametrize("skin", ["amazon", "ebay", "generic"])
def test_locale_leaves_the_catalogs_own_words(skin: str, pages, bundled_shop: Shop) -> None:
    """``locale=de`` reformats the prices the page shows, not a "$150.00" in a title, bullet, description or option
    value: those read back as the catalog has them (they were rewritten to "150,00 €", a change CHANGES does not
    name; the results are compared but for their prices, which the locale does change)."""
    drawn = perturbed_skin(get_skin(skin), parse_perturb("locale=de", seed=0))
    checked = euros = 0
    for s in map(_with_dollars, pages):
        if s.page_type not in ("results", "item", "item_detail"):
            continue
        html = drawn.render(s, None)
        euros += "\u20ac" in html  # the prices shown still change
        assert mismatch(s, html, drawn, CHANGES["locale"]) is None
        cards = [view(state, drawn).get("results", []) for state in (s, read_back(drawn, html, s.url))]
        assert [r[:2] for r in cards[0]] == [r[:2] for r in cards[1]]
        checked += 1
    assert checked > 10 and euros > 10


@pytest.mark.parametrize("skin", ["amazon", "ebay", "generic"])
def test_lazy_cards_read_back_as_the_first_of_the_sims(skin: str, pages, bundled_shop: Shop) -> None:
    """``lazy`` leaves ``results`` out of the comparison above; what a static reader sees is still checked: the
    sim's first cards, in order, at least two of them, and fewer than all on some page."""
    drawn = perturbed_skin(get_skin(skin), parse_perturb("lazy", seed=3))
    shorter = 0
    for s in pages:
        if s.page_type != "results":
            continue
        want = view(s, drawn)["results"]
        got = view(read_back(drawn, drawn.render(s, bundled_shop.products), s.url), drawn)["results"]
        assert got == want[:len(got)] and len(got) >= min(2, len(want))
        shorter += len(got) < len(want)
    assert shorter > 0


@pytest.mark.parametrize("spec", [*SPECS, "random"])
def test_same_seed_same_bytes(spec: str, pages, bundled_shop: Shop) -> None:
    for skin in SKINS.values():
        one = perturbed_skin(skin, parse_perturb(spec, seed=1))
        two = perturbed_skin(skin, parse_perturb(spec, seed=1))
        assert all(one.render(s, bundled_shop.products) == two.render(s, bundled_shop.products) for s in pages)


def test_random_varies_with_the_seed(pages) -> None:
    skin = get_skin("ebay")
    drawn = [perturbed_skin(skin, parse_perturb("random", seed=k)) for k in range(3)]
    assert any(len({d.render(s, None) for d in drawn}) > 1 for s in pages)


def test_perturbations_change_the_page(pages) -> None:
    """Each perturbation shows on some page of every skin but webshop's item-less ones (a switch that does nothing is a bug)."""
    for spec in SPECS:
        for skin in ("amazon", "ebay", "generic"):
            plain, drawn = get_skin(skin), perturbed_skin(get_skin(skin), parse_perturb(spec, seed=2))
            assert any(plain.render(s, None) != drawn.render(s, None) for s in pages), (spec, skin)


def test_rewards_do_not_change(bundled_shop: Shop) -> None:
    product = next(iter(bundled_shop.products))
    rewards = set()
    for spec in ("none", "random", ",".join(SPECS)):
        with ServerThread(create_app(bundled_shop, skin="amazon", perturb=parse_perturb(spec, 0))) as server:
            _, reward = _play(server.base_url, 2, product)
            rewards.add(reward)
    assert len(rewards) == 1 and None not in rewards


def test_shopenv_perturbed_html_keeps_rewards(bundled_shop: Shop) -> None:
    plain = ShopEnv(bundled_shop)
    env = ShopEnv(bundled_shop, observation_mode="html", skin="generic", perturb="random")
    plain.reset(seed=4, options={"goal": 1})
    page, _ = env.reset(seed=4, options={"goal": 1})
    for action in ("search[shoes]", "click[next >]", "click[back to search]"):
        assert plain.step(action)[1:4] == env.step(action)[1:4]
    again = ShopEnv(bundled_shop, observation_mode="html", skin="generic", perturb="random")
    assert again.reset(seed=4, options={"goal": 1})[0] == page


def test_unknown_perturbation_is_one_line(capsys) -> None:
    with pytest.raises(ConfigError, match="Did you mean 'sponsored'"):
        parse_perturb("sponsord")
    with pytest.raises(ConfigError, match="locale=xx"):
        parse_perturb("locale=xx")
    assert main(["eval", "--adapter", "browser", "--perturb", "banner,popups", "--goals", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("shopsim: error: unknown perturbation 'popups'") and "\n" not in err
    with pytest.raises(ConfigError, match="draws the html observation"):
        ShopEnv(observation_mode="text", perturb="banner")


@pytest.mark.parametrize("argv", [["eval", "--agent", "rule", "--goals", "0:1"], ["serve", "--skin", "amazon"],
                                  ["eval", "--adapter", "browser", "--perturb", "banner", "--goals", "0:1"]])
def test_a_negative_seed_is_one_line(argv: list[str], capsys) -> None:
    """``--seed -1`` is refused by the parser: it was a pydantic traceback (PerturbSpec's seed, even without
    --perturb) or gymnasium's "Seed must be greater or equal to zero" traceback."""
    with pytest.raises(SystemExit) as exit_:
        main([*argv, "--seed", "-1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "--seed: must be 0 or more, got -1" in err and "Traceback" not in err


@pytest.mark.slow
@pytest.mark.parametrize("name", ["amazon", "ebay", "generic"])
def test_browser_clicks_through_perturbed_pages(name: str, bundled_shop: Shop, chromium_path,
                                                browser_shutdown) -> None:
    """Chromium types and clicks the real elements under the banner, the pop-up, translated labels, another
    locale, lazy images, price ranges and an out-of-stock note: the same actions and reward as in-process.
    (The result perturbations are left out: they change which card comes first, which the script picks.)"""
    from shopsim.adapters.browser_source import BrowserSource
    from tests.adapters.test_skins_browser import _buy_first

    spec = parse_perturb("price_range,out_of_stock,lazy,banner,locale=de,labels=de", 0)
    with ServerThread(create_app(bundled_shop, skin=name, perturb=spec)) as srv, \
            BrowserSource(srv.base_url, mode="click", executable_path=chromium_path, timeout_ms=10_000) as src:
        actions, reward = _buy_first(src, bundled_shop)
    assert (actions, reward) == _buy_first(InProcessSource(bundled_shop), bundled_shop)


@pytest.mark.slow
def test_eval_in_a_perturbed_browser_shop_scores_as_in_process(tmp_path, chromium_path, browser_shutdown) -> None:
    """`shopsim eval --adapter browser --skin amazon --perturb ...` records the spec and earns the in-process score."""
    import json

    spec = "banner,labels=de,locale=de,lazy,out_of_stock"
    assert main(["eval", "--agent", "rule", "--adapter", "browser", "--skin", "amazon", "--perturb", spec,
                 "--browser", chromium_path, "--goals", "0:3", "--out", str(tmp_path / "browser")]) == 0
    assert main(["eval", "--agent", "rule", "--goals", "0:3", "--out", str(tmp_path / "inprocess")]) == 0
    runs = [json.loads((tmp_path / name / "summary.json").read_text()) for name in ("browser", "inprocess")]
    assert runs[0]["score"] == runs[1]["score"] and runs[0]["success_rate"] == runs[1]["success_rate"]
    assert json.loads((tmp_path / "browser" / "config.json").read_text())["perturb"] == spec
