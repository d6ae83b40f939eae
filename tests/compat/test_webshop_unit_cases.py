"""WebShop's own unit-test behaviours (tests/web-agent-site in its repository), in our words, against
``web_agent_site``: the reward's parts on hand-written dicts, colour and size normalisation, utils."""

from __future__ import annotations

import hashlib
import logging
import random
from math import isclose
from pathlib import Path

import numpy as np
import pytest

from web_agent_site.engine.goal import get_attribute_reward, get_option_reward, get_reward, get_type_reward
from web_agent_site.engine.normalize import normalize_color, normalize_color_size
from web_agent_site.utils import generate_mturk_code, random_idx, setup_logger


def _typed(query: str, category: str, name: str) -> dict:
    return {"query": query, "product_category": category, "name": name}


def test_type_reward_query_category_and_title() -> None:
    goal = _typed("hiking boots", "shoes › men › boots", "Waterproof Leather Hiking Boot")
    same = get_type_reward(dict(goal), goal)
    assert same == {"r_type": 1.0, "query_match": True, "category_match": True, "title_score": 1.0}
    cases = {"men › boots › shoes": True, "a › b › c": False, "shoes › x › boots": True,
             "shoes › shoes › boots": True, "shoes › shoes › x": False}
    for category, match in cases.items():
        got = get_type_reward(_typed("other", category, goal["name"]), goal)
        assert got["category_match"] is match and got["query_match"] is False, category


def test_title_scores_follow_shared_nouns() -> None:
    goal = _typed("q", "a › b", "adidas Unisex-Adult D.o.n. Issue 2 Basketball Shoe")
    near = get_type_reward(_typed("q2", "x › y", "adidas Unisex-Adult D.o.n. Issue 2 Indoor Court Shoe"), goal)
    assert 0.5 < near["title_score"] < 1.0 and near["r_type"] == 1.0
    far = get_type_reward(_typed("q2", "x › y", "Minkissy 2pcs Stainless Steel Eyebrow Tweezers (Silver)"),
                          _typed("q", "a › b", "Rusticware 921ORB Kitchen and Bath Cabinet Knob"))
    assert far["title_score"] < 0.05 and far["r_type"] == 0.0


def test_title_scores_with_spacys_tagger() -> None:
    from shopsim.simsite.nouns import default_extractor

    if not default_extractor().source.startswith("spacy"):
        pytest.skip("no spaCy model installed (pip install -e .[nlp]): title scores come from the fallback noun finder")
    bought = _typed("q", "a", "BRST AC Power Cord Outlet Socket Cable Plug Lead for Panasonic SC-HT830V DVD/VCR "
                              "Combo Home Theater System")
    wanted = "Saireed UL Listed 2 Prong Power Cord for JBL Bar 3.1 Bar 2.1 Channel 4K Ultra HD Soundbar"
    assert isclose(get_type_reward(bought, _typed("q", "a", wanted))["title_score"], 0.17, abs_tol=1e-2)
    longer = _typed("q", "a", wanted + " Home Theater System Subwoofer")
    assert isclose(get_type_reward(bought, longer)["title_score"], 0.31, abs_tol=1e-2)


def test_attribute_reward_fuzzy_then_texts() -> None:
    goal = {"attributes": ["tea tree", "essential oils", "natural ingredients"]}
    assert get_attribute_reward({"Attributes": ["tea tree", "essential oil", "natural ingredients"]}, goal) == (1, 3)
    partial = {"Attributes": ["essential oil", "natural ingredients"], "Title": "", "BulletPoints": [],
               "Description": ""}
    assert get_attribute_reward(partial, goal) == (2 / 3, 2)
    in_text = {"Attributes": [], "Title": "", "BulletPoints": ["made with essential oils"],
               "Description": "only natural ingredients"}
    assert get_attribute_reward(in_text, goal) == (2 / 3, 2)
    none = {"Attributes": ["tea bag"], "Title": "Breakfast tea", "BulletPoints": ["warm"], "Description": "tea"}
    assert get_attribute_reward(none, goal) == (0, 0)


def test_option_reward_both_signatures() -> None:
    assert get_option_reward(["pack of 12", "grey", "xl"], ["grey", "xl", "pack of 12"]) == (1, 3)
    assert get_option_reward(["pack of 12", "blue", "xl"], ["grey", "xl", "pack of 12"]) == (2 / 3, 2)
    assert get_option_reward(["pack of 12", "powder snow", "xl"], ["cool powder snow", "xl", "pack of 12"]) == (1, 3)
    assert get_option_reward(["a", "b"], []) == (None, 0)
    assert get_option_reward([], ["a", "b"]) == (0, 0)
    assert get_option_reward({"Title": "x"}, ["grey", "xl"], {"color": "grey", "size": "m"}) == (0.5, 1)


def test_total_reward_weights_every_part() -> None:
    goal = {"query": "q", "product_category": "a › b › c",
            "name": "Mens Basketball Sneakers Shoes Casual White",
            "attributes": ["tea tree", "essential oils", "natural ingredients"],
            "goal_options": {"color": "grey", "size": "xl"}, "price_upper": 40.0}
    bought = {"query": "q", "product_category": "a › b › c", "name": goal["name"],
              "Attributes": ["tea tree", "essential oil", "natural ingredients"], "Title": "", "BulletPoints": [],
              "Description": ""}
    chosen = {"color": "grey", "size": "xl"}
    assert get_reward(bought, goal, 35, chosen) == 1
    bought.update({"Attributes": [], "Description": "with natural ingredients"})
    assert isclose(get_reward(bought, goal, 35, chosen), 4 / 6)  # 1 attribute + 2 options + price, of 6
    goal["goal_options"] = {**goal["goal_options"], "amount": "pack of 12"}
    assert isclose(get_reward(bought, goal, 35, chosen), 4 / 7)
    assert isclose(get_reward(bought, goal, 45, chosen), 3 / 7)  # over the price limit
    total, info = get_reward(bought, goal, 35, chosen, verbose=True)
    assert isclose(total, 4 / 7) and set(info) == {"r_type", "r_att", "w_att", "query_match", "category_match",
                                                   "title_score", "r_option", "w_option", "r_price", "w_price"}


def test_normalize_color_and_sizes() -> None:
    assert [normalize_color(c) for c in ("midnight navy", "a rose gold", "plain", "")] == ["midnight", "gold", "plain", ""]
    prices = {(0, "Jet Black", "3 meter"): 1.0, (1, "plain", "XX-Large"): 2.0, (2, "steelgrey", "9.5"): 3.0,
              (3, "Sea", "odd"): 4.0, (4, "ivory", "12 ft long"): 5.0}
    colors, sizes = normalize_color_size(prices)
    assert colors == {"N.A.": "not_matched", "jet black": "black", "plain": "not_matched", "steelgrey": "grey",  # the first colour word in COLOR_SET order
                      "sea": "not_matched", "ivory": "ivory"}
    assert sizes == {"N.A.": "not_matched", "3 meter": "(.*)meter", "xx-large": "xx-large", "9.5": "numeric_size",
                     "odd": "not_matched", "12 ft long": "(.*)ft"}


def test_random_idx_is_a_weighted_bisect_draw() -> None:
    random.seed(11)
    weights = [random.randint(0, 10) for _ in range(40)]
    cum = [0, *np.cumsum(weights).tolist()]
    random.seed(11)
    draws = [random_idx(cum) for _ in range(500)]
    rng = random.Random(11)
    expected = []
    for _ in range(500):
        pos = rng.uniform(0, cum[-1])
        expected.append(min(next(i for i, c in enumerate(cum) if c > pos), len(cum) - 2))
    assert draws == expected and all(1 <= d <= len(cum) - 2 for d in draws)


def test_setup_logger_writes_bare_lines(tmp_path: Path) -> None:
    logger = setup_logger("SESSION42", tmp_path)
    assert logger.level == logging.INFO
    logger.info('{"page": "index"}')
    for handler in logger.handlers:
        handler.flush()
    assert (tmp_path / "SESSION42.jsonl").read_text() == '{"page": "index"}\n'
    with pytest.raises(ValueError, match="plain file name"):
        setup_logger("../escape", tmp_path)


def test_mturk_codes_are_sha1_prefixes() -> None:
    for sid in ("", "ABC", "fixed_12", "ßé"):
        assert generate_mturk_code(sid) == hashlib.sha1(sid.encode()).hexdigest()[:10].upper()
    assert generate_mturk_code("") == "DA39A3EE5E"
