"""Skill context for the assisted conditions: ``shopsim eval --agent llm --skills FILE``.

The file's text joins the system context of every request (guidance, not the task or the page),
and the run metadata records which file it was (path and SHA-256); a file that cannot serve is
refused in one line before anything runs.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from _fake_llm import FakeLLM, call, reply
from conftest import SHARED

from shopsim.agents.llm import LLMAgent
from shopsim.agents.skills import MAX_SKILL_BYTES
from shopsim.cli import main
from shopsim.errors import ConfigError

SAMPLE = SHARED / "data" / "shopsim-sample" / "products.json"
SKILL = "# 规格核对\n\n先确认每个规格轴都选好，再看 selected_price 是否在预算内，最后才点 buy now。\n"


@pytest.fixture()
def fake() -> Iterator[FakeLLM]:
    server = FakeLLM()
    yield server
    server.close()


def _eval(fake: FakeLLM, out: Path, *extra: str) -> int:
    return main(["eval", "--profile", "shopsim-v8", "--data", str(SAMPLE), "--agent", "llm", "--goals", "0",
                 "--agent-option", f"base_url={fake.url}", "--agent-option", "model=scripted",
                 "--out", str(out), *extra])


def test_eval_sends_the_skill_text_and_records_the_file(fake: FakeLLM, tmp_path: Path, capsys) -> None:
    if not SAMPLE.exists():
        pytest.skip(f"the v8 dev kit is not at {SAMPLE}")
    skill = tmp_path / "verify-options.md"
    skill.write_text(SKILL, encoding="utf-8")
    fake.script = [reply(call("search", {"query": "收纳盒"}))]
    fake.default = lambda body: {**reply(content="..."), "finish_reason": "length"}
    assert _eval(fake, tmp_path / "run", "--skills", str(skill)) == 0
    systems = [body["messages"][0]["content"] for body in fake.requests]
    assert len(systems) == 2 and all(SKILL.strip() in s for s in systems)
    assert all(SKILL.strip() not in (m["content"] or "") for body in fake.requests for m in body["messages"][1:])
    run = json.loads((tmp_path / "run" / "summary.json").read_text())["run"]
    assert run["skills"] == {"path": str(skill.resolve()), "sha256": hashlib.sha256(skill.read_bytes()).hexdigest(),
                             "bytes": len(skill.read_bytes())}
    assert run["agent_options"]["skills"] == str(skill)

    fake.requests.clear()  # the skill-free condition: no skill text, no skills record
    fake.script = [reply(call("search", {"query": "收纳盒"}))]
    assert _eval(fake, tmp_path / "plain") == 0
    assert SKILL.strip() not in fake.requests[0]["messages"][0]["content"]
    assert "skills" not in json.loads((tmp_path / "plain" / "summary.json").read_text())["run"]
    capsys.readouterr()


def test_the_constructor_takes_a_skill_file(fake: FakeLLM, tmp_path: Path) -> None:
    skill = tmp_path / "s.txt"
    skill.write_text(SKILL, encoding="utf-8")
    agent = LLMAgent(base_url=fake.url, model="scripted", skills=skill)
    assert agent.skills is not None and agent.skills.sha256 == hashlib.sha256(SKILL.encode()).hexdigest()
    assert agent.messages()[0]["content"].endswith(SKILL.strip())
    with pytest.raises(ConfigError, match="no such file"):
        LLMAgent(base_url=fake.url, model="scripted", skills=tmp_path / "missing.md")


@pytest.mark.parametrize("case", ["missing", "folder", "huge", "binary", "empty", "blank path"])
def test_a_bad_skill_file_is_one_line_and_a_nonzero_exit(fake: FakeLLM, tmp_path: Path, capsys, case: str) -> None:
    if not SAMPLE.exists():
        pytest.skip(f"the v8 dev kit is not at {SAMPLE}")
    path = tmp_path / "skill.md"
    if case == "folder":
        path.mkdir()
    elif case == "huge":
        path.write_text("x" * (MAX_SKILL_BYTES + 1))
    elif case == "binary":
        path.write_bytes(b"\xff\xfe\x00skill")
    elif case == "empty":
        path.write_text("  \n")
    assert _eval(fake, tmp_path / "run", "--skills", " " if case == "blank path" else str(path)) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--skills" in err and "Traceback" not in err
    assert fake.requests == [] and not (tmp_path / "run").exists()  # refused before anything ran
