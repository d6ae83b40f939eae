"""The WebAgentTextEnv shim against WebShop's API: agent code written for WebShop runs unchanged.

The two client styles below use only what WebShop's env and server expose (``reset(session=i)``,
``get_available_actions``, ``text_to_clickable``, ``step``, ``instruction_text``, ``env.server``'s
``goals``/``product_item_dict``/``product_prices``/``user_sessions``), on the bundled catalog and on
WebShop's real small set; the golden episodes check ``user_sessions`` and the instruction text
against what WebShop's own run recorded.
"""

from __future__ import annotations

import ast
import bisect
import json
import random
import re
import string
from collections import defaultdict

import numpy as np
import pytest
from selectolax.lexbor import LexborHTMLParser

from shopsim.adapters import WebAgentTextEnv, WebShopServer
from shopsim.adapters.webshop_env import WebAgentTextEnv as EnvModuleExport
from shopsim.errors import ConfigError, SessionError
from shopsim.simsite.search import FixedResults
from shopsim.simsite.shop import Shop, ShopConfig
from tests.conftest import GOLDEN, SMALL, needs_golden, read_jsonl

GOAL_KEYS = ["asin", "category", "query", "name", "product_category", "instruction_text", "attributes",
             "price_upper", "goal_options", "weight"]
PRODUCT_KEYS = {"asin", "name", "Title", "product_category", "query", "category", "full_description", "pricing",
                "Price", "customization_options", "options", "option_to_image", "BulletPoints", "Description",
                "Reviews", "Rating", "Attributes", "MainImage", "small_description", "images"}


# ---- a client written against WebShop's WebAgentTextEnv ----------------------------------------
def webshop_agent_episode(env, session: int) -> tuple[float, bool, int]:
    """Search the instruction, open the first result, pick the instruction's options, buy."""
    obs, info = env.reset(session=session)
    assert info is None and env.text_to_clickable is None
    goal = env.instruction_text.split("Instruction: ", 1)[1]
    assert env.get_available_actions()["has_search_bar"]
    obs, reward, done, info = env.step(f"search[{goal}]")
    links = [t for t in env.get_available_actions()["clickables"]
             if env.text_to_clickable[t].get("class") == ["product-link"]]
    if not links:
        return 0.0, False, 1
    obs, reward, done, info = env.step(f"click[{links[0]}]")
    steps = 2
    chosen: set[str] = set()
    for text in env.get_available_actions()["clickables"]:
        element = env.text_to_clickable[text]
        axis = element.get("name")
        if element.name == "input" and axis not in chosen and f"{axis}: {element['value']}" in goal:
            obs, reward, done, info = env.step(f"click[{text}]")
            assert element["value"] in obs and not done
            chosen.add(axis)
            steps += 1
    _, reward, done, info = env.step("click[buy now]")
    assert info is None
    return reward, done, steps + 1


# ---- a wrapper in the style of baseline_models/env.py, reading env.server ----------------------
class BaselineStyleEnv:
    """Valid actions, item names and a ``ban_buy`` rule from ``env.server``, as WebShop's WebEnv does."""

    def __init__(self, env) -> None:
        self.env = env
        self.asin2name = {k.lower(): v["Title"].lower() for k, v in env.server.product_item_dict.items()}
        self.session: dict | None = None

    def reset(self, idx: int) -> str:
        ob, _ = self.env.reset(idx)
        self.session = self.env.server.user_sessions[self.env.session]
        return ob

    def get_valid_actions(self) -> list[str]:
        info = self.env.get_available_actions()
        goal = self.session["goal"]
        if info["has_search_bar"]:
            return [f"search[{t}]" for t in [goal["query"]] + [f"{a} {goal['query']}" for a in goal["attributes"]]]
        valids = []
        for text in info["clickables"]:
            if text == "buy now":
                product = self.env.server.product_item_dict[self.session["asin"]]
                if len(self.session["options"]) != len(product["customization_options"]):
                    continue
            if text != "search":
                valids.append(f"click[{text}]")
        return valids or ["finish"]

    def score_inputs(self) -> tuple[dict, dict, float | None, dict]:
        """What WebEnv.score() hands to WebShop's get_reward."""
        product = self.env.server.product_item_dict[self.session["asin"]]
        return product, self.session["goal"], self.env.server.product_prices.get(self.session["asin"]), self.session["options"]


@pytest.mark.parametrize("shop_name", ["bundled_shop", "small_shop"])
@pytest.mark.slow
def test_webshop_agent_loop_runs_unchanged(shop_name: str, request: pytest.FixtureRequest) -> None:
    shop: Shop = request.getfixturevalue(shop_name)
    env = WebAgentTextEnv(observation_mode="text", server=shop)
    results = [webshop_agent_episode(env, i) for i in range(30)]
    assert all(done for _, done, _ in results)
    rewards = [r for r, _, _ in results]
    spacy = shop.nouns.source.startswith("spacy")  # the type reward's noun tagger, or its fallback
    mean = {"bundled_shop": 0.9516666666666667, "small_shop": 0.8311303511303513 if spacy else 0.677037037037037}
    assert sum(rewards) / len(rewards) == pytest.approx(mean[shop_name], abs=1e-12), rewards
    assert any(steps > 3 for _, _, steps in results), "some episode should have clicked an option"
    for i, (reward, _, _) in enumerate(results[-1:], start=29):
        s = env.server.user_sessions[str(i)]
        assert s["done"] and s["reward"] == reward and s["goal"] is env.server.goals[i]


def test_baseline_style_wrapper_reads_the_server(bundled_shop: Shop) -> None:
    env = BaselineStyleEnv(WebAgentTextEnv(observation_mode="text", server=bundled_shop, session_prefix="w0-"))
    idx = next(i for i, g in enumerate(bundled_shop.goals) if len(bundled_shop.products[g.asin].options) >= 2)
    env.reset(idx)
    assert env.env.session == f"w0-{idx}" and env.session["goal"]["asin"] == bundled_shop.goals[idx].asin
    assert env.get_valid_actions()[0] == f"search[{env.session['goal']['query']}]"
    env.env.step(env.get_valid_actions()[0])
    assert env.session["keywords"] == env.session["goal"]["query"].split(" ") and env.session["page"] == 1
    item = next(a for a in env.get_valid_actions() if a[6:-1] in env.asin2name)
    env.env.step(item)
    asin = item[6:-1].upper()
    assert env.session["asin"] == asin and env.session["asins"] == {asin} and env.session["actions"]["asin"] == 1
    assert "click[buy now]" not in env.get_valid_actions()  # ban_buy: options not all chosen
    product = env.env.server.product_item_dict[asin]
    for axis, values in product["options"].items():
        env.env.step(f"click[{values[-1]}]")
        assert env.session["options"][axis] == values[-1]
    if len(product["customization_options"]) == len(product["options"]):
        assert "click[buy now]" in env.get_valid_actions()
    prod, goal, price, options = env.score_inputs()
    assert prod["Title"] == bundled_shop.products[asin].title and price == bundled_shop.prices[asin]
    assert goal is env.env.server.goals[idx] and options == env.session["options"]
    _, reward, done, _ = env.env.step("click[buy now]")
    assert done and env.session["done"] and env.session["reward"] == reward
    assert set(env.session["verbose_info"]) >= {"r_type", "r_att", "w_att", "query_match", "category_match", "title_score"}
    assert env.session["actions"]["purchase"] == 1 and env.session["actions"]["search"] == 1


def test_user_sessions_follow_every_page(bundled_shop: Shop) -> None:
    env = WebAgentTextEnv(observation_mode="html", server=bundled_shop)
    env.reset(session=1)
    s = env.server.user_sessions["1"]
    assert (s["keywords"], s["page"], s["asin"], s["options"], s["done"]) == (None, None, None, {}, False)
    env.step("search[shirt]")
    env.step("click[next >]")
    assert s["page"] == 2 and s["keywords"] == ["shirt"] and s["actions"]["search"] == 2
    env.step("click[< prev]")
    assert s["page"] == 1 and s["actions"]["search"] == 3
    env.get_available_actions()
    products = env.server.product_item_dict
    link = next(t for t, e in env.text_to_clickable.items() if e.kind == "product" and products[e.text]["options"])
    env.step(f"click[{link}]")
    assert s["asin"] == link.upper() and s["asins"] == {link.upper()}
    env.get_available_actions()
    radio = next(e for e in env.text_to_clickable.values() if e.name == "input")
    env.step(f"click[{radio['value']}]")
    assert s["options"] == {radio.get("name"): radio["value"]} and s["actions"]["options"] == 1
    options = dict(s["options"])
    env.step("click[description]")
    env.step("click[< prev]")  # back to the item page: nothing recorded
    assert s["actions"]["Description"] == 1 and s["options"] == options and s["asin"] == link.upper()
    env.step("click[< prev]")  # item -> results: WebShop clears the item and options
    assert s["asin"] is None and s["options"] == {} and s["page"] == 1
    env.step("click[back to search]")
    assert s["keywords"] is None and s["asins"] == set() and dict(s["actions"]) == {}
    before = env.state["html"]
    assert env.step("click[nothing here]")[1:3] == (0.0, False) and env.state["html"] == before  # ignored
    assert env.step("click[search]")[1:3] == (0.0, False) and env.state["html"] == before


def test_text_to_clickable_like_webshop(bundled_shop: Shop) -> None:
    env = WebAgentTextEnv(observation_mode="text", server=bundled_shop)
    env.reset(session=0)
    assert env.text_to_clickable is None
    assert env.get_available_actions() == {"has_search_bar": True, "clickables": ["search"]}
    assert env.text_to_clickable["search"].get_text() == "Search" and env.text_to_clickable["search"].name == "button"
    env.step("search[dress]")
    assert list(env.text_to_clickable) == ["search"]  # step refreshes it from the page it acted on
    clickables = env.get_available_actions()["clickables"]
    assert list(env.text_to_clickable) == clickables
    link = env.text_to_clickable[clickables[-1]]
    assert link.name == "a" and link.get("class") == ["product-link"] and link.get_text().lower() == clickables[-1]
    assert env.text_to_clickable["back to search"].get("class")[0] == "btn"
    env.reset(session=0)
    assert env.text_to_clickable is None


def test_reset_sessions_and_instruction_override(bundled_shop: Shop) -> None:
    env = WebAgentTextEnv(observation_mode="html", server=bundled_shop)
    goal = bundled_shop.goals[3].instruction_text
    env.reset(session=3)
    assert env.instruction_text == env.get_instruction_text() == f"Instruction: {goal}"
    h4 = LexborHTMLParser(env.state["html"]).css_first("#instruction-text h4")
    assert h4 is not None and h4.text() == env.instruction_text  # the search page's own markup
    env.step("search[x]")
    assert env.get_instruction_text() == f"Instruction:{goal}"  # other pages: 'Instruction:<br>goal'
    env.reset(session=3, instruction_text="my own words")
    assert env.instruction_text == env.state["instruction_text"] == "my own words"
    assert env.get_instruction_text() == f"Instruction: {goal}" and goal in env.observation
    env.server.assigned_instruction_text = "Find me a hat"
    env.step("search[hat]")
    assert "Find me a hat" in env.observation and env.server.user_sessions["3"]["goal"]["instruction_text"] == "Find me a hat"
    env.server.assigned_instruction_text = None
    env.reset(session="fixed_5")
    assert env.server.user_sessions["fixed_5"]["goal"] is env.server.goals[5]
    env.reset(session="abc")
    first = env.server.user_sessions["abc"]["goal"]
    env.step(f"search[{first['query']}]")
    env.reset(session="abc")  # a known session keeps its goal; its navigation starts over
    assert env.server.user_sessions["abc"]["goal"] is first and env.server.user_sessions["abc"]["keywords"] is None
    with pytest.raises(ConfigError, match="does not exist"):
        env.reset(session=10**6)


def test_seeded_weighted_draws_are_webshops_random_idx(bundled_shop: Shop) -> None:
    env = WebAgentTextEnv(observation_mode="text", server=bundled_shop, seed=7)
    rng = random.Random(7)
    cum = env.server.cum_weights
    assert cum[0] == 0 and cum[1:] == pytest.approx(np.cumsum(env.server.weights).tolist())
    expected = []
    for _ in range(4):  # the constructor's reset, then three more: a session id, then WebShop's random_idx
        sid = "".join(rng.choices(string.ascii_lowercase, k=10))
        expected.append((sid, min(bisect.bisect(cum, rng.uniform(0, cum[-1])), len(cum) - 2)))
    got = [(env.session, env.server.goals.index(env.server.user_sessions[env.session]["goal"]))]
    for _ in range(3):
        env.reset()
        got.append((env.session, env.server.goals.index(env.server.user_sessions[env.session]["goal"])))
    assert got == expected
    other = WebAgentTextEnv(observation_mode="text", server=bundled_shop, seed=8)
    assert other.session != expected[0][0]


def test_filter_and_limit_goals_as_simserver(bundled_shop: Shop) -> None:
    keep = WebShopServer(bundled_shop, filter_goals=lambda i, g: i % 3 == 0 and g["price_upper"] < 1000000)
    assert keep.goals == [g for i, g in enumerate(WebShopServer(bundled_shop).goals) if i % 3 == 0 and g["price_upper"] < 1000000]
    assert keep.weights == [g["weight"] for g in keep.goals]
    limit = 7
    env = WebAgentTextEnv(observation_mode="text", server=bundled_shop, limit_goals=limit)
    # What SimServer does with the global random: seed(233), shuffle the goals, then draw.
    state = random.getstate()
    try:
        all_goals = WebShopServer(bundled_shop).goals
        random.seed(233)
        random.shuffle(list(all_goals))
        cum = [0, *np.cumsum([g["weight"] for g in all_goals]).tolist()]
        idxs: list[int] = []
        while len(idxs) < limit:
            idx = min(bisect.bisect(cum, random.uniform(0, cum[-1])), len(cum) - 2)
            idxs.append(idx) if idx not in idxs else None
    finally:
        random.setstate(state)
    assert env.server.goals == [all_goals[i] for i in idxs] and len(env.server.weights) == limit
    # Weights 0, 0, 1, 1: random_idx can only ever return the last goal, so WebShop would never finish.
    goals = [g.model_copy(update={"weight": w}) for g, w in zip(bundled_shop.goals, [0.0, 0.0, 1.0, 1.0], strict=False)]
    zeros = Shop(bundled_shop.product_list, bundled_shop.prices, goals, bundled_shop.search_engine)
    assert WebShopServer(zeros, limit_goals=1).goals == [WebShopServer(zeros).goals[3]]
    with pytest.raises(ConfigError, match="loop forever"):
        WebShopServer(zeros, limit_goals=2)


def test_image_features_and_modes(bundled_shop: Shop) -> None:
    env = WebAgentTextEnv(observation_mode="url", server=bundled_shop)
    with pytest.raises(ConfigError, match="get_image=1"):  # never a silent zero vector
        env.get_image()
    with pytest.raises(ConfigError, match=r"feat_conv\.pt is missing"):
        WebAgentTextEnv(observation_mode="image", server=bundled_shop)
    with pytest.raises(ConfigError, match="observation_mode"):
        WebAgentTextEnv(observation_mode="pixels", server=bundled_shop)
    with pytest.raises(ConfigError, match=r"feat_conv\.pt is missing"):
        WebAgentTextEnv(observation_mode="text", server=bundled_shop, get_image=1)
    assert EnvModuleExport is WebAgentTextEnv
    shared = WebShopServer(bundled_shop)
    a = WebAgentTextEnv(server=shared, session_prefix="a")
    b = WebAgentTextEnv(server=shared, session_prefix="b")
    assert a.server is b.server and {a.session, b.session} <= set(shared.user_sessions)


def test_server_shapes_on_the_small_set(small_shop: Shop) -> None:
    server = WebAgentTextEnv(observation_mode="text", server=small_shop).server
    assert all(list(g) == GOAL_KEYS for g in server.goals)
    if (GOLDEN / "goals_synthetic_seed0.jsonl").exists():
        gold = read_jsonl(GOLDEN / "goals_synthetic_seed0.jsonl")
        for ours, theirs in zip(server.goals, gold, strict=True):
            theirs.pop("index")
            assert {**ours, "weight": 0} == {**theirs, "weight": 0} and ours["weight"] == pytest.approx(theirs["weight"], abs=1e-12)
        prices = json.loads((GOLDEN / "product_prices_seed0.json").read_text())
        assert {a: server.product_prices[a] for a in prices} == prices
    raw = {p["asin"]: p for p in json.loads((SMALL / "items_shuffle_1000.json").read_text())}
    assert server.product_item_dict is server.product_item_dict  # built once
    for asin, p in server.product_item_dict.items():
        assert set(p) >= PRODUCT_KEYS and p["asin"] == asin and p["Title"] == p["name"] == raw[asin]["name"]
        assert p["query"] == raw[asin]["query"].lower().strip() and p["MainImage"] == raw[asin]["images"][0]
        # as many axes as WebShop's raw dict (baseline_models' ban_buy counts them), null ones included
        listed = raw[asin]["customization_options"] or {}
        assert len(p["customization_options"] or {}) == len(listed)
        axes = {k.lower(): len(v) for k, v in listed.items() if v is not None}
        assert {k: len(v) for k, v in (p["customization_options"] or {}).items() if v is not None} == axes
        assert p["Price"].startswith("$") and p["pricing"] and "instruction_text" in p


def _recorded_rankings(episodes: list[dict]) -> dict[str, list[str]]:
    """The rankings WebShop's episodes saw, padded with other ASINs to each query's total."""
    seen: dict[str, dict[int, list[str]]] = defaultdict(dict)
    totals: dict[str, int] = {}
    for step in (s for ep in episodes for s in ep["steps"] if s.get("result_asins") is not None):
        parts = step["url"].split("/")
        seen[parts[5].replace("+", " ")][int(parts[6])] = step["result_asins"]
        totals[parts[5].replace("+", " ")] = int(re.search(r"Total results: (\d+)", step["observation"])[1])
    spare = [g["asin"] for g in read_jsonl(GOLDEN / "goals_synthetic_seed0.jsonl")]
    return {q: [a for n in range(1, 6) for a in pages.get(n, spare[n * 10 : n * 10 + 10])][: totals[q]]
            for q, pages in seen.items()}


def _session_in_url(url: str, sid: str) -> dict:
    """What WebShop's ``user_sessions`` held, read back from the URL its run recorded."""
    rest = url.split("127.0.0.1:3000/", 1)[1]
    if rest == sid:
        return {"keywords": None, "page": None, "asin": None, "options": {}}
    kind, rest = rest.split("/", 1)
    rest = rest[len(sid) + 1 :]
    if kind == "search_results":
        keywords, page = rest.rsplit("/", 1)
        return {"keywords": keywords, "page": int(page), "asin": None, "options": {}}
    asin, rest = rest.split("/", 1)
    if kind == "done":
        return {"asin": asin, "options": ast.literal_eval(rest), "done": True}
    if kind == "item_page":
        keywords, page, options = re.fullmatch(r"(.*)/(\d+)/(\{.*\})", rest, re.S).groups()
        return {"keywords": keywords, "page": int(page), "asin": asin, "options": json.loads(options)}
    keywords, page, _, options = re.fullmatch(r"(.*)/(\d+)/(\w+)/(\{.*\})", rest, re.S).groups()
    return {"keywords": keywords, "page": int(page), "asin": asin, "options": ast.literal_eval(options)}


@needs_golden
@pytest.mark.slow
def test_golden_episodes_through_the_shim() -> None:
    episodes = read_jsonl(GOLDEN / "episodes_seed0.jsonl")
    shop = Shop.from_config(
        ShopConfig(data_dir=SMALL, num_products=1000, goals_file=GOLDEN / "goals_synthetic_seed0.jsonl",
                   prices_file=GOLDEN / "product_prices_seed0.json"),
        search=FixedResults(_recorded_rankings(episodes)),
    )
    env = WebAgentTextEnv(observation_mode="text", server=shop)
    checked = purchases = 0
    for ep in episodes:
        sid = str(ep["goal_index"])
        for step in ep["steps"]:
            if step["action"] == "reset":
                obs, _ = env.reset(session=ep["goal_index"])
                reward, done = 0.0, False
            else:
                obs, reward, done, _ = env.step(step["action"])
            where = (sid, step["action"])
            assert obs == step["observation"] and done == step["done"], where
            assert env.get_available_actions() == step["available_actions"], where
            session = env.server.user_sessions[sid]
            recorded = _session_in_url(step["url"], sid)
            view = {k: session[k] for k in recorded}
            if isinstance(view.get("keywords"), list):
                view["keywords"] = "+".join(view["keywords"])
            assert view == recorded, where
            # text_rich prints each text node on its own line: the h4's nodes are 'Instruction:' (or
            # 'Instruction: ' on the search page) and the goal; 'You have clicked ...' lines may come first.
            lines = step["observation_rich"].split("\n")
            at = next((k for k, line in enumerate(lines) if line.startswith("Instruction:")), None)
            if step["url"].split("/")[3] == "done":
                assert at is None and reward == session["reward"] and session["verbose_info"]
                with pytest.raises(SessionError):
                    env.get_instruction_text()
                purchases += 1
                continue
            assert env.get_instruction_text() == lines[at] + lines[at + 1], where
            if step["url"] == f"{env.base_url}/{sid}":  # the search page
                assert env.get_instruction_text() == f"Instruction: {ep['goal']['instruction_text']}"
            else:
                assert env.get_instruction_text() == f"Instruction:{ep['goal']['instruction_text']}"
            if step["action"] == "reset":
                assert env.instruction_text == lines[at] + lines[at + 1]
            checked += 1
    assert checked + purchases == 972 and purchases == 100  # every golden episode ends in a purchase


def test_image_features_from_webshops_files(bundled_shop: Shop, tmp_path) -> None:
    torch = pytest.importorskip("torch", reason="reading WebShop's .pt feature files needs torch (pip install -e .[images])")
    urls = [p.main_image for p in bundled_shop.product_list[:50]]
    feats = torch.arange(50 * 512, dtype=torch.float32).reshape(50, 512)
    torch.save(feats, tmp_path / "feat_conv.pt")
    torch.save(urls, tmp_path / "feat_ids.pt")
    env = WebAgentTextEnv(observation_mode="text", server=bundled_shop, get_image=1,
                          feat_conv=tmp_path / "feat_conv.pt", feat_ids=tmp_path / "feat_ids.pt")
    env.reset(session=0)
    assert torch.equal(env.get_image(), torch.zeros(512))  # no product image on the search page (as WebShop)
    env.step(f"search[{bundled_shop.product_list[0].title}]")
    link = next(t for t in env.get_available_actions()["clickables"] if t == bundled_shop.product_list[0].asin.lower())
    env.step(f"click[{link}]")
    assert torch.equal(env.get_image(), feats[0])
