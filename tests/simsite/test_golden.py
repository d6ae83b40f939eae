"""Compatibility with WebShop's own recorded outputs (the golden files): goals, prices, rewards, episodes."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

from shopsim.render import render_rich, render_simple
from shopsim.simsite.goals import load_goal_file
from shopsim.simsite.search import FixedResults
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop, ShopConfig
from tests.conftest import GOLDEN, SMALL, needs_golden, read_jsonl

pytestmark = [pytest.mark.slow, needs_golden]

TAGGER_FREE = ("r_att", "w_att", "query_match", "category_match", "r_option", "w_option", "r_price", "w_price")


@pytest.fixture(scope="module")
def small_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """WebShop's small set prepared as an on-disk store (``shopsim data prepare``), once per module."""
    from shopsim.simsite.store import prepare_store

    out = tmp_path_factory.mktemp("golden") / "store"
    prepare_store(SMALL, out, workers=1)
    return out


@pytest.mark.parametrize("source", ["files", "store"])
def test_seed0_reproduces_webshop_goals_and_prices(small_shop: Shop, small_store: Path, source: str) -> None:
    shop = small_shop if source == "files" else Shop.load(small_store)
    gold = read_jsonl(GOLDEN / "goals_synthetic_seed0.jsonl")
    assert len(shop.goals) == len(gold) == 6910
    for ours, theirs in zip(shop.goals, gold, strict=True):
        for key in ("asin", "instruction_text", "price_upper", "goal_options", "attributes", "query", "name"):
            assert getattr(ours, key) == theirs[key], (theirs["index"], key)
        assert ours.weight == pytest.approx(theirs["weight"], abs=1e-12)
    prices = json.loads((GOLDEN / "product_prices_seed0.json").read_text())
    assert {a: shop.prices[a] for a in prices} == prices


@pytest.mark.parametrize("tagger", ["default", "fallback"])
def test_rewards_match_golden_breakdowns(small_shop: Shop, tagger: str) -> None:
    from shopsim.simsite.nouns import NounExtractor

    nouns = small_shop.nouns if tagger == "default" else NounExtractor(use_spacy=False)
    goals = load_goal_file(GOLDEN / "goals_synthetic_seed0.jsonl")
    records = read_jsonl(GOLDEN / "rewards_seed0.jsonl")
    assert len(records) == 1500
    from shopsim.simsite.reward import score_purchase

    mismatches: Counter[str] = Counter()
    same_type = total_ok = 0
    for rec in records:
        b = score_purchase(small_shop.products[rec["asin"]], goals[rec["goal_index"]], rec["price"], rec["options"], nouns)
        info = b.webshop_info()
        assert set(info) == set(rec["info"]), rec
        for key in TAGGER_FREE:
            if key in rec["info"] and info[key] != pytest.approx(rec["info"][key], abs=1e-12):
                mismatches[key] += 1
        if b.r_type == rec["info"]["r_type"]:
            same_type += 1
            total_ok += b.reward == pytest.approx(rec["reward"], abs=1e-12)
    print(f"\nnoun tagger {nouns.source}: r_type agrees on {same_type}/1500; "
          f"tagger-free mismatches: {dict(mismatches)}")
    # Every tagger-free component agrees exactly, except one option record WebShop scored in a way
    # no consistent rule reproduces ('small size' chosen for goal 'small'); see README.
    assert sum(mismatches.values()) <= 1 and set(mismatches) <= {"r_option"}, mismatches
    assert total_ok == same_type, "totals must agree whenever the type reward agrees"
    floor = 0.99 if nouns.source.startswith("spacy") else 0.96
    assert same_type >= floor * 1500, f"type reward agreement too low with {nouns.source}: {same_type}/1500"


def _golden_rankings(episodes: list[dict]) -> dict[str, list[str]]:
    """Rebuild WebShop's full rankings from the pages the episodes saw (filler for unseen pages)."""
    pages: dict[str, dict[int, list[str]]] = {}
    totals: dict[str, int] = {}
    for ep in episodes:
        for step in ep["steps"]:
            if step.get("result_asins") is None:
                continue
            parts = step["url"].split("/")
            query, page = parts[5].replace("+", " "), int(parts[6])
            pages.setdefault(query, {})[page] = step["result_asins"]
            totals[query] = int(re.search(r"Total results: (\d+)", step["observation"]).group(1))  # type: ignore[union-attr]
    filler = [g["asin"] for g in read_jsonl(GOLDEN / "goals_synthetic_seed0.jsonl")]
    rankings = {}
    for query, seen in pages.items():
        used = {a for v in seen.values() for a in v}
        spare = [a for a in dict.fromkeys(filler) if a not in used]
        ranking: list[str] = []
        for page in range(1, 6):
            ranking += seen.get(page) or [spare.pop(0) for _ in range(10)]
        rankings[query] = ranking[: totals[query]]
    return rankings


@pytest.mark.parametrize("source", ["files", "store"])
@pytest.mark.parametrize("search", ["recorded", "live"])
def test_every_golden_episode_step_is_byte_identical(search: str, source: str, request: pytest.FixtureRequest) -> None:
    """``recorded`` replays WebShop's rankings; ``live`` searches with our default (Lucene) engine.

    ``store`` runs the same episodes on a prepared store of the same files (lazy products, mapped
    prices and index), which must give the same bytes.
    """
    episodes = read_jsonl(GOLDEN / "episodes_seed0.jsonl")
    data = SMALL if source == "files" else request.getfixturevalue("small_store")
    shop = Shop.from_config(
        ShopConfig(data_dir=data, num_products=1000, goals_file=GOLDEN / "goals_synthetic_seed0.jsonl",
                   prices_file=GOLDEN / "product_prices_seed0.json"),
        search=FixedResults(_golden_rankings(episodes)) if search == "recorded" else None,
    )
    checked = reward_checked = 0
    for ep in episodes:
        session = ShopSession(shop, shop.goals[ep["goal_index"]], str(ep["goal_index"]))
        for step in ep["steps"]:
            reward, done = 0.0, False
            if step["action"] != "reset":
                result = session.step(step["action"])
                reward, done = result.reward, result.done
            state = session.state
            where = (ep["goal_index"], step["action"])
            assert state.url == step["url"], where
            assert state.valid_actions() == step["available_actions"], where
            assert done == step["done"], where
            if step["done"] and result.breakdown is not None and reward != pytest.approx(step["reward"], abs=1e-12):
                # Only the tagger-dependent type reward may differ: WebShop's total must be our
                # tagger-free partial score times one of the four type levels.
                b = result.breakdown
                partial = b.r_att * b.w_att + (b.r_option or 0) * (b.w_option or 0) + float(bool(b.r_price)) * (b.w_price or 0)
                assert any(step["reward"] == pytest.approx(partial * t, abs=1e-12) for t in (0.0, 0.1, 0.5, 1.0)), where
                state = state.model_copy(update={"reward": step["reward"]})
            else:
                assert reward == pytest.approx(step["reward"], abs=1e-12), where
                reward_checked += 1
            assert render_simple(state) == step["observation"], where
            assert render_rich(state) == step["observation_rich"], where
            checked += 1
    assert checked == sum(len(ep["steps"]) for ep in episodes) == 972
    assert reward_checked >= 960
