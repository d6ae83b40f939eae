"""``shopsim serve --log-dir``: WebShop's ``user_session_logs`` format, one flushed line per page, safe file
names; a real server on 127.0.0.1 driven through a whole session."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from _session_drive import drive_session
from conftest import SMALL, ServerThread, read_jsonl

from shopsim import routes
from shopsim.cli import build_parser
from shopsim.cli.serve import build_app
from shopsim.simsite.goals import goal_dict
from shopsim.simsite.session_log import log_file_name
from shopsim.simsite.shop import Shop

GOAL_KEYS = ["asin", "category", "query", "name", "product_category", "instruction_text", "attributes", "price_upper",
             "goal_options", "weight"]
#: The keys of each page's line, in order, as WebShop's recorded MTurk logs have them.
LINE_KEYS = {"index": ["page", "url", "goal"], "search_results": ["page", "url", "goal", "content"],
             "item_page": ["page", "url", "goal", "content"], "item_sub_page": ["page", "url", "goal", "content"],
             "done": ["page", "url", "goal", "content", "reward", "reward_info"]}
CONTENT_KEYS = {"search_results": ["keywords", "search_result_asins", "page"],
                "item_page": ["keywords", "page", "asin", "options"],
                "item_sub_page": ["keywords", "page", "asin", "options"], "done": ["asin", "options", "price"]}


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[httpx.Client, Shop, Path, str]]:
    logs = tmp_path_factory.mktemp("logs") / "sessions"  # created by the server
    app, _ = build_app(build_parser().parse_args(["serve", "--log-dir", str(logs)]))
    with ServerThread(app) as srv, httpx.Client(base_url=srv.base_url, timeout=30) as client:
        yield client, app.state.shop, logs, srv.base_url


def test_a_session_is_logged_page_by_page_in_webshops_format(served) -> None:
    client, shop, logs, base = served
    drive = drive_session(client, shop, 2, "fixed_2", base)
    lines = read_jsonl(logs / "fixed_2.jsonl")
    assert [x["page"] for x in lines] == drive.pages
    assert all(list(x) == LINE_KEYS[x["page"]] for x in lines)
    assert all(list(x["content"]) == CONTENT_KEYS[x["page"]] for x in lines if "content" in x)
    assert all(x["goal"] == goal_dict(shop.goals[2]) and list(x["goal"]) == GOAL_KEYS for x in lines)
    assert isinstance(lines[0]["goal"]["goal_options"], list) and lines[0]["goal"]["weight"] == 1  # a human goal
    assert lines[0]["url"] == f"{base}/fixed_2"
    assert lines[1]["content"]["keywords"] == ["nail", "polish"] and lines[1]["content"]["page"] == 1
    assert lines[4]["url"] == f"{base}/search_results/fixed_2/blue+color/2" and lines[4]["content"]["page"] == 2
    assert lines[4] == lines[5]  # the reload is a line, as in WebShop
    item = lines[7]
    assert item["url"] == base + routes.item_path("fixed_2", drive.asin, ["blue", "color"], 2, drive.options)
    assert item["content"] == {"keywords": "blue+color", "page": "2", "asin": drive.asin, "options": drive.options}
    done = lines[-1]
    assert done["content"] == {"asin": drive.asin, "options": drive.options, "price": shop.prices[drive.asin]}
    assert done["reward"] == drive.reward
    assert list(done["reward_info"]) == ["r_type", "r_att", "w_att", "query_match", "category_match", "title_score",
                                         "r_option", "w_option", "r_price", "w_price"]


def test_line_shapes_equal_webshops_recorded_logs() -> None:
    folder = SMALL / "human_trajectories"
    if not folder.is_dir():
        pytest.skip(f"WebShop's recorded human trajectories are not at {folder}")
    recorded = [x for f in sorted(folder.glob("*.jsonl")) for x in read_jsonl(f)]
    assert len(recorded) == 627
    assert {x["page"]: list(x) for x in recorded} == LINE_KEYS
    assert {x["page"]: list(x["content"]) for x in recorded if "content" in x} == CONTENT_KEYS
    assert {tuple(x["goal"]) for x in recorded} == {tuple(GOAL_KEYS)}


def test_each_line_is_on_disk_when_the_page_is_served_and_nothing_after_the_purchase(served) -> None:
    client, shop, logs, _ = served
    path = logs / "fixed_4.jsonl"
    asin = shop.goals[4].asin
    assert client.get("/fixed_4").status_code == 200
    assert len(path.read_text().splitlines()) == 1
    assert client.get(routes.item_path("fixed_4", asin, ["x"], 1, {})).status_code == 200
    assert len(path.read_text().splitlines()) == 2
    assert client.get(routes.done_path("fixed_4", asin, {})).status_code == 200
    logged = path.read_bytes()
    assert [json.loads(x)["page"] for x in logged.splitlines()] == ["index", "item_page", "done"]
    # WebShop drops the session's logger on done: re-opening it and buying again are served, not logged
    assert client.get("/fixed_4").status_code == 200
    assert client.get(routes.done_path("fixed_4", asin, {})).status_code == 200
    assert path.read_bytes() == logged


def test_a_new_server_starts_a_sessions_file_afresh(tmp_path: Path) -> None:
    """WebShop's ``setup_logger`` opens ``<session>.jsonl`` with mode 'w' when it first sees the session."""
    (tmp_path / "fixed_9.jsonl").write_text('{"old": 1}\n' * 3)
    app, _ = build_app(build_parser().parse_args(["serve", "--log-dir", str(tmp_path)]))
    with ServerThread(app) as srv, httpx.Client(base_url=srv.base_url, timeout=30) as client:
        assert client.get("/fixed_9").status_code == 200
        assert client.get("/fixed_9").status_code == 200
    assert [x["page"] for x in read_jsonl(tmp_path / "fixed_9.jsonl")] == ["index", "index"]


def test_session_ids_never_name_a_path_outside_the_folder(served) -> None:
    client, _, logs, base = served
    assert log_file_name("20220427_1_12") == "20220427_1_12.jsonl"
    for sid in ("..", ".hidden", "../../etc/passwd", "a/b", "a\\b", "x" * 300, "nul\x00"):
        name = log_file_name(sid)
        assert name.startswith("~") and name.endswith(".jsonl") and len(name) == 31 and "/" not in name
    before = set(os.listdir(logs.parent))
    for sid in (".hidden", "..."):
        assert client.get(f"/{sid}").status_code == 200
        lines = read_jsonl(logs / log_file_name(sid))
        assert [x["url"] for x in lines] == [f"{base}/{sid}"]
    assert client.get("/%2E%2E%2Fescape").status_code == 404  # decoded, it is two segments: no session route
    assert client.get("/escape%20me").status_code == 400  # not a session id: refused, not logged
    assert set(os.listdir(logs.parent)) == before
    assert not any(n.startswith(".") or "escape" in n for n in os.listdir(logs))


def test_a_symlink_in_the_folder_is_not_followed(served, tmp_path: Path) -> None:
    client, _, logs, _ = served
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me\n")
    (logs / "fixed_7.jsonl").symlink_to(outside)
    assert client.get("/fixed_7").status_code == 200  # the page is served; the line is not written through the link
    assert outside.read_text() == "keep me\n"
