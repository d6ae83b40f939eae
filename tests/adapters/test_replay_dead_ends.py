"""Replay without dead ends: ways out of unrecorded and blocked pages, no purchase without a product,
options chosen on the page when their variant was not recorded, and explicit goal → bundle pairing
in ``shopsim eval --adapter replay`` (episodes name their bundle; bad mappings exit 2 in one line).

Bundles are the sim recordings in ``fixtures/bundles/`` and bundles assembled here from their pages
(plus an Amazon captcha page); browser checks run real headless Chromium.
"""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from _bundles import AMAZON_RESULTS, FIRST_RESULT, SEARCH_URL, needs_real

from shopsim.adapters import ShopEnv
from shopsim.adapters.browser_replay import BrowserReplaySource
from shopsim.adapters.bundle import Bundle, BundleWriter
from shopsim.adapters.replay import ReplaySource
from shopsim.agents.episode import run_episode
from shopsim.agents.rule import RuleAgent
from shopsim.agents.transfer.bundle_episode import make_scorer, run_transfer
from shopsim.cli import main
from shopsim.render import render_simple
from shopsim.simsite.models import Goal
from shopsim.simsite.shop import Shop

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "bundles"
RULE3 = FIXTURES / "sim-rule-goal3"
PRODUCT = "b02h3wzj6r"  # the first result the rule agent bought when sim-rule-goal3 was recorded
CAPTCHA = (b"<html><head><title>Amazon.com</title></head><body><h4>Enter the characters you see below</h4>"
           b"<p>Sorry, we just need to make sure you're not a robot.</p>"
           b'<form action="/errors/validateCaptcha"><input name="field-keywords"></form></body></html>')


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any socket connection: replay must never fetch anything."""

    def refuse(self: socket.socket, *args: object, **kw: object) -> None:
        raise AssertionError(f"replay tried to open a network connection: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)


def _source(shop: Shop, goal: int = 3, bundle: Path = RULE3) -> ReplaySource:
    g = shop.goal(goal)
    return ReplaySource(bundle, instruction=g.instruction_text, scorer=make_scorer(g, shop.nouns))


def _to_item(src: ReplaySource) -> None:
    src.reset()
    src.step(f"search[{src.instruction}]")
    item, *_ = src.step(f"click[{PRODUCT}]")
    assert item.page_type == "item" and item.product is not None


def _copy_pages(out: Path, last_page: bytes | None = None, site: str = "simsite") -> Path:
    """sim-rule-goal3's search and results pages; its item URL then loads ``last_page`` (default: the real one)."""
    rec = Bundle.load(RULE3)
    w = BundleWriter(out, site=site, start_url=rec.manifest.start_url, instruction=rec.manifest.instruction)
    for step in rec.load_steps():
        data = rec.pages[step.index] if last_page is None or step.index < 2 else last_page
        w.add_page(step.action, step.url or "", data)
    return w.finish()


# ---- ways out of a page that was not recorded ---------------------------------------------------------
def test_not_recorded_page_offers_back_and_start(bundled_shop: Shop, no_network: None) -> None:
    src = _source(bundled_shop)
    _to_item(src)
    item = src.current
    assert item is not None
    state, reward, done, truncated = src.step("click[description]")  # the sub-page was never recorded
    assert state.page_type == "unknown" and state.feedback.code == "not_recorded"
    assert state.valid_actions()["clickables"] == ["back to search", "< prev"]
    assert "Back to Search [SEP] < Prev" in render_simple(state) and (reward, done, truncated) == (0.0, False, False)
    for action in (f"click[{PRODUCT}]", "click[smoked]", "click[features]"):  # the old page's buttons are gone
        refused, *_ = src.step(action)
        assert refused.feedback.code == "not_available" and refused.url == state.url
    back, *_ = src.step("click[< prev]")
    assert back == item  # the previous page in the replay history, as it was shown
    src.step("click[description]")
    start, *_ = src.step("click[back to search]")
    assert start.page_type == "search" and start.url == Bundle.load(RULE3).manifest.start_url


def test_buy_now_refused_without_a_product(bundled_shop: Shop, no_network: None) -> None:
    """The bug: buy now on a not_recorded page bought the last product page (and scored 0.5)."""
    src = _source(bundled_shop)
    _to_item(src)
    lost, *_ = src.step("click[reviews]")
    for _ in range(2):
        state, reward, done, truncated = src.step("click[buy now]")
        assert (state.page_type, reward, done, truncated, state.purchase) == ("unknown", 0.0, False, False, None)
        assert state.feedback.code == "not_available" and "not recorded" in state.feedback.message
        assert state.url == lost.url and state.clickables == lost.clickables
    src.step("click[back to search]")
    results, *_ = src.step(f"search[{src.instruction}]")
    state, reward, done, _ = src.step("click[buy now]")  # a results page shows no product either
    assert state.feedback.code == "not_available" and not done and state.url == results.url
    src.step(f"click[{PRODUCT}]")
    state, reward, done, _ = src.step("click[buy now]")
    assert done and reward > 0 and state.purchase is not None and state.purchase.id == PRODUCT.upper()


def test_buy_now_refused_for_a_product_without_id(tmp_path: Path, bundled_shop: Shop, no_network: None) -> None:
    page = Bundle.load(RULE3).pages[2]
    assert page.count(b'"id":"B02H3WZJ6R"') == 1
    root = _copy_pages(tmp_path / "b", page.replace(b'"id":"B02H3WZJ6R"', b'"id":"unknown"'))
    src = _source(bundled_shop, bundle=root)
    _to_item(src)
    state, reward, done, _ = src.step("click[buy now]")
    assert state.page_type == "item" and (reward, done, state.purchase) == (0.0, False, None)
    assert state.feedback.code == "not_available" and "no known id" in state.feedback.message


def test_rule_agent_is_never_stuck(bundled_shop: Shop, no_network: None) -> None:
    """A goal the bundle was not recorded for: every step now does something (was 14 x not_available)."""
    result = run_transfer(RULE3, bundled_shop.goal(5), RuleAgent(), nouns=bundled_shop.nouns)
    assert result.steps == 15 and not result.purchased and "not_available" not in result.feedback
    assert set(result.feedback) == {"not_recorded", "ok"}


# ---- dead ends that were recorded (an unreadable page, a captcha) ------------------------------------
def test_recorded_unknown_page_gets_the_ways_out(tmp_path: Path, bundled_shop: Shop, no_network: None) -> None:
    root = _copy_pages(tmp_path / "b", b"<html><body><h1>Service unavailable</h1></body></html>")
    src = _source(bundled_shop, bundle=root)
    src.reset()
    results, *_ = src.step(f"search[{src.instruction}]")
    broken, *_ = src.step(f"click[{PRODUCT}]")
    assert broken.page_type == "unknown" and broken.feedback.code == "ok"
    assert broken.valid_actions()["clickables"] == ["back to search", "< prev"]
    state, reward, done, _ = src.step("click[buy now]")
    assert state.feedback.code == "not_available" and (reward, done) == (0.0, False)
    back, *_ = src.step("click[< prev]")
    assert back == results
    again, *_ = src.step(f"click[{PRODUCT}]")
    assert again.page_type == "unknown"
    start, *_ = src.step("click[back to search]")
    assert start.page_type == "search"


def test_blocked_start_page(tmp_path: Path, no_network: None) -> None:
    w = BundleWriter(tmp_path / "b", site="amazon", start_url="https://www.amazon.com/")
    w.add_page(None, "https://www.amazon.com/", CAPTCHA)
    src = ReplaySource(w.finish())
    state = src.reset()
    assert state.page_type == "blocked" and state.valid_actions()["clickables"] == ["back to search", "< prev"]
    state, *_ = src.step("click[< prev]")
    assert state.page_type == "blocked" and state.feedback.code == "not_available"
    assert "no previous page" in state.feedback.message
    state, *_ = src.step("click[buy now]")
    assert state.feedback.code == "not_available" and not src.done
    state, *_ = src.step("click[back to search]")
    assert state.page_type == "blocked" and state.feedback.code == "ok"  # the start page is the captcha


@needs_real
def test_blocked_item_page_on_amazon(tmp_path: Path, no_network: None) -> None:
    w = BundleWriter(tmp_path / "b", site="amazon", start_url=SEARCH_URL)
    w.add_page(None, SEARCH_URL, AMAZON_RESULTS.read_bytes())
    w.add_page(f"click[{FIRST_RESULT}]", f"https://www.amazon.com/dp/{FIRST_RESULT.upper()}", CAPTCHA)
    src = ReplaySource(w.finish(), instruction="i want a bed frame")
    results = src.reset()
    blocked, *_ = src.step(f"click[{FIRST_RESULT}]")
    assert blocked.page_type == "blocked" and blocked.reason and "captcha" in blocked.reason
    assert blocked.valid_actions()["clickables"] == ["back to search", "< prev"]
    assert src.step("click[buy now]")[0].feedback.code == "not_available" and not src.done
    assert src.step("click[< prev]")[0] == results
    src.step(f"click[{FIRST_RESULT}]")
    assert src.step("click[back to search]")[0].page_type == "results"  # Amazon's start page is a results page
    # on a recorded page too, 'back to search' whose page (amazon.com/) was not recorded is the start page
    start, *_ = src.step("click[back to search]")
    assert start.page_type == "results" and start.results == results.results
    assert start.feedback.code == "ok" and "https://www.amazon.com/ was not recorded" in start.feedback.message


# ---- options whose variant page was not recorded -----------------------------------------------------
OPTION_PLAN = ["click[smoked]", "click[2 pound (pack of 2)]", "click[buy now]"]


@pytest.mark.slow
def test_unrecorded_variant_is_selected_on_the_page(bundled_shop: Shop, no_network: None) -> None:
    src = _source(bundled_shop)
    _to_item(src)
    state, *_ = src.step("click[smoked]")
    assert state.page_type == "item" and state.feedback.code == "ok"
    assert "was not recorded" in state.feedback.message and "selected on this page" in state.feedback.message
    assert state.product is not None and state.product.selected["flavor name"] == "smoked"
    assert [c.arg for c in state.clickables if c.clicked] == ["smoked"]
    state, *_ = src.step("click[2 pound (pack of 2)]")
    assert [c.arg for c in state.clickables if c.clicked] == ["smoked", "2 pound (pack of 2)"]
    replayed, reward, done, _ = src.step("click[buy now]")
    assert done and replayed.purchase is not None
    assert replayed.purchase.options == {"flavor name": "smoked", "size": "2 pound (pack of 2)"}
    # the live sim scores the same actions the same way: buying used the selection
    env = ShopEnv(bundled_shop)
    env.reset(options={"goal": 3})
    for action in [f"search[{src.instruction}]", f"click[{PRODUCT}]", *OPTION_PLAN]:
        _, live, *_ = env.step(action)
    assert reward == live == 1.0


@pytest.mark.browser
@pytest.mark.slow
def test_browser_replay_has_the_same_ways_out(bundled_shop: Shop, chromium_path: str | None,
                                              browser_shutdown: None) -> None:
    goal = bundled_shop.goal(3)
    plan = [f"search[{goal.instruction_text}]", f"click[{PRODUCT}]", "click[description]", "click[buy now]",
            "click[< prev]", "click[features]", "click[back to search]", f"search[{goal.instruction_text}]",
            f"click[{PRODUCT}]", *OPTION_PLAN]
    offline = _source(bundled_shop)
    expected = [offline.reset()] + [offline.step(a)[0] for a in plan]
    src = BrowserReplaySource(RULE3, instruction=goal.instruction_text, scorer=make_scorer(goal, bundled_shop.nouns),
                              executable_path=chromium_path)
    try:
        got = [src.reset()] + [src.step(a)[0] for a in plan]
        assert [render_simple(s) for s in got] == [render_simple(s) for s in expected]
        assert [s.feedback for s in got] == [s.feedback for s in expected]
        assert got[-1].purchase == expected[-1].purchase and got[-1].reward == expected[-1].reward == 1.0
        assert {outcome for _, outcome in src.requests} <= {"fulfilled", "aborted"}
    finally:
        src.close()


# ---- eval --adapter replay: explicit goal → bundle pairing -------------------------------------------
def _goal_file(path: Path, goals: list[Goal]) -> Path:
    path.write_text("".join(json.dumps(g.model_dump()) + "\n" for g in goals), encoding="utf-8")
    return path


@pytest.fixture
def replay_setup(tmp_path: Path, bundled_shop: Shop) -> dict[str, Any]:
    """Two sim bundles in one folder; goals 3 and 5 and a third goal for goal 3's product."""
    folder = tmp_path / "bundles"
    shutil.copytree(RULE3, folder / "a-rule")
    shutil.copytree(FIXTURES / "sim-options-subpage", folder / "b-options")
    twin = next(i for i, g in enumerate(bundled_shop.goals) if i != 3 and g.asin == bundled_shop.goal(3).asin)
    goals = [bundled_shop.goal(3), bundled_shop.goal(5), bundled_shop.goal(twin)]
    return {"folder": folder, "goals": goals, "goal_file": _goal_file(tmp_path / "goals.jsonl", goals),
            "tmp": tmp_path}


def _eval(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["eval", "--adapter", "replay", "--json", *args]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def _eval_error(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["eval", "--adapter", "replay", *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("shopsim: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _ref(path: Path) -> dict[str, str]:
    m = Bundle.load(path).manifest
    return {"path": str(path), "site": m.site, "start_url": m.start_url}


def test_several_bundles_without_a_mapping_are_an_error(replay_setup: dict[str, Any],
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    s = replay_setup
    err = _eval_error(capsys, "--bundle", str(s["folder"]), "--goal-file", str(s["goal_file"]), "--goals", "0",
                      "--out", str(s["tmp"] / "run"))
    assert "holds 2 bundles" in err and "--bundle-map" in err and "shopsim record --goal" in err
    assert not (s["tmp"] / "run").exists()


@pytest.mark.parametrize("form", ["json", "jsonl", "list"])
@pytest.mark.slow
def test_bundle_map_pairs_goals_and_every_record_names_its_bundle(
        replay_setup: dict[str, Any], capsys: pytest.CaptureFixture[str], form: str) -> None:
    s, tmp = replay_setup, replay_setup["tmp"]
    asin = s["goals"][0].asin
    mapping = tmp / f"map.{'json' if form != 'jsonl' else 'jsonl'}"
    entries = [{"goal_index": 1, "bundle": "b-options"}, {"goal_id": asin.lower(), "bundle": "a-rule"}]
    if form == "json":
        mapping.write_text(json.dumps({"1": "b-options", asin: "a-rule"}))
    elif form == "jsonl":
        mapping.write_text("".join(json.dumps(e) + "\n" for e in entries))
    else:
        mapping.write_text(json.dumps(entries, indent=2))
    run = tmp / "run"
    out = _eval(capsys, "--bundle", str(s["folder"]), "--bundle-map", str(mapping), "--goal-file",
                str(s["goal_file"]), "--goals", "0:3", "--out", str(run))
    a, b = _ref(s["folder"] / "a-rule"), _ref(s["folder"] / "b-options")
    episodes = _read(run / "episodes.jsonl")
    assert [e["bundle"] for e in episodes] == [a, b, a]  # goals 0 and 2 by goal id (asin), goal 1 by index
    assert episodes[0]["done"] and episodes[0]["reward"] > 0
    traces = _read(run / "traces.jsonl")
    assert {json.dumps(t["bundle"]) for t in traces if t["goal_index"] == 1} == {json.dumps(b)}
    assert all(t["bundle"] == (b if t["goal_index"] == 1 else a) for t in traces)
    assert out["bundles"] == [{**a, "goals": [0, 2]}, {**b, "goals": [1]}]
    assert json.loads((run / "summary.json").read_text())["bundles"] == out["bundles"]
    report = (run / "report.html").read_text()
    assert "<th>bundle</th>" in report and a["path"] in report and b["start_url"] in report


@pytest.mark.slow
def test_bundles_that_carry_their_goal_pair_themselves(replay_setup: dict[str, Any], bundled_shop: Shop,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    s, tmp = replay_setup, replay_setup["tmp"]
    for name, goal in (("a-rule", s["goals"][0]), ("b-options", s["goals"][1])):
        manifest = s["folder"] / name / "manifest.json"
        doc = json.loads(manifest.read_text())
        manifest.write_text(json.dumps({**doc, "goal": goal.model_dump()}))
    # no goal file: the goals are the bundles' own, in folder order
    out = _eval(capsys, "--bundle", str(s["folder"]), "--goals", "0:2", "--out", str(tmp / "own"))
    episodes = _read(tmp / "own" / "episodes.jsonl")
    assert [e["bundle"]["path"] for e in episodes] == [str(s["folder"] / "a-rule"), str(s["folder"] / "b-options")]
    assert out["episodes"] == 2
    live = run_episode(ShopEnv(bundled_shop), RuleAgent(), 3)
    assert episodes[0]["reward"] == live.reward and episodes[0]["actions"] == live.actions
    # a goal file: each goal goes to the bundle that carries it (goal 1 is goal 5, carried by b-options)
    _eval(capsys, "--bundle", str(s["folder"]), "--goal-file", str(s["goal_file"]), "--goals", "1,0",
          "--out", str(tmp / "file"))
    assert [e["bundle"]["path"] for e in _read(tmp / "file" / "episodes.jsonl")] == [
        str(s["folder"] / "a-rule"), str(s["folder"] / "b-options")]
    # goal 2 (another goal for goal 3's product) is carried by no bundle
    err = _eval_error(capsys, "--bundle", str(s["folder"]), "--goal-file", str(s["goal_file"]), "--goals", "2",
                      "--out", str(tmp / "none"))
    assert "goal 2" in err and "has no bundle" in err


def test_a_single_bundle_serves_every_goal(replay_setup: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    s, tmp = replay_setup, replay_setup["tmp"]
    _eval(capsys, "--bundle", str(RULE3), "--goal-file", str(s["goal_file"]), "--goals", "0:3", "--out", str(tmp / "r"))
    assert [e["bundle"] for e in _read(tmp / "r" / "episodes.jsonl")] == [_ref(RULE3)] * 3


def test_resume_keeps_the_pairing(replay_setup: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    s, tmp = replay_setup, replay_setup["tmp"]
    mapping = tmp / "map.json"
    mapping.write_text(json.dumps({"0": "a-rule", "1": "b-options", "2": "a-rule"}))
    common = ["--bundle", str(s["folder"]), "--bundle-map", str(mapping), "--goal-file", str(s["goal_file"])]
    _eval(capsys, *common, "--goals", "0:3", "--out", str(tmp / "fresh"))
    _eval(capsys, *common, "--goals", "1", "--out", str(tmp / "resumed"))
    out = _eval(capsys, *common, "--goals", "0:3", "--out", str(tmp / "resumed"))
    assert out["resume"]["episodes_done"] == 1 and out["episodes_run_now"] == 2
    for name in ("episodes.jsonl", "traces.jsonl"):
        assert (tmp / "resumed" / name).read_bytes() == (tmp / "fresh" / name).read_bytes()
    # the same run folder with goal 1 paired to another bundle: refused, nothing rerun or dropped
    mapping.write_text(json.dumps({"0": "a-rule", "1": "a-rule", "2": "a-rule"}))
    before = (tmp / "resumed" / "episodes.jsonl").read_bytes()
    err = _eval_error(capsys, *common, "--goals", "0:3", "--out", str(tmp / "resumed"))
    assert "goal 1 was replayed on bundle" in err and "b-options" in err
    assert (tmp / "resumed" / "episodes.jsonl").read_bytes() == before


def test_bad_mappings_exit_2_with_one_line(replay_setup: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    s, tmp = replay_setup, replay_setup["tmp"]
    mapping = tmp / "map.jsonl"
    common = ["--bundle", str(s["folder"]), "--goal-file", str(s["goal_file"]), "--goals", "0:3",
              "--out", str(tmp / "run")]

    def error(text: str | None, *extra: str) -> str:
        if text is not None:
            mapping.write_text(text)
        return _eval_error(capsys, "--bundle-map", str(mapping), *extra, *common)

    assert "'nope'" in error(json.dumps({"0": "nope"})) and "is not a bundle folder" in error(None)
    assert "line 2: not valid JSON" in error('{"goal_index": 0, "bundle": "a-rule"}\n{"goal_index": 1,\n')
    assert "unknown goal id 'B000000000'" in error(json.dumps({"B000000000": "a-rule"}))
    assert "goal index 7 out of range" in error(json.dumps({"7": "a-rule"}))
    assert "mapped twice" in error('{"goal_index": 0, "bundle": "a-rule"}\n{"goal_index": 0, "bundle": "b-options"}\n')
    assert "exactly one of goal_index and goal_id" in error(json.dumps([{"goal_index": 0, "goal_id": "x",
                                                                         "bundle": "a-rule"}]))
    assert "entry 0" in error(json.dumps(["a-rule"])) and "got str" in error(json.dumps("a-rule"))
    assert "goal_index: Input should be a valid integer" in error('{"goal_index": "0", "bundle": "a-rule"}\n')
    assert "no entries" in error("\n\n") and "no entries" in error("{}")
    assert "goal 2" in error(json.dumps({"0": "a-rule", "1": "b-options"}))  # goal 2 is left unpaired
    (tmp / "folder-map").mkdir()
    assert "not a regular file" in _eval_error(capsys, "--bundle-map", str(tmp / "folder-map"), *common)
    assert "is one bundle" in _eval_error(capsys, "--bundle-map", str(mapping), "--bundle", str(RULE3),
                                          "--goal-file", str(s["goal_file"]), "--out", str(tmp / "run"))
    assert "needs --goal-file" in _eval_error(capsys, "--bundle-map", str(mapping), "--out", str(tmp / "run"))
    assert "no bundle" in _eval_error(capsys, "--bundle", str(tmp), "--goal-file", str(s["goal_file"]),
                                      "--out", str(tmp / "run"))
    assert "carries no goal" in _eval_error(capsys, "--bundle", str(RULE3), "--out", str(tmp / "run"))
    assert not (tmp / "run").exists()
