"""``shopsim data annotate-budgets`` against a local OpenAI-compatible fake on 127.0.0.1.

The fake stands in for the paid model service: it answers each instruction from a script, and is
made slow, rate-limited (429 with Retry-After), malformed or dishonest (evidence not in the text)
to check that the pipeline saves, retries, rejects and builds as seed 004 describes.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import shutil

import pytest
from _fake_llm import FakeLLM
from conftest import SHARED

from shopsim.cli import main
from shopsim.simsite.v8.budget_annotation import RateGate

SAMPLE = SHARED / "data" / "shopsim-sample" / "products.json"
pytestmark = pytest.mark.skipif(not SAMPLE.exists(), reason=f"the v8 dev kit is not at {SAMPLE} (it lives in ../shared)")

# (task_id, source_field) -> the model's answers in order (a string is sent as raw content)
GOOD = {
    (3538, "simple"): [{"kind": "range", "amount": 1200, "evidence": "1000到1200元"}],
    (2205, "simple"): [{"kind": "range", "amount": 100, "evidence": "50到100元"}],
    (5102, "simple"): [{"kind": "approximate", "amount": 1000, "evidence": "1000元左右"}],
    (8120, "simple"): [{"kind": "none", "amount": None, "evidence": ""}],
    (8120, "full"): [{"kind": "upper_bound", "amount": 50, "evidence": "under 50 dollars"}],
    (1044, "simple"): ["{not json", {"kind": "upper_bound", "amount": 25, "evidence": "under 25 dollars"}],
}


class Model:
    """The scripted 'model': reads the one instruction in the request and answers for it."""

    def __init__(self, fake: FakeLLM, script: dict):
        self.fake, self.script = fake, {k: list(v) for k, v in script.items()}
        self.seen: list[tuple[int, str]] = []
        self.requests_at_first_reply: int | None = None

    def __call__(self, body: dict) -> dict:
        if self.requests_at_first_reply is None:
            self.requests_at_first_reply = len(self.fake.requests)
        users = [m for m in body["messages"] if m["role"] == "user"]
        assert len(users) == 1  # one instruction per request
        ask = json.loads(users[0]["content"])
        tasks = {t["task_id"]: t for p in json.loads(SAMPLE.read_text()) for t in p.get("instructions", [])}
        field = "simple" if ask["instruction"] == tasks[ask["task_id"]].get("instruction_simple") else "full"
        self.seen.append((ask["task_id"], field))
        answers = self.script[(ask["task_id"], field)]
        answer = answers.pop(0) if len(answers) > 1 else answers[0]
        content = answer if isinstance(answer, str) else json.dumps({"task_id": ask["task_id"], **answer})
        return {"role": "assistant", "content": content}


@pytest.fixture()
def fake():
    f = FakeLLM()
    yield f
    f.close()


def annotate(fake, out, *extra, model="qwen-test"):
    return main(["data", "annotate-budgets", "--archive", str(out / "products.json"), "--base-url", fake.url,
                 "--model", model, "--out", str(out / "clean"), "--requests-per-minute", "60000",
                 "--backoff-s", "0", *extra])


@pytest.fixture()
def work(tmp_path):
    shutil.copy(SAMPLE, tmp_path / "products.json")
    return tmp_path


def test_plan_only_by_default_sends_nothing(fake, work, capsys):
    assert annotate(fake, work, "--json") == 0
    plan = json.loads(capsys.readouterr().out)
    assert fake.requests == [] and not (work / "clean").exists()
    assert (plan["persona_tasks"], plan["phase1_to_send"], plan["excluded"]) == (5, 5, 1)
    assert plan["first_request"]["messages"][1]["content"].startswith('{"task_id": 3538')


def test_run_annotates_builds_and_prepares(fake, work, capsys):
    model = fake.default = Model(fake, GOOD)
    fake.delay = 0.2  # slow: concurrency must not open before the first answer is saved
    fake.statuses = [200, 429]  # the second request is rate limited once
    fake.retry_after = "0"
    assert annotate(fake, work, "--run", "--workers", "3", "--eval-products", "7", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert model.requests_at_first_reply == 1
    assert report["rate_limited"] == 1 and report["failed"] == 0
    assert sorted(model.seen) == sorted([*GOOD, (1044, "simple")])  # 1044 is asked again after its malformed reply
    assert len(fake.requests) == len(model.seen) + 1  # and one request was refused with 429, then sent again
    assert [f for _, f in model.seen].count("full") == 1  # phase two only for 8120, whose simple request had none

    clean = work / "clean"
    manifest = json.loads((clean / "clean_dataset_manifest.v2.json").read_text())
    archive = clean / "products.cleaned.v2.json.gz"
    assert manifest["output_archive_sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()
    assert manifest["task_splits_sha256"] == hashlib.sha256((clean / "task_splits.cleaned.v2.json").read_bytes()).hexdigest()
    tasks = {t["task_id"]: t for p in json.loads(gzip.decompress(archive.read_bytes())) for t in p["instructions"]}
    assert tasks[5102]["price_upper"] == pytest.approx(1100.0) and tasks[5102]["price_upper_source"] == "annotation"
    assert tasks[8120]["price_upper"] == 50.0 and tasks[3538]["price_upper"] == 1200.0
    assert tasks[7001]["price_upper"] is None and "price_upper_source" not in tasks[7001]  # standard: runtime regex
    assert "731560284419" not in {p["asin"] for p in json.loads(gzip.decompress(archive.read_bytes()))}
    audit = {a["task_id"]: a for a in json.loads((clean / "persona_price_annotations.v2.json").read_text())["annotations"]}
    assert audit[8120]["source_field"] == "instruction" and audit[5102]["approximate_upper_multiplier"] == 1.1
    splits = json.loads((clean / "task_splits.cleaned.v2.json").read_text())
    assert splits["version"] == "shopsimulator-stable-task-splits-v2"
    assert splits["splits"]["persona_eval"] == {"task_ids": [3538, 2205, 5102], "persona": True}
    assert splits["splits"]["standard_eval"]["task_ids"] == [3538, 7002, 2205, 3307, 7001, 5102]

    n = len(fake.requests)  # a rerun finds every answer in the cache and sends nothing
    assert annotate(fake, work, "--run", "--eval-products", "7", "--json") == 0 and len(fake.requests) == n
    capsys.readouterr()

    prepared = work / "prepared"
    assert main(["data", "prepare", "--archive", str(archive), "--manifest", str(clean / "clean_dataset_manifest.v2.json"),
                 "--out", str(prepared), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verified"] is True
    runs = []
    for workers in ("1", "3"):
        assert main(["search-eval", "--data", str(prepared), "--split", "persona_eval", "--workers", workers,
                     "--per-task", "--json"]) == 0
        runs.append(json.loads(capsys.readouterr().out))
    assert runs[0] == runs[1] and runs[0]["tasks"] == 3
    assert sorted(runs[0]["gold_ranks"]) == ["2205", "3538", "5102"]


def test_non_verbatim_evidence_is_rejected_until_listed_for_the_runtime_regex(fake, work, capsys):
    script = {**GOOD, (2205, "simple"): [{"kind": "upper_bound", "amount": 100, "evidence": "预算一百元"}]}
    model = fake.default = Model(fake, script)
    assert annotate(fake, work, "--run", "--workers", "2", "--retries", "1") == 2
    err = capsys.readouterr().err
    assert "is not a verbatim substring" in err and err.strip().endswith("--runtime-regex-task-id")
    assert "shopsim: error: 1 persona annotations missing (e.g. 2205:instruction_simple)" in err
    assert model.seen.count((2205, "simple")) == 2  # the first try and one retry
    assert not (work / "clean" / "clean_dataset_manifest.v2.json").exists()
    assert annotate(fake, work, "--run", "--retries", "0", "--runtime-regex-task-id", "2205") == 0
    audit = {a["task_id"]: a for a in json.loads((work / "clean" / "persona_price_annotations.v2.json").read_text())["annotations"]}
    assert audit[2205]["kind"] == "runtime_regex_fallback" and audit[2205]["missing_source_field"] == "instruction_simple"
    assert model.seen.count((2205, "simple")) == 3  # asked once more; the others came from the cache


def test_a_failing_first_request_stops_everything(fake, work, capsys):
    fake.default = Model(fake, GOOD)
    fake.statuses = [401]
    assert annotate(fake, work, "--run", "--workers", "4") == 2
    err = capsys.readouterr().err
    assert err.startswith("shopsim: error: the first request (health check) failed") and "HTTP 401" in err
    assert len(fake.requests) == 1


def test_max_requests_one_is_a_trial_that_builds_nothing(fake, work, capsys):
    fake.default = Model(fake, GOOD)
    assert annotate(fake, work, "--run", "--max-requests", "1") == 0
    assert "4 still to ask" in capsys.readouterr().out and len(fake.requests) == 1
    assert not (work / "clean" / "clean_dataset_manifest.v2.json").exists()
    assert annotate(fake, work, "--json") == 0
    assert json.loads(capsys.readouterr().out)["cached_answers"] == 1


def test_cache_is_keyed_by_model(fake, work, capsys):
    fake.default = Model(fake, GOOD)
    assert annotate(fake, work, "--run", "--json") == 0
    capsys.readouterr()
    assert annotate(fake, work, "--json", model="another-model") == 0
    assert json.loads(capsys.readouterr().out)["cached_answers"] == 0


def test_rate_gate_one_cooldown_per_wave_then_half_rate():
    now = [0.0]
    slept: list[float] = []

    def sleep(s: float) -> None:
        slept.append(s)
        now[0] += s

    gate = RateGate(60, cooldown_s=65, clock=lambda: now[0], sleep=sleep)
    starts = [gate.wait_turn() for _ in range(3)]
    assert starts == [0.0, 1.0, 2.0]
    gate.rate_limited(started=1.0, retry_after=None)  # wave one: everyone waits 65 s
    gate.rate_limited(started=2.0, retry_after=None)  # the same wave: no second cool-down
    assert gate.waves == 1 and gate.wait_turn() == pytest.approx(67.0)
    gate.rate_limited(started=67.0, retry_after=10)  # a new wave: Retry-After, and half the rate
    assert gate.waves == 2 and gate.interval == 2.0
    assert gate.wait_turn() == pytest.approx(77.0) and gate.wait_turn() == pytest.approx(79.0)


@pytest.mark.parametrize("flag, value", [("--timeout-s", "-1"), ("--timeout-s", "0"), ("--backoff-s", "-5"),
                                         ("--cooldown-s", "-1"), ("--cooldown-s", "nan"),
                                         ("--rate-limit-retries", "-2")])
def test_negative_waits_and_timeouts_are_one_line_before_anything_is_sent(fake, work, capsys, flag, value):
    code = main(["data", "annotate-budgets", "--archive", str(work / "products.json"), "--base-url", fake.url,
                 "--model", "m", "--out", str(work / "clean"), "--run", flag, value])
    assert code == 2 and fake.requests == []
    err = capsys.readouterr().err
    assert flag in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_an_answer_missing_a_field_but_carrying_another_is_rejected_not_a_crash(fake, work, capsys):
    """``{"task_id", "kind", "amount", "note"}`` lacks evidence: rejected like any incomplete answer."""
    script = {**GOOD, (2205, "simple"): [{"kind": "upper_bound", "amount": 100, "note": "50到100元"}]}
    fake.default = Model(fake, script)
    assert annotate(fake, work, "--run", "--workers", "2", "--retries", "0") == 2
    err = capsys.readouterr().err
    assert "failed 2205:instruction_simple: not an object with task_id, kind, amount, evidence" in err
    assert "Traceback" not in err and "KeyError" not in err
