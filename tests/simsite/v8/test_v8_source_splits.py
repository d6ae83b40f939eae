"""The source-group split file (seed 004's ``task_splits.cleaned.v2.json``) and ``search-eval --split``."""

from __future__ import annotations

import json

import pytest
from conftest import SHARED

from shopsim.cli import main
from shopsim.errors import DataError
from shopsim.simsite.v8.source_splits import build_source_splits, read_source_splits
from shopsim.simsite.v8.splits import read_split_file

SAMPLE = SHARED / "data" / "shopsim-sample" / "products.json"
needs_sample = pytest.mark.skipif(not SAMPLE.exists(), reason=f"the v8 dev kit is not at {SAMPLE} (it lives in ../shared)")

TASKS = [(10, "eval", "persona"), (11, "eval", "standard"), (12, "train", "persona"), (15, "train", "standard")]


def test_groups_as_the_seed_lays_them_out(tmp_path):
    data = build_source_splits(TASKS, source_task_count=6)
    assert data["version"] == "shopsimulator-stable-task-splits-v2" and data["active_task_count"] == 4
    assert {k: (v["task_ids"], v["persona"]) for k, v in data["splits"].items()} == {
        "persona_eval": ([10], True), "standard_eval": ([10, 11], False), "persona_train": ([12], True),
        "standard_train": ([15], False), "all_train": ([12, 15], None)}
    path = tmp_path / "task_splits.cleaned.v2.json"
    path.write_text(json.dumps(data))
    assert read_source_splits(path) == read_split_file(path) == {k: v["task_ids"] for k, v in data["splits"].items()}


@pytest.mark.parametrize(("payload", "message"), [
    ({"version": "other", "splits": {}}, "version is 'other'"),
    ({"version": "shopsimulator-stable-task-splits-v2", "splits": {"persona_eval": [1, 2]}}, "'task_ids' list"),
    ({"version": "shopsimulator-stable-task-splits-v2", "splits": {"persona_eval": {"task_ids": [1, 1]}}}, "twice"),
])
def test_bad_split_files_are_one_line(tmp_path, payload, message):
    path = tmp_path / "s.json"
    path.write_text(json.dumps(payload))
    with pytest.raises(DataError, match=message):
        read_source_splits(path)


@needs_sample
def test_search_eval_split_errors_are_one_line(tmp_path, capsys):
    good = tmp_path / "task_splits.cleaned.v2.json"
    good.write_text(json.dumps(build_source_splits([(3538, "eval", "persona"), (7001, "train", "standard")], 2)))
    cases = [
        (["--data", str(SAMPLE), "--split", "persona_eval"], "no task_splits.cleaned.v2.json in"),
        (["--split-file", str(good), "--split", "nope", "--data", str(SAMPLE)], "no split 'nope'; it has"),
        (["--split", "persona_eval", "--goals", "0:3"], "give one"),
        (["--split-file", str(good), "--split", "persona_eval", "--data", str(SAMPLE), "--workers", "0"], "--workers 0"),
        (["--split-file", str(good), "--split", "persona_train", "--data", str(SAMPLE)], "selects no task"),
    ]
    for args, message in cases:
        assert main(["search-eval", *args]) == 2, args
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and message in err, (args, err)
    assert main(["search-eval", "--data", str(SAMPLE), "--split-file", str(good), "--split", "persona_eval",
                 "--workers", "2", "--per-task", "--json"]) == 0
    assert list(json.loads(capsys.readouterr().out)["gold_ranks"]) == ["3538"]
