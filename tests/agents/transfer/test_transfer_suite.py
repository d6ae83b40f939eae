"""The real-page transfer suite: tasks assembled from ../shared/fixtures/real at test time."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import REAL_PAGES, needs_shared

from shopsim.agents.transfer.bundle_episode import ScriptedAgent, run_transfer
from shopsim.agents.transfer.suite import build_suite, load_tasks
from shopsim.cli import main

pytestmark = needs_shared


def test_the_task_file_covers_shops_locales_and_both_starts() -> None:
    tasks = load_tasks()
    assert len(tasks) >= 12
    assert {t.site for t in tasks} == {"amazon", "ebay", "other"}
    assert {t.start for t in tasks} == {"search", "page"}
    assert len({t.shop for t in tasks}) >= 10  # .com, .de, .es, .com.br, .in, .co.uk, etsy, target, ...
    assert any(len(t.pages) > 1 and t.pages[1].card for t in tasks)  # a results card that leads to its item page


@pytest.mark.slow
def test_every_task_can_be_done_on_its_pages(tmp_path: Path) -> None:
    """Each task's written solution buys the target with r_success 1 (the goal is satisfiable there)."""
    for spec, bundle in build_suite(REAL_PAGES, tmp_path / "suite"):
        res = run_transfer(bundle, spec.goal, ScriptedAgent(spec.solution), start=spec.start,
                           any_search=spec.start == "search", card_pages=spec.start == "search")
        assert res.purchased_id is not None and res.purchased_id.lower() == spec.goal.asin.lower(), spec.id
        assert res.r_success == 1.0 and res.reward == 1.0, (spec.id, res.breakdown)
        assert set(res.feedback) == {"ok"}, (spec.id, res.feedback)


def _suite(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["transfer-suite", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_cli_reports_each_task_and_the_gap(capsys: pytest.CaptureFixture[str]) -> None:
    out = _suite(capsys, "--agent", "rule", "--sim-goals", "5", "--real", str(REAL_PAGES))
    rows = out["tasks"]
    assert [r["task"] for r in rows] == [t.id for t in load_tasks()]
    assert all(0.0 <= r["reward"] <= 1.0 and r["steps"] >= 1 for r in rows)
    assert out["real_score"] == pytest.approx(round(100 * sum(r["reward"] for r in rows) / len(rows), 1))
    assert out["real_success"] == pytest.approx(round(100 * sum(r["success"] for r in rows) / len(rows), 1))
    assert out["sim_goals"] == 5 and out["gap"] == pytest.approx(round(out["sim_score"] - out["real_score"], 1))
    # the rule agent clicks the first result: on a results task it buys what is listed first
    first = next(r for r in rows if r["task"] == "amazon-chromebook")
    assert first["actions"][1] != "click[b0bsj46ky9]" and first["success"] is False
    again = _suite(capsys, "--agent", "rule", "--sim-goals", "5", "--real", str(REAL_PAGES))
    assert again == out  # deterministic


def test_cli_text_table_and_one_task(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["transfer-suite", "--agent", "heuristic", "--task", "etsy-toddler-tee", "--sim-goals", "0",
                 "--real", str(REAL_PAGES)]) == 0
    text = capsys.readouterr().out
    assert "etsy-toddler-tee" in text and "real pages: score" in text and "gap" not in text


def test_bad_inputs_fail_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["transfer-suite", "--agent", "rule", "--real", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "not a folder" in err
    assert main(["transfer-suite", "--agent", "rule", "--task", "nope", "--real", str(REAL_PAGES)]) == 2
    assert "unknown task 'nope'" in capsys.readouterr().err
    altered = tmp_path / "real"
    spec = load_tasks()[0]
    for p in spec.pages:
        (altered / p.file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REAL_PAGES / p.file, altered / p.file)
    page = altered / spec.pages[0].file
    page.write_bytes(page.read_bytes() + b"<!-- edited -->")
    assert main(["transfer-suite", "--agent", "rule", "--task", spec.id, "--real", str(altered)]) == 2
    assert "SHA-256 differs" in capsys.readouterr().err
    bad_tasks = tmp_path / "tasks.json"
    bad_tasks.write_text('{"format": "shopsim-transfer-tasks", "version": 1, "tasks": [{"id": "x"}]}')
    assert main(["transfer-suite", "--agent", "rule", "--tasks", str(bad_tasks)]) == 2
    assert "tasks.0" in capsys.readouterr().err
