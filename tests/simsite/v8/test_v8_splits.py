"""Persona splits: linking, whole-group assignment, determinism, and the split file's checks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from shopsim.errors import ConfigError, DataError
from shopsim.simsite.v8.splits import (
    DEFAULT_LARGE_GROUP,
    LINKS,
    SPLIT_FILE_VERSION,
    SplitTask,
    build_splits,
    connected_groups,
    parse_goal_spec,
    persona_fingerprint,
    persona_user_id,
    read_split_file,
    split_tasks,
    write_split_file,
)


def task(task_id: int, **kw: Any) -> SplitTask:
    """A task that shares nothing with any other unless ``kw`` says so."""
    values: dict[str, Any] = {
        "asin": f"A{task_id}",
        "instruction": f"full instruction {task_id}",
        "instruction_simple": f"simple {task_id}",
        "persona": {"用户ID": f"u{task_id}", "城市": f"city {task_id}"},
        "user_id": None,
    }
    values.update(kw)
    return SplitTask(task_id=task_id, **values)


def singletons(n: int, start: int = 0) -> list[SplitTask]:
    return [task(i) for i in range(start, start + n)]


def split_of(splits: dict[str, list[int]]) -> dict[int, str]:
    return {i: name for name, ids in splits.items() for i in ids}


# --- fingerprints and user ids ------------------------------------------------------------------


def test_reasoning_does_not_change_the_fingerprint_at_any_depth() -> None:
    plain = {"用户ID": "u1", "兴趣偏好": {"功能": ["节能"], "类目": [{"a": 1}]}}
    noted = {
        "__reasoning__": "top",
        "用户ID": "u1",
        "兴趣偏好": {"功能": ["节能"], "__reasoning__": "mid", "类目": [{"a": 1, "__reasoning__": "deep"}]},
    }
    assert persona_fingerprint(plain) == persona_fingerprint(noted)
    assert persona_fingerprint(plain) == persona_fingerprint(dict(reversed(list(plain.items()))))
    assert persona_fingerprint(plain) != persona_fingerprint({**plain, "用户ID": "u2"})
    assert len(persona_fingerprint(plain)) == 64


@pytest.mark.parametrize(
    ("persona", "expected"),
    [
        ({"用户ID": "u_dev_0001"}, "u_dev_0001"),
        ({"user_id": "u4"}, "u4"),
        ({"userId": "u5"}, "u5"),
        ({"uid": 77}, "77"),
        ({"profile": {"UserID": " u6 "}}, "u6"),
        ({"user_id": "", "profile": {"uid": "u7"}}, "u7"),
        ({"a": {"b": {"uid": "too deep"}}}, None),
        ({"user_id": True}, None),
        ({}, None),
        (None, None),
    ],
)
def test_persona_user_id(persona: dict[str, Any] | None, expected: str | None) -> None:
    assert persona_user_id(persona) == expected


# --- linking -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shared",
    [
        {"asin": "B0SAME"},
        {"instruction": "the same full instruction"},
        {"instruction_simple": "the same simple instruction"},
        {"persona": {"城市": "杭州", "__reasoning__": "x"}},
        {"user_id": "u-shared"},
    ],
    ids=["asin", "instruction", "instruction_simple", "persona", "user_id"],
)
def test_each_key_links_on_its_own(shared: dict[str, Any]) -> None:
    if "persona" in shared:  # the same persona content, different annotations
        a, b = task(1, persona={"城市": "杭州", "__reasoning__": "one"}), task(2, **shared)
    else:
        a, b = task(1, **shared), task(2, **shared)
    assert connected_groups([a, b, task(3)]) == [[1, 2], [3]]


def test_user_id_inside_different_personas_links() -> None:
    a = task(1, persona={"用户ID": "u9", "城市": "杭州"})
    b = task(2, persona={"user_id": "u9", "city": "Shenzhen"})
    c = task(3, user_id="u9", persona=None)
    assert connected_groups([a, b, c]) == [[1, 2, 3]]


def test_links_are_transitive() -> None:
    a = task(1, asin="X")
    b = task(2, asin="X", persona={"城市": "杭州"})
    c = task(3, persona={"城市": "杭州"})
    assert connected_groups([c, b, a, task(4)]) == [[1, 2, 3], [4]]


def test_empty_values_never_link() -> None:
    blank = {"asin": "", "instruction": "  ", "instruction_simple": None, "user_id": ""}
    tasks = [
        task(1, persona=None, **blank),
        task(2, persona={}, **blank),
        task(3, persona={"__reasoning__": "only a note"}, **blank),
    ]
    assert connected_groups(tasks) == [[1], [2], [3]]


def test_different_kinds_of_key_do_not_link() -> None:
    a = task(1, asin="same text")
    b = task(2, instruction="same text")
    assert connected_groups([a, b]) == [[1], [2]]


def test_groups_are_ordered_and_duplicate_ids_rejected() -> None:
    tasks = [task(9, asin="Z"), task(5), task(2, asin="Z")]
    assert connected_groups(tasks) == [[2, 9], [5]]
    with pytest.raises(DataError, match="task_id 5 occurs more than once"):
        connected_groups([task(5), task(5)])


# --- building splits -----------------------------------------------------------------------------


def test_target_sizes_met_with_whole_groups() -> None:
    tasks = singletons(100)
    tasks += [task(i, asin="PAIR" + str(i // 2)) for i in range(100, 140)]  # 20 pairs
    result = build_splits(tasks, {"val": 15, "test": 15}, seed=3)
    assert result.counts == {"train": 110, "val": 15, "test": 15}
    assert result.stats["shortfall"] == {"val": 0, "test": 0}
    assert sorted(i for ids in result.splits.values() for i in ids) == list(range(140))
    for ids in result.splits.values():
        assert ids == sorted(ids)
    where = split_of(result.splits)
    for group in connected_groups(tasks):
        assert len({where[i] for i in group}) == 1


def test_targets_that_cannot_be_met_end_short_never_over() -> None:
    tasks = [task(i, asin="P" + str(i // 3)) for i in range(30)]  # ten groups of three
    result = build_splits(tasks, {"val": 10, "test": 4}, seed=0)
    assert result.counts == {"train": 18, "val": 9, "test": 3}
    assert result.stats["shortfall"] == {"val": 1, "test": 1}


def test_large_groups_stay_in_train() -> None:
    big = [task(i, user_id="heavy-user") for i in range(DEFAULT_LARGE_GROUP + 1)]
    tasks = big + singletons(10, start=100)
    result = build_splits(tasks, {"val": 50}, seed=0)
    assert set(range(DEFAULT_LARGE_GROUP + 1)) <= set(result.splits["train"])
    assert result.splits["val"] == list(range(100, 110))
    assert result.stats["large_groups"] == 1
    assert result.stats["largest_group"] == DEFAULT_LARGE_GROUP + 1
    # the same group is eligible once the threshold allows it
    relaxed = build_splits(tasks, {"val": 50}, seed=0, large_group=DEFAULT_LARGE_GROUP + 1)
    assert relaxed.counts["val"] == 10 + DEFAULT_LARGE_GROUP + 1


def test_deterministic_for_a_seed_and_varies_with_it() -> None:
    tasks = singletons(200)
    sizes = {"val": 20, "test": 20}
    assert build_splits(tasks, sizes, seed=7) == build_splits(list(tasks), sizes, seed=7)
    outcomes = {tuple(build_splits(tasks, sizes, seed=s).splits["test"]) for s in range(10)}
    assert len(outcomes) >= 9


def test_input_order_does_not_matter() -> None:
    tasks = [task(i, asin="P" + str(i % 17)) for i in range(60)]
    forward = build_splits(tasks, {"val": 6, "test": 6}, seed=1)
    backward = build_splits(list(reversed(tasks)), {"val": 6, "test": 6}, seed=1)
    assert forward.splits == backward.splits


@pytest.mark.parametrize(
    ("sizes", "kw", "message"),
    [
        ({"train": 5}, {}, "'train' takes everything else"),
        ({"val": -1}, {}, "non-negative int"),
        ({"val": 1.5}, {}, "non-negative int"),
        ({"val": 1}, {"large_group": 0}, "large_group must be at least 1"),
    ],
)
def test_bad_arguments(sizes: dict[str, Any], kw: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        build_splits(singletons(3), sizes, **kw)


@settings(max_examples=150, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["A", "B", "C", "D", "E", "F", "G", "H"]),
            st.sampled_from(["i1", "i2", "i3", "i4", "i5", "i6", "i7", "i8", "i9", ""]),
            st.sampled_from(["s1", "s2", "s3", "s4", None]),
            st.sampled_from([None, {"c": 1}, {"c": 2, "__reasoning__": "r"}, {"c": 2}, {"uid": "x"}]),
            st.sampled_from([None, "", "u1", "u2", "x"]),
        ),
        max_size=40,
    ),
    val=st.integers(0, 15),
    test_size=st.integers(0, 15),
    seed=st.integers(0, 2**32),
    large_group=st.integers(1, 8),
)
def test_property_splits_partition_and_no_link_crosses(
    rows: list[tuple[Any, ...]], val: int, test_size: int, seed: int, large_group: int
) -> None:
    tasks = [
        SplitTask(task_id=i * 3 + 1, asin=a, instruction=ins, instruction_simple=s, persona=p, user_id=u)
        for i, (a, ins, s, p, u) in enumerate(rows)
    ]
    result = build_splits(tasks, {"val": val, "test": test_size}, seed=seed, large_group=large_group)
    all_ids = [i for ids in result.splits.values() for i in ids]
    assert sorted(all_ids) == sorted(t.task_id for t in tasks)
    assert result.counts["val"] <= val and result.counts["test"] <= test_size
    where = split_of(result.splits)
    for x in tasks:
        for y in tasks:
            shared = (
                x.asin == y.asin
                or (bool(x.instruction) and x.instruction == y.instruction)
                or (x.instruction_simple is not None and x.instruction_simple == y.instruction_simple)
                or (
                    bool(x.persona)
                    and bool(y.persona)
                    and persona_fingerprint(x.persona or {}) == persona_fingerprint(y.persona or {})
                )
                or (bool(x.user_id) and x.user_id in (y.user_id, persona_user_id(y.persona)))
            )
            if shared:
                assert where[x.task_id] == where[y.task_id]


# --- the split file ------------------------------------------------------------------------------


def test_split_file_round_trip(tmp_path: Path) -> None:
    tasks = singletons(50)
    result = build_splits(tasks, {"val": 5, "test": 5}, seed=11)
    path = tmp_path / "splits.json"
    write_split_file(result, path)
    assert read_split_file(path) == result.splits
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == SPLIT_FILE_VERSION
    assert data["seed"] == 11 and data["sizes"] == {"val": 5, "test": 5}
    assert data["large_group"] == DEFAULT_LARGE_GROUP
    assert data["links"] == list(LINKS) == ["asin", "instruction", "instruction_simple", "persona", "user_id"]
    assert data["counts"] == {"train": 40, "val": 5, "test": 5}
    assert list(data["splits"]) == ["train", "val", "test"]


def _good() -> dict[str, Any]:
    return {
        "version": SPLIT_FILE_VERSION,
        "seed": 0,
        "sizes": {"val": 1, "test": 1},
        "large_group": 20,
        "links": list(LINKS),
        "counts": {"train": 2, "val": 1, "test": 1},
        "splits": {"train": [1, 2], "val": [3], "test": [4]},
    }


def _with(**changes: Any) -> dict[str, Any]:
    data = _good()
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "not valid JSON"),
        (json.dumps([1, 2]), "expected a JSON object"),
        (json.dumps(_with(version="shopsim-persona-splits-v0")), "version is 'shopsim-persona-splits-v0'"),
        (json.dumps({k: v for k, v in _good().items() if k != "version"}), "version is None"),
        (json.dumps(_with(splits=[1, 2])), "'splits' must be a non-empty object"),
        (json.dumps(_with(splits={"train": "1,2", "val": [3], "test": [4]})), "split 'train' must be a list"),
        (
            json.dumps(_with(splits={"train": [1, "2"], "val": [3], "test": [4]})),
            "split 'train' must be a list",
        ),
        (
            json.dumps(_with(splits={"train": [1, 2.0], "val": [3], "test": [4]})),
            "split 'train' must be a list",
        ),
        (
            json.dumps(_with(splits={"train": [1, True], "val": [3], "test": [4]})),
            "split 'train' must be a list",
        ),
        (
            json.dumps(_with(splits={"train": [1, 2], "val": [2], "test": [4]})),
            "task id 2 is listed in both 'train' and 'val'",
        ),
        (
            json.dumps(_with(splits={"train": [1, 2], "val": [3, 3], "test": [4]})),
            "task id 3 is listed twice in 'val'",
        ),
        (
            json.dumps(_with(counts={"train": 2, "val": 1, "test": 9})),
            r"counts\['test'\] is 9 but the list holds 1",
        ),
    ],
)
def test_malformed_split_files(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=message) as info:
        read_split_file(path)
    text = str(info.value)
    assert str(path) in text and "\n" not in text


def test_missing_split_file(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot read"):
        read_split_file(tmp_path / "absent.json")


# --- goal specs and raw products -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("splits.json:test", (Path("splits.json"), "test")),
        (" configs/persona_splits.v1.json:val ", (Path("configs/persona_splits.v1.json"), "val")),
        ("C:\\data\\Splits.JSON:train", (Path("C:\\data\\Splits.JSON"), "train")),
        ("0:500", None),
        ("test", None),
        ("splits.json", None),
        ("splits.json:", None),
        ("splits.json:12", None),
        ("splits.txt:test", None),
        ("1,5,9", None),
    ],
)
def test_parse_goal_spec(spec: str, expected: tuple[Path, str] | None) -> None:
    assert parse_goal_spec(spec) == expected


def test_split_tasks_inherit_the_product_persona() -> None:
    from shopsim.simsite.v8.records import parse_v8_records

    products = [
        {
            "asin": "P1", "title": "board",
            "user_persona": {"user_id": "u5", "__reasoning__": "r"},
            "instructions": [
                {"task_id": 10, "instruction": "buy a board", "instruction_simple": "a board"},
                {"task_id": 11, "instruction": "buy a knife", "user_persona": {"用户ID": "u6"}},
            ],
        },
        {"asin": "P2", "title": "mat", "instructions": [{"task_id": 12, "instruction": "buy a mat"}]},
    ]
    tasks = split_tasks(parse_v8_records(products, "test").tasks)
    assert [(t.task_id, t.asin, t.user_id, t.instruction_simple) for t in tasks] == [
        (10, "P1", "u5", "a board"),
        (11, "P1", "u6", None),
        (12, "P2", None, None),
    ]
    assert tasks[0].persona == {"user_id": "u5", "__reasoning__": "r"}
    assert connected_groups(tasks) == [[10, 11], [12]]
