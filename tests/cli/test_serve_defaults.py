"""``shopsim serve`` with WebShop's app defaults: human goals when the data has them, ``/`` -> ``/abc``,
sessions that keep their goal across re-opening and purchases; served on 127.0.0.1 for real."""

from __future__ import annotations

import json
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from conftest import SMALL, ServerThread, needs_small
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from shopsim import routes
from shopsim.agents.demos import goal_text
from shopsim.cli import build_parser, main
from shopsim.cli.serve import build_app, data_has_human_goals
from shopsim.simsite.catalog import default_catalog_dir
from shopsim.simsite.goals import goal_dict
from shopsim.simsite.shop import Shop, ShopConfig


def _instruction(html: str) -> str:
    node = HTMLParser(html).css_first("#instruction-text h4")
    assert node is not None, html[-500:]
    return node.text().strip().removeprefix("Instruction:").strip()


def _serve(argv: list[str]) -> tuple[ServerThread, Shop, str]:
    app, banner = build_app(build_parser().parse_args(["serve", *argv]))
    return ServerThread(app), app.state.shop, banner


@pytest.fixture(scope="module")
def human_served() -> Iterator[tuple[str, Shop, str]]:
    srv, shop, banner = _serve([])
    with srv:
        yield srv.base_url, shop, banner


def test_bundled_catalog_serves_human_goals_by_default(human_served, bundled_shop) -> None:
    base, shop, banner = human_served
    human = Shop.from_config(ShopConfig(human_goals=True))
    assert banner.startswith("shopsim: serving profile webshop: 600 products and 30 human goals on http://127.0.0.1:3000/")
    assert [g.instruction_text for g in shop.goals] == [g.instruction_text for g in human.goals]
    with httpx.Client(base_url=base, timeout=30) as c:
        for n in (0, 7, 29):
            r = c.get(f"/fixed_{n}")
            assert r.status_code == 200 and _instruction(r.text) == human.goals[n].instruction_text
        r = c.get("/fixed_30")
        assert r.status_code == 404 and "goal 30 does not exist: this shop has 30 goals" in r.text
    assert human.goals[0].instruction_text != bundled_shop.goals[0].instruction_text  # synthetic goal 0 differs


def test_synthetic_goals_flag_switches_back(bundled_shop) -> None:
    srv, _, banner = _serve(["--synthetic-goals"])
    assert "600 products and 1859 synthetic goals" in banner
    with srv, httpx.Client(base_url=srv.base_url, timeout=30) as c:
        r = c.get("/fixed_3")
        assert r.status_code == 200 and _instruction(r.text) == bundled_shop.goals[3].instruction_text


@needs_small
def test_webshop_small_set_serves_its_13_human_goals() -> None:
    srv, shop, banner = _serve(["--data", str(SMALL)])
    assert "1000 products and 13 human goals" in banner
    webshop_goals = set(json.loads((SMALL / "human_goals.json").read_text()))  # WebShop's own human goal texts
    with srv, httpx.Client(base_url=srv.base_url, timeout=30) as c:
        r = c.get("/fixed_12")
        assert r.status_code == 200 and _instruction(r.text) == shop.goals[12].instruction_text
    assert all(goal_text(g.instruction_text) in webshop_goals for g in shop.goals)


def test_data_without_human_instructions_serves_synthetic_goals(tmp_path: Path) -> None:
    for name in ("shop_items.json", "shop_attributes.json"):
        shutil.copy(default_catalog_dir() / name, tmp_path / name)
    assert data_has_human_goals(tmp_path) is False and data_has_human_goals(None) is True
    _, shop, banner = _serve(["--data", str(tmp_path)])
    assert "600 products and 1859 synthetic goals" in banner and isinstance(shop.goals[0].goal_options, dict)


def test_home_redirects_to_webshops_default_session(human_served) -> None:
    base, shop, _ = human_served
    with httpx.Client(base_url=base, timeout=30) as c:
        r = c.get("/", follow_redirects=False)
        assert r.status_code == 302 and r.headers["location"] == "/abc"
        first = _instruction(c.get("/abc").text)
        assert first in {g.instruction_text for g in shop.goals}
        assert _instruction(c.get("/", follow_redirects=True).text) == first  # one session, one goal


def test_reopened_and_rebought_session_keeps_its_goal(human_served) -> None:
    """WebShop keeps ``user_sessions[id]`` for the server's life: re-opening ``fixed_5`` after buying is
    goal 5 again, and a second purchase is scored against it (WebShop's ``done`` scores every call)."""
    base, shop, _ = human_served
    goal = shop.goals[5]
    cheap, other = goal.asin, next(p.asin for p in shop.product_list if p.asin != goal.asin and p.query != goal.query)
    with httpx.Client(base_url=base, timeout=30) as c:
        first = c.get(routes.done_path("fixed_5", cheap, {}))
        assert first.status_code == 200 and "Your score (min 0.0, max 1.0)" in first.text
        r = c.get("/fixed_5")
        assert r.status_code == 200 and _instruction(r.text) == goal.instruction_text
        second = c.get(routes.done_path("fixed_5", other, {}))
        assert second.status_code == 200
        again = c.get(routes.done_path("fixed_5", cheap, {}))
    score = HTMLParser(first.text).css_first("#reward pre").text()
    assert HTMLParser(again.text).css_first("#reward pre").text() == score
    assert HTMLParser(second.text).css_first("#reward pre").text() != score


@pytest.mark.parametrize(("argv", "words"), [
    (["--human-goals", "--synthetic-goals"], "--human-goals and --synthetic-goals exclude each other"),
    (["--profile", "shopsim-v8", "--synthetic-goals"], "--synthetic-goals is a webshop option"),
    (["--profile", "shopsim-v8", "--log-dir", "x"], "--log-dir records WebShop's HTML sessions"),
])
def test_bad_goal_options_are_one_line(argv: list[str], words: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_real_serve_process_logs_human_goal_sessions(tmp_path: Path) -> None:
    port, logs = _free_port(), tmp_path / "logs"
    exe = Path(sys.executable).with_name("shopsim")
    out = tmp_path / "serve.out"
    with open(out, "wb") as f:
        proc = subprocess.Popen([str(exe), "serve", "--port", str(port), "--log-dir", str(logs),
                                 "--runs", str(tmp_path / "runs")], stdout=f, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/fixed_1", timeout=2)
                break
            except httpx.HTTPError:
                assert proc.poll() is None and time.monotonic() < deadline, out.read_text()
                time.sleep(0.1)
        assert r.status_code == 200
        lines = (logs / "fixed_1.jsonl").read_text().splitlines()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=20)
    human = Shop.from_config(ShopConfig(human_goals=True))
    assert [json.loads(x) for x in lines] == [{"page": "index", "url": f"http://127.0.0.1:{port}/fixed_1",
                                               "goal": goal_dict(human.goals[1])}]
    assert f"30 human goals on http://127.0.0.1:{port}/ (API docs: /api/docs; session logs in {logs}/" in out.read_text()
