"""The gap suite: end to end on the bundled catalog for two agents (rule, and the LLM agent on a local fake
model server), every condition in the terminal table and in report.html, and the statistics on known cases."""

from __future__ import annotations

import json

import numpy as np
import pytest
from _fake_llm import FakeLLM, scripted_shopper
from conftest import REAL_PAGES, needs_shared

from shopsim.agents.transfer.gap_report import html_report, text_report
from shopsim.agents.transfer.gap_stats import drop_interval, ranks, spearman
from shopsim.agents.transfer.gap_suite import (
    AgentGap,
    ConditionResult,
    Drop,
    GapReport,
    agent_spec,
    conditions,
    run_gap_suite,
)
from shopsim.agents.transfer.suite import load_tasks
from shopsim.cli import main
from shopsim.simsite.shop import Shop


def test_spearman_on_known_cases() -> None:
    assert spearman([1, 2, 3, 4], [10, 30, 20, 40]) == pytest.approx(0.8)  # 1 - 6*2/(4*15)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([5, 1, 9, 7, 3], [50, 10, 90, 70, 30]) == pytest.approx(1.0)
    assert list(ranks([10, 20, 20, 30])) == [1.0, 2.5, 2.5, 4.0]
    # with ties, Spearman is Pearson's correlation of the mean ranks
    x, y = [1, 2, 2, 3, 5], [2, 1, 4, 4, 6]
    assert spearman(x, y) == pytest.approx(float(np.corrcoef(ranks(x), ranks(y))[0, 1]))
    assert spearman([1, 2], [2, 1]) is None and spearman([1, 1, 1], [1, 2, 3]) is None


def test_drop_interval_is_seeded_and_holds_the_drop() -> None:
    base, other = [1.0, 1.0, 0.5, 0.0, 1.0], [0.5, 1.0, 0.0, 0.0, 0.5]
    drop, low, high = drop_interval(base, other, paired=True, seed=7)
    assert drop == pytest.approx(30.0) and low <= drop <= high
    assert drop_interval(base, other, paired=True, seed=7) == (drop, low, high)
    assert drop_interval(base, base, paired=True) == (0.0, 0.0, 0.0)


@pytest.mark.slow
@needs_shared
def test_suite_end_to_end_for_two_agents(bundled_shop: Shop, tmp_path) -> None:
    fake = FakeLLM()
    fake.default = scripted_shopper
    try:
        llm = f"llm+base_url={fake.url}+model=scripted+api_key=test"
        perturbs = ["sponsored", "locale=de", "random"]
        report = run_gap_suite(["rule", llm], bundled_shop, goals=2, perturbs=perturbs, real=REAL_PAGES,
                               work=tmp_path, tasks=load_tasks()[:3])
    finally:
        fake.close()
    names = [c.name for c in conditions("amazon", perturbs)]
    assert [a.agent for a in report.agents] == ["rule", llm]
    for agent in report.agents:
        assert [r.condition for r in agent.rows] == names
        assert agent.rows[0].drop.points == 0.0 and agent.real is not None
        assert all(r.drop.low <= r.drop.points <= r.drop.high for r in agent.rows)
    text, page = text_report(report), html_report(report)
    assert all(name in text and name in page for name in names)
    assert "<svg" in page and "Spearman" in text  # two agents: the correlation says it needs three


def test_cli_writes_the_report(tmp_path, capsys) -> None:
    out = tmp_path / "gap"
    assert main(["gap-suite", "--agent", "rule", "--goals", "1", "--perturb", "banner;count", "--no-real",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    doc = json.loads((out / "report.json").read_text())
    rows = [r["condition"] for r in doc["agents"][0]["rows"]]
    assert rows == ["sim", "skin:amazon", "skin:ebay", "skin:generic", "amazon+banner", "amazon+count"]
    assert all(r in printed for r in rows) and (out / "report.html").is_file()


def test_cli_refuses_an_unknown_perturbation(tmp_path, capsys) -> None:
    assert main(["gap-suite", "--agent", "rule", "--perturb", "popup", "--no-real", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("shopsim: error: unknown perturbation 'popup'") and "\n" not in err


def test_drops_are_not_rounded_before_they_are_ranked() -> None:
    """Agents 0.04 points apart are not a tie: a drop keeps its precision (it was rounded to a tenth, and
    the predicted drop was a mean of rounded drops, before Spearman ranked them); the reports round."""
    one = Drop.of([1.0, 0.0, 0.0], [0.0, 0.0, 0.0], paired=True, seed=0)
    assert one.points == pytest.approx(100 / 3)
    assert "+33.3" in text_report(GapReport(seed=0, goals=3, perturb_skin="amazon", spearman=None, agents=[
        AgentGap(agent="x", goals=3, rows=[ConditionResult(condition="sim", kind="sim", score=1, success=0, drop=one)],
                 predicted_drop=one.points)]))


def test_agent_options_read_ascii_ints_only() -> None:
    """``²`` is a digit to ``str.isdigit`` but not to ``int``: it stays text (it was a ValueError traceback)."""
    assert agent_spec("heuristic+max_candidates=-3+mode=x") == ("heuristic", {"max_candidates": -3, "mode": "x"})
    assert agent_spec("heuristic+max_candidates=\u00b2") == ("heuristic", {"max_candidates": "\u00b2"})


@pytest.mark.parametrize("flags", [["--agent", "heuristic+max_candidates=\u00b2"], ["--perturb-skin", "random"],
                                   ["--out", "FILE"], ["--out", "FILE/below"], ["--max-steps", "-1"],
                                   ["--tasks-limit", "-1"]])
def test_cli_refusals_are_one_line(flags: list[str], tmp_path, capsys) -> None:
    """Bad flags end in one line and exit 2 before the suite runs (``--out`` on a file used to be a
    FileExistsError traceback after the whole run; ``--perturb-skin random`` said "Did you mean 'random'")."""
    (tmp_path / "file").write_text("x")
    argv = ["gap-suite", "--agent", "rule", "--goals", "1", "--perturb", "banner", "--no-real", "--out",
            str(tmp_path / "out"), *[f.replace("FILE", str(tmp_path / "file")) for f in flags]]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("shopsim: error:") and "\n" not in err and "Did you mean 'random'" not in err
    assert (tmp_path / "file").read_text() == "x"


def test_read_back_path_keeps_the_rule_agents_rewards(bundled_shop: Shop) -> None:
    """Through each skin's translator read-back and the parity view, the rule agent (which buys the first card
    with its options) earns on every goal what it earns on the sim: the path itself loses nothing it uses."""
    from shopsim.agents.registry import make_agent
    from shopsim.agents.transfer.gap_suite import play

    def make():
        return make_agent("rule", 0)

    by_condition = {c.name: [r.reward for r in play(make, bundled_shop, c, 5)]
                    for c in conditions("amazon", []) if c.kind in ("sim", "skin")}
    assert len(by_condition) == 4 and len({tuple(v) for v in by_condition.values()}) == 1, by_condition
