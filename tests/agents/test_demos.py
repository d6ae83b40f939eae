"""``shopsim data demos``: session logs -> imitation-learning records. A round trip through a real
``serve --log-dir`` session, WebShop's 50 recorded MTurk sessions, and one-line errors for bad logs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import httpx
import pytest
from _session_drive import drive_session
from conftest import SMALL, ServerThread, read_jsonl

from shopsim.agents.demos import ChoiceRecord, EpisodeRecord, SearchRecord, StepRecord, record_adapter
from shopsim.cli import build_parser, main
from shopsim.cli.serve import build_app
from shopsim.render import render_rich
from shopsim.simsite.session import ShopSession

TRAJECTORIES = SMALL / "human_trajectories"
needs_trajectories = pytest.mark.skipif(not (TRAJECTORIES.is_dir() and (SMALL / "human_goals.json").is_file()),
                                        reason=f"WebShop's recorded human trajectories are not at {TRAJECTORIES}")


def _demos(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(["data", "demos", *argv])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _records(path: Path) -> list[EpisodeRecord | StepRecord | SearchRecord | ChoiceRecord]:
    adapter = record_adapter()
    return [adapter.validate_python(x) for x in read_jsonl(path)]


@pytest.fixture(scope="module")
def logged(tmp_path_factory: pytest.TempPathFactory):
    """One session through ``shopsim serve --log-dir``'s app on 127.0.0.1: (log folder, drive, shop)."""
    logs = tmp_path_factory.mktemp("demo-logs")
    app, _ = build_app(build_parser().parse_args(["serve", "--log-dir", str(logs)]))
    with ServerThread(app) as srv, httpx.Client(base_url=srv.base_url, timeout=30) as client:
        drive = drive_session(client, app.state.shop, 2, "fixed_2", srv.base_url)
    return logs, drive, app.state.shop


def test_round_trip_gives_the_sessions_actions_states_and_choices_back(logged, tmp_path, capsys) -> None:
    logs, drive, shop = logged
    out = tmp_path / "demos.jsonl"
    rc, stdout, err = _demos(["--logs", str(logs), "--out", str(out)], capsys)
    assert (rc, err) == (0, "")
    assert stdout == f"shopsim data demos: 1 sessions, 9 steps (9 with their state on this catalog), 2 searches, " \
                     f"7 choices -> {out}\n"
    records = _records(out)
    episode, steps = records[0], [r for r in records if isinstance(r, StepRecord)]
    assert episode == EpisodeRecord(session_id="fixed_2", source="fixed_2.jsonl",
                                    instruction=shop.goals[2].instruction_text, steps=9, searches=2, reloads=1,
                                    jumps=0, unrendered=0, purchased=True, asin=drive.asin, options=drive.options,
                                    reward=drive.reward)
    assert [s.action for s in steps] == drive.actions
    assert [s.state for s in steps] == drive.states
    assert [s.available_actions for s in steps] == drive.available
    assert [s.action_idx for s in steps] == [-1 if a.startswith("search[") else drive.available[i].index(a)
                                             for i, a in enumerate(drive.actions)]
    assert [s.page for s in steps] == ["index", "search_results", "index", "search_results", "search_results",
                                       "item_page", "item_page", "item_sub_page", "item_page"]
    searches = [r for r in records if isinstance(r, SearchRecord)]
    assert [(r.goal, r.query) for r in searches] == [(shop.goals[2].instruction_text.split(", and price")[0], q)
                                                      for q in ("nail polish", "blue color")]
    choices = [r for r in records if isinstance(r, ChoiceRecord)]
    assert [c.step for c in choices] == [1, 3, 4, 5, 6, 7, 8]
    assert [c.actions[c.label] for c in choices] == [a.replace('"', "").replace("'", "") for a in drive.actions
                                                     if not a.startswith("search[")]
    assert choices[0].state == drive.states[1].lower().replace("[sep]", "[SEP]").replace("'", "").replace('"', "")


def test_rich_states_on_request(logged, tmp_path, capsys) -> None:
    logs, _, shop = logged
    out = tmp_path / "rich.jsonl"
    assert _demos(["--logs", str(logs), "--out", str(out), "--state-format", "text_rich"], capsys)[0] == 0
    first = next(r for r in _records(out) if isinstance(r, StepRecord))
    assert first.state == render_rich(ShopSession(shop, shop.goals[2], "fixed_2").state)
    assert first.state == f"WebShop\nInstruction: \n{shop.goals[2].instruction_text}\n[button] Search [button_]\n"


@needs_trajectories
@pytest.mark.slow
def test_webshops_50_recorded_sessions(tmp_path, capsys) -> None:
    out = tmp_path / "mturk.jsonl"
    rc, stdout, err = _demos(["--trajectories", str(TRAJECTORIES), "--data", str(SMALL), "--out", str(out),
                              "--human-goal-list", str(SMALL / "human_goals.json")], capsys)
    assert (rc, err) == (0, "")
    # none of their products is in the small set: only the search pages can be shown again
    assert stdout == f"shopsim data demos: 50 sessions, 561 steps (81 with their state on this catalog), " \
                     f"81 searches, 0 choices -> {out}\n"
    records = _records(out)
    episodes = [r for r in records if isinstance(r, EpisodeRecord)]
    assert (sum(e.purchased for e in episodes), sum(e.jumps for e in episodes), sum(e.reloads for e in episodes)) \
        == (50, 8, 8)
    assert Counter(e.split for e in episodes) == {"train": 44, "test": 4, "eval": 2}
    first = episodes[0]
    assert (first.session_id, first.goal_index, first.split, first.reward, first.asin) == \
        ("20220427_1_12", 5336, "train", 0.5, "B09LYLKLVX")
    steps = [r for r in records if isinstance(r, StepRecord) and r.session_id == "20220427_1_12"]
    assert [s.action for s in steps] == ["search[living room furniture]", "click[back to search]",
                                         "search[living room and kitchen furniture]", "click[b09lylklvx]",
                                         "click[buy now]"]
    instruction = "i'm looking for living room furniture and kitchen furniture and need to buy it, and price lower " \
                  "than 490.00 dollars"
    assert steps[0].state == f"WebShop [SEP] Instruction: [SEP] {instruction} [SEP] Search"
    assert (steps[0].available_actions, steps[0].action_idx) == ([], -1)
    differ = "this catalog's search results differ from the logged ones"
    assert [s.note for s in steps] == [None, differ, None, differ, "product B09LYLKLVX is not in this catalog"]
    assert [s.state is None for s in steps] == [False, True, False, True, True]
    searches = [r for r in records if isinstance(r, SearchRecord) and r.session_id == "20220427_1_12"]
    assert [(r.goal, r.query, r.goal_index) for r in searches] == [
        ("im looking for living room furniture and kitchen furniture and need to buy it", q, 5336)
        for q in ("living room furniture", "living room and kitchen furniture")]


def _write(folder: Path, name: str, lines: list[str]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text("".join(x + "\n" for x in lines))


GOAL = {"asin": "B0R8ZK4SKW", "instruction_text": "i want a nail polish", "attributes": [], "goal_options": []}


@pytest.mark.parametrize(("lines", "words"), [
    (['{"page": "index", "url": "http://h/s1", "goal": {}', ], "s1.jsonl:1: not a session-log line: line: Invalid JSON"),
    ([json.dumps({"page": "index", "url": "http://h/s1", "goal": GOAL}), json.dumps({"page": "cart", "url": "http://h/s1",
      "goal": GOAL})], "s1.jsonl:2: not a session-log line: page: Input should be 'index', 'search_results'"),
    ([json.dumps({"page": "index", "goal": GOAL})], "s1.jsonl:1: not a session-log line: url: Field required"),
    ([json.dumps({"page": "done", "url": "http://h/s1", "goal": GOAL})], "s1.jsonl:1: page 'done' but the URL is a index page"),
    ([json.dumps({"page": "search_results", "url": "http://h/search_results/s1/a/zz", "goal": GOAL})],
     "s1.jsonl:1: URL 'http://h/search_results/s1/a/zz': page number must be a positive integer, got 'zz'"),
    ([json.dumps({"page": "index", "url": "http://h/s1", "goal": {"asin": "B0"}})],
     "s1.jsonl:1: goal: Field required"),
])
def test_a_bad_log_is_one_line_and_exit_2(tmp_path, capsys, lines: list[str], words: str) -> None:
    _write(tmp_path / "logs", "s1.jsonl", lines)
    out = tmp_path / "out.jsonl"
    rc, stdout, err = _demos(["--logs", str(tmp_path / "logs"), "--out", str(out)], capsys)
    assert (rc, stdout) == (2, "") and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("shopsim: error: ") and words in err, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["logs"]  # nothing written, not even a part file


def test_missing_or_empty_folders_are_one_line(tmp_path, capsys) -> None:
    rc, _, err = _demos(["--logs", str(tmp_path / "nope"), "--out", str(tmp_path / "o.jsonl")], capsys)
    assert (rc, err) == (2, f"shopsim: error: {tmp_path / 'nope'}: no such folder of session logs\n")
    empty = tmp_path / "logs"
    empty.mkdir()
    rc, _, err = _demos(["--trajectories", str(empty), "--out", str(tmp_path / "o.jsonl")], capsys)
    assert (rc, err) == (2, f"shopsim: error: {empty}: no *.jsonl session logs in this folder\n")
    rc, _, err = _demos(["--logs", str(empty), "--out", str(empty / "o.jsonl")], capsys)
    assert rc == 2 and err.startswith(f"shopsim: error: --out {empty / 'o.jsonl'} is inside the log folder")
    rc, _, err = _demos(["--logs", str(empty), "--out", str(tmp_path / "o.jsonl"), "--human-goal-list",
                         str(tmp_path / "none.json")], capsys)
    assert rc == 2 and err.startswith(f"shopsim: error: {tmp_path / 'none.json'}: cannot read a human-goals list")
