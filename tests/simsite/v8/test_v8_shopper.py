"""The multi-turn shopper on the bundled v8 catalog: its answers, ``ask`` in-process and over HTTP,
step counting, the private goal, the LLM shopper against the local fake, and what asking is worth."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from _fake_llm import FakeLLM

from shopsim.simsite.server import ServerThread

ZH_TASK, EN_TASK = 1865, 1866  # bundled persona tasks whose simple request hides their options


@pytest.fixture(scope="module")
def shop():
    from shopsim.simsite.v8.shop import V8Shop

    return V8Shop.load()


@pytest.fixture(scope="module")
def server(shop):
    from shopsim.simsite.v8.service import create_v8_app

    with ServerThread(create_v8_app(shop, slots=4)) as srv:
        yield srv


def _shopper(shop: Any, task_id: int) -> Any:
    from shopsim.simsite.v8.shopper import RuleShopper

    task = shop.task_by_id(task_id)
    return RuleShopper(task, shop.product(task.asin).title)


# ---- the rule-based shopper's answers ---------------------------------------------------------------
@pytest.mark.parametrize(("task_id", "question", "must", "must_not"), [
    (ZH_TASK, "颜色选哪个？", ["颜色要樱花粉"], ["标准款", "70"]),
    (ZH_TASK, "容量规格要哪种？", ["容量规格要标准款"], ["樱花粉"]),
    (ZH_TASK, "预算是多少钱？", ["预算最多70元"], ["樱花粉"]),
    (ZH_TASK, "有什么功能要求？", ["带茶隔", "长效保温"], ["樱花粉"]),
    (ZH_TASK, "颜色和预算呢？", ["樱花粉", "70元"], []),
    (ZH_TASK, "尺码选哪个？", ["尺码没有特别要求"], ["樱花粉"]),
    (ZH_TASK, "品牌有偏好吗？", ["乐速", "不是必须"], []),
    (ZH_TASK, "你好", ["功能", "预算"], ["樱花粉", "70"]),
    (EN_TASK, "Which capacity option do you want?", ["For Capacity Option, I'd like Daypack."], ["65"]),
    (EN_TASK, "What is your budget?", ["at most 65 dollars"], ["Daypack"]),
    (EN_TASK, "Which features do you need?", ["ventilated", "nylon"], ["Daypack"]),
    (EN_TASK, "Which color do you want?", ["No preference on color"], ["Daypack"]),
    (EN_TASK, "Which product id should I buy?", ["exact product"], []),
    (EN_TASK, "hello", ["features", "budget"], ["Daypack", "65"]),
])
def test_rule_shopper_answers_what_is_asked_in_the_tasks_language(shop, task_id, question, must, must_not):
    answer = _shopper(shop, task_id).answer(question)
    for text in must:
        assert text in answer, (question, answer)
    for text in must_not:
        assert text not in answer, (question, answer)
    has_cjk = any("\u4e00" <= c <= "\u9fff" for c in answer)
    assert has_cjk == (task_id == ZH_TASK), answer


def test_rule_shopper_never_says_the_target_asin_or_title(shop):
    from shopsim.simsite.v8.shopper_tasks import hidden_constraint_tasks

    for task_id in hidden_constraint_tasks(shop, 40, seed=1):
        task = shop.task_by_id(task_id)
        title = shop.product(task.asin).title
        shopper = _shopper(shop, task_id)
        probes = [f"Is it {task.asin}?", f"是{task.asin}吗？", f"Which option of {title}?", "把商品标题和ASIN发给我",
                  "What is the exact product title and link?", "哪一款？规格、预算、功能都说一下"]
        for q in probes:
            answer = shopper.answer(q)
            assert task.asin not in answer and title not in answer, (task_id, q, answer)


def test_private_goal_holds_the_target_and_is_off_by_default(shop, server):
    from shopsim.simsite.v8.shopper import private_goal

    task = shop.task_by_id(ZH_TASK)
    goal = private_goal(task)
    assert (goal.target_asin, goal.budget, goal.budget_source) == (task.asin, 70.0, "price_upper")
    assert [(o.axis, o.value) for o in goal.options] == task.options and goal.attributes == task.attributes
    base = server.base_url
    plain = httpx.post(f"{base}/api/sessions", json={"task_id": ZH_TASK, "task_mode": "persona"}).json()
    assert "private_goal" not in plain and "private_task_instruction" not in plain
    assert task.asin not in json.dumps(plain, ensure_ascii=False)
    private = httpx.post(f"{base}/api/sessions", json={"task_id": ZH_TASK, "include_private": True}).json()
    assert private["private_goal"] == goal.model_dump(mode="json")
    for lease in (plain["lease_id"], private["lease_id"]):
        assert httpx.delete(f"{base}/api/sessions/{lease}").status_code == 204

    from shopsim.adapters.env import ShopEnv

    env = ShopEnv(shop)
    _, info = env.reset(options={"task_id": ZH_TASK})
    assert "private_goal" not in info
    _, info = env.reset(options={"task_id": ZH_TASK, "include_private": True})
    assert info["private_goal"]["target_asin"] == task.asin


# ---- ask in a session --------------------------------------------------------------------------------
def test_ask_over_http_answers_counts_and_keeps_the_dialogue(server):
    base = server.base_url
    reset = httpx.post(f"{base}/api/sessions", json={"task_id": ZH_TASK, "task_mode": "persona",
                                                     "interaction_mode": "multi_turn"}).json()
    url = f"{base}/api/sessions/{reset['lease_id']}"
    assert reset["max_actions"] == 40 and reset["dialogue"] == [] and reset["shopper_reply"] is None
    first = httpx.post(f"{url}/step", json={"action": "ask[颜色选哪个？]"}).json()
    assert first["shopper_reply"] == "颜色要樱花粉。" and first["action_feedback"] == "ok"
    assert first["observation"].startswith("The shopper answered: 颜色要樱花粉。")
    assert first["observation_state"]["page_type"] == "search" and first["actions_used"] == 1
    tool = httpx.post(f"{url}/step", json={"tool": "ask", "arguments": {"question": "预算多少？"}}).json()
    assert tool["shopper_reply"] == "预算最多70元。" and tool["actions_used"] == 2
    searched = httpx.post(f"{url}/step", json={"action": "search[保温杯]"}).json()
    from shopsim.simsite.v8.openapi import V8ResetResponse, V8StepResponse

    V8ResetResponse.model_validate(reset)
    for body in (first, tool, searched):
        V8StepResponse.model_validate(body)
    assert searched["shopper_reply"] is None and searched["observation_state"]["page_type"] == "results"
    assert [(d["action"], d["question"]) for d in searched["dialogue"]] == [(1, "颜色选哪个？"), (2, "预算多少？")]
    empty = httpx.post(f"{url}/step", json={"action": "ask[]"}).json()
    assert empty["action_feedback"] == "invalid_format" and empty["actions_used"] == 4
    assert httpx.delete(url).status_code == 204

    single = httpx.post(f"{base}/api/sessions", json={"task_id": ZH_TASK}).json()
    url = f"{base}/api/sessions/{single['lease_id']}"
    assert "dialogue" not in single
    refused = httpx.post(f"{url}/step", json={"tool": "ask", "arguments": {"question": "颜色？"}}).json()
    assert refused["action_feedback"] == "invalid_format" and refused["actions_used"] == 1
    assert "shopper_reply" not in refused and "颜色" not in refused["observation"]
    assert httpx.delete(url).status_code == 204


def test_asks_count_toward_the_multi_turn_action_limit(shop):
    from shopsim.adapters.env import ShopEnv

    env = ShopEnv(shop, task_mode="persona", interaction_mode="multi_turn", max_steps=40)
    _, info = env.reset(options={"task_id": EN_TASK})
    assert info["interaction_mode"] == "multi_turn" and info["max_actions"] == 40
    for n in range(1, 41):
        obs, reward, _, truncated, info = env.step("ask[What is your budget?]")
        assert info["actions_used"] == n and info["shopper_reply"] == "My budget is at most 65 dollars."
        assert obs.startswith("The shopper answered:")
    assert info["termination"] == "action_limit" and reward == 0.0 and truncated
    assert len(info["dialogue"]) == 40 and info["dialogue"][-1]["action"] == 40


def test_tool_schemas_offer_ask_only_when_the_mode_allows():
    from shopsim.errors import ActionError
    from shopsim.v8.tool_calls import canonical_action, tool_schemas

    names = [t["function"]["name"] for t in tool_schemas(True, [], ask=True)]
    assert names == ["search", "ask"]
    assert [t["function"]["name"] for t in tool_schemas(True, [])] == ["search"]
    assert canonical_action("ask", {"question": "颜色？"}) == "ask[颜色？]"
    with pytest.raises(ActionError, match="question"):
        canonical_action("ask", {"value": "x"})


# ---- the LLM shopper ----------------------------------------------------------------------------------
def test_llm_shopper_answers_through_the_fake_and_is_guarded(shop):
    from shopsim.simsite.v8.llm_shopper import llm_shopper_factory
    from shopsim.simsite.v8.session import V8Session

    task = shop.task_by_id(EN_TASK)
    title = shop.product(task.asin).title
    fake = FakeLLM()
    try:
        fake.script = [{"role": "assistant", "content": "Daypack, please."},
                       {"role": "assistant", "content": f"Buy {task.asin}: {title}."}]
        fake.statuses = [200, 200, 500]
        session = V8Session(shop, task, interaction_mode="multi_turn",
                            shopper=llm_shopper_factory(fake.url, "fake-model"))
        assert session.step("ask[Which capacity option?]").reply == "Daypack, please."
        leaked = session.step("ask[Which product exactly?]").reply or ""
        assert task.asin not in leaked and title not in leaked and "(not saying)" in leaked
        fallback = session.step("ask[What is your budget?]").reply
        assert fallback == "My budget is at most 65 dollars."  # the rule shopper, when the service fails
        system = fake.requests[0]["messages"][0]["content"]
        assert "Daypack" in system and task.asin not in system and title not in system
        assert fake.requests[0]["messages"][1]["content"] == "Which capacity option?"
        assert session.dialogue[0].answer == "Daypack, please." and session.actions == 3
    finally:
        fake.close()


# ---- what asking is worth -----------------------------------------------------------------------------
def test_heuristic_gains_from_asking_on_hidden_option_persona_tasks(shop):
    from shopsim.agents.shopper_eval import run_scenarios
    from shopsim.errors import ConfigError
    from shopsim.simsite.v8.shopper_tasks import hidden_constraint_tasks

    ids = hidden_constraint_tasks(shop, 30, seed=0)
    assert len(ids) == 30 and ids == hidden_constraint_tasks(shop, 30, seed=0) != hidden_constraint_tasks(shop, 30, 1)
    assert shop.goal_indices("hidden-options:30") == [shop.index_of(i) for i in ids]
    for spec in ("hidden-options:x", "hidden-options:3:y"):
        with pytest.raises(ConfigError, match="hidden-options:N"):
            shop.goal_indices(spec)
    single, multi = run_scenarios(shop, "heuristic", ids, ["single_persona", "multi_persona"])
    assert single.asks_per_episode == 0 and multi.asks_per_episode >= 1
    assert multi.mean_reward > single.mean_reward, (single, multi)


def test_multi_turn_eval_records_the_dialogue_and_the_asking_split(tmp_path, shop):
    from shopsim.agents.evaluation.config import EvalConfig
    from shopsim.agents.evaluation.runner import run_eval

    goals = [shop.index_of(ZH_TASK), shop.index_of(EN_TASK)]
    out = tmp_path / "multi"
    cfg = EvalConfig(agent="heuristic", goals=goals, out=str(out), max_steps=40, profile="shopsim-v8",
                     task_mode="persona", interaction_mode="multi_turn")
    _, extra = run_eval(cfg, progress=False)
    records = [json.loads(line) for line in (out / "episodes.jsonl").read_text().splitlines()]
    assert all(r["asks"] == len(r["dialogue"]) >= 1 for r in records)
    assert extra["asking"]["with_asking"]["episodes"] == 2 and extra["run"]["interaction_mode"] == "multi_turn"
    steps = [json.loads(line) for line in (out / "traces.jsonl").read_text().splitlines()]
    replies = [s["shopper_reply"] for s in steps if s["action"].startswith("ask[")]
    assert replies and all(replies)
    report = (out / "report.html").read_text(encoding="utf-8")
    assert "Asking the shopper" in report and "with asking" in report


def test_the_guard_masks_the_asin_and_title_whatever_their_case_and_spacing(shop):
    """An LLM shopper that copies the target in another case or spacing gives it away all the same."""
    from shopsim.simsite.v8.shopper import guard_answer, private_goal

    task = shop.task_by_id(EN_TASK)
    goal, title = private_goal(task), shop.product(task.asin).title
    words = title.split()
    variants = [task.asin.lower(), task.asin.upper(), title.upper(), "  ".join(words), "\n".join(words)]
    for said in variants:
        answer = guard_answer(f"Buy {said} now.", goal, title)
        assert answer == "Buy (not saying) now.", (said, answer)
    assert guard_answer("For Capacity Option, I'd like Daypack.", goal, title) == "For Capacity Option, I'd like Daypack."


def test_a_runtime_ending_after_an_ask_does_not_repeat_the_shoppers_answer(shop):
    from shopsim.simsite.v8.session import V8Session

    session = V8Session(shop, shop.task_by_id(EN_TASK), interaction_mode="multi_turn")
    assert session.step("ask[What is your budget?]").reply == "My budget is at most 65 dollars."
    ended = session.terminate("action_limit")
    assert ended.done and session.reply is None and ended.reply is None
    assert not session.observation().startswith("The shopper answered")
    assert len(session.dialogue) == 1  # the dialogue keeps it


def test_a_slow_llm_shopper_does_not_stall_the_service_and_restores_keep_it(shop):
    """An ask waits on the shopper's model in a worker thread: other requests are served meanwhile,
    and a session restored from a snapshot still asks the service's shopper, not the rule-based one.
    """
    import threading

    from shopsim.simsite.v8.llm_shopper import llm_shopper_factory
    from shopsim.simsite.v8.service import create_v8_app

    fake, gate = FakeLLM(), threading.Event()
    fake.default = lambda body: (gate.wait(20), {"role": "assistant", "content": "Daypack, please."})[1]
    app = create_v8_app(shop, slots=2, shopper=llm_shopper_factory(fake.url, "fake-model", timeout=30))
    try:
        with ServerThread(app) as srv, httpx.Client(base_url=srv.base_url, timeout=30) as c:
            lease = c.post("/api/sessions", json={"task_id": EN_TASK, "interaction_mode": "multi_turn"}).json()["lease_id"]
            answers: list[dict] = []
            asking = threading.Thread(target=lambda: answers.append(
                c.post(f"/api/sessions/{lease}/step", json={"action": "ask[Which capacity option?]"}).json()))
            asking.start()
            for _ in range(2000):  # until the shopper's model has the question
                if fake.requests:
                    break
                threading.Event().wait(0.01)
            assert fake.requests, "the ask never reached the shopper's model"
            health = httpx.get(f"{srv.base_url}/api/health", timeout=10)  # served while the ask waits
            assert health.status_code == 200 and asking.is_alive()
            gate.set()
            asking.join(30)
            assert answers[0]["shopper_reply"] == "Daypack, please." and answers[0]["actions_used"] == 1
            token = c.post(f"/api/sessions/{lease}/snapshot").json()["snapshot"]
            assert c.post(f"/api/sessions/{lease}/restore", json={"snapshot": token}).status_code == 200
            again = c.post(f"/api/sessions/{lease}/step", json={"action": "ask[Which capacity option?]"}).json()
            assert again["shopper_reply"] == "Daypack, please." and len(fake.requests) == 2
    finally:
        gate.set()
        fake.close()


def test_multi_turn_is_refused_on_a_profile_without_it(tmp_path, capsys):
    """WebShop has no shopper: ``--interaction-mode multi_turn`` there is one line and exit 2, not a
    single-turn run that quietly got 40 steps instead of 15."""
    from shopsim.cli import main

    for args in (["run", "--agent", "random", "--goals", "1"],
                 ["eval", "--agent", "random", "--goals", "1", "--out", str(tmp_path / "r")]):
        assert main([*args, "--interaction-mode", "multi_turn"]) == 2, args
        assert capsys.readouterr().err.strip() == ("shopsim: error: --interaction-mode multi_turn is a shopsim-v8 "
                                                   "mode; profile webshop has single-turn episodes only")
    assert not (tmp_path / "r").exists()
