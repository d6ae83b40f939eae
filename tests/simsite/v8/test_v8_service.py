"""The served v8 profile over real HTTP: the dev kit's checker, the slot queue, errors as JSON."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from conftest import SHARED

from shopsim.simsite.server import ServerThread

SAMPLE = SHARED / "data" / "shopsim-sample"
needs_sample = pytest.mark.skipif(not (SAMPLE / "products.json").exists(),
                                  reason=f"the v8 dev kit is not at {SAMPLE} (it lives in ../shared)")


@pytest.fixture(scope="module")
def sample_shop():
    if not (SAMPLE / "products.json").exists():
        pytest.skip(f"the v8 dev kit is not at {SAMPLE}")
    from shopsim.simsite.v8.shop import V8Shop

    return V8Shop.load(SAMPLE / "products.json")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@needs_sample
@pytest.mark.slow
def test_dev_kit_checker_passes_against_shopsim_serve(tmp_path):
    """What a ShopSimulator user runs: the CLI server, then the kit's checker over HTTP."""
    port = _free_port()
    exe = Path(sys.executable).with_name("shopsim")
    server = subprocess.Popen([str(exe), "serve", "--profile", "shopsim-v8", "--data", str(SAMPLE / "products.json"),
                               "--port", str(port), "--slots", "2", "--runs", str(tmp_path)],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120  # a hang guard: load, index and the start-up warm-up, on busy cores
        while True:
            try:
                if httpx.get(f"{base}/api/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            assert server.poll() is None, server.stdout.read() if server.stdout else "server exited"
            assert time.monotonic() < deadline, "the server did not come up"
            time.sleep(0.2)
        out = subprocess.run([sys.executable, str(SAMPLE / "check.py"), "--base", base, "--cases",
                              str(SAMPLE / "cases.jsonl")], capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stdout + out.stderr
        assert "22 passed, 0 failed" in out.stdout
        env = httpx.get(f"{base}/api/environment").json()
        assert env["environment_version"] == "shopsimulator-paper-aligned-v8"
        replay = httpx.get(f"{base}/replay-ui/data/runs").json()  # serve --runs DIR mounts /replay-ui over it
        assert replay["root"] == str(tmp_path) and replay["runs"] == []
        assert httpx.get(f"{base}/replay-ui").status_code == 200
    finally:
        server.terminate()
        server.wait(timeout=20)
        if server.stdout:
            server.stdout.close()


@needs_sample
def test_prepared_folder_excludes_two_axis_product_and_checker_skips_its_case(tmp_path, sample_shop):
    from shopsim.simsite.v8.service import create_v8_app
    from shopsim.simsite.v8.shop import V8Shop
    from shopsim.simsite.v8.store import prepare_v8

    report = prepare_v8(SAMPLE / "products.json", tmp_path / "prep", verify=False)
    assert (report["products_in"], report["products"], report["excluded"]) == (12, 11, 1)
    shop = V8Shop.load(tmp_path / "prep")
    assert shop.product("731560284419") is None
    with ServerThread(create_v8_app(shop)) as srv:
        out = subprocess.run([sys.executable, str(SAMPLE / "check.py"), "--base", srv.base_url, "--cases",
                              str(SAMPLE / "cases.jsonl")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout
    assert "21 passed, 0 failed" in out.stdout and "SKIP dev-two-axis-unverifiable" in out.stdout


@needs_sample
def test_prepared_folder_refuses_altered_products(tmp_path):
    from shopsim.errors import DataError
    from shopsim.simsite.v8.shop import V8Shop
    from shopsim.simsite.v8.store import prepare_v8

    prepare_v8(SAMPLE / "products.json", tmp_path / "prep", verify=False)
    products = tmp_path / "prep" / "products.json.gz"
    products.write_bytes(products.read_bytes() + b"\0")
    with pytest.raises(DataError, match="altered"):
        V8Shop.load(tmp_path / "prep")


@needs_sample
def test_prepare_verifies_checksums(tmp_path):
    from shopsim.errors import DataError
    from shopsim.simsite.v8.store import prepare_v8

    manifest = tmp_path / "m.json"
    manifest.write_text('{"archive_sha256": "' + "0" * 64 + '"}')
    with pytest.raises(DataError, match="archive_sha256 is"):
        prepare_v8(SAMPLE / "products.json", tmp_path / "out", manifest=manifest)


@pytest.fixture()
def one_slot_server(sample_shop):
    from shopsim.simsite.v8.service import create_v8_app

    with ServerThread(create_v8_app(sample_shop, slots=1, queue_timeout_s=1.5)) as srv:
        yield srv.base_url


def test_full_pool_queues_fairly_then_times_out(one_slot_server):
    base = one_slot_server
    first = httpx.post(f"{base}/api/sessions", json={"task_id": 3538}).json()
    assert first["env_idx"] == 0
    got: dict[str, dict] = {}

    def waiter(name: str, delay: float) -> None:
        time.sleep(delay)
        r = httpx.post(f"{base}/api/sessions", json={"task_id": 7001}, timeout=10)
        got[name] = {"status": r.status_code, "at": time.monotonic(), **r.json()}

    threads = [threading.Thread(target=waiter, args=("a", 0.0)), threading.Thread(target=waiter, args=("b", 0.3))]
    for t in threads:
        t.start()
    time.sleep(0.6)
    assert not got, "no session may be created while the only slot is leased"
    assert httpx.delete(f"{base}/api/sessions/{first['lease_id']}").status_code == 204
    for t in threads:
        t.join()
    assert got["a"]["status"] == 201 and got["a"]["env_idx"] == 0  # first come, first served
    assert got["b"]["status"] == 503 and got["b"]["code"] == "no_free_slot"  # never a 429


def test_errors_are_json_with_codes(one_slot_server):
    base = one_slot_server
    cases = [
        (httpx.post(f"{base}/api/sessions", content=b"{"), 400, "malformed_json"),
        (httpx.post(f"{base}/api/sessions", content=b'{"task_id": NaN}'), 400, "malformed_json"),
        (httpx.post(f"{base}/api/sessions", content="\ufeff{}".encode()), 400, "malformed_json"),
        (httpx.post(f"{base}/api/sessions", json=[1]), 400, "malformed_json"),
        (httpx.post(f"{base}/api/sessions", json={"task_id": "x"}), 422, "invalid_body"),
        (httpx.post(f"{base}/api/sessions", json={"task_id": 1}), 404, "unknown_task"),
        (httpx.post(f"{base}/api/sessions", content=b"[" * 100_000), 413, "body_too_large"),
        (httpx.post(f"{base}/api/sessions/nope/step", json={"action": "search[x]"}), 404, "unknown_lease"),
        (httpx.get(f"{base}/api/nothing"), 404, "not_found"),
    ]
    for r, status, code in cases:
        assert (r.status_code, r.json()["code"]) == (status, code), r.text
    lease = httpx.post(f"{base}/api/sessions", json={"task_id": 1044, "max_actions": 1}).json()["lease_id"]
    tool = httpx.post(f"{base}/api/sessions/{lease}/step", json={"tool": "search", "arguments": {"query": "bamboo"}})
    assert tool.status_code == 200 and tool.json()["observation_state"]["search_text"] == "bamboo"
    assert tool.json()["termination"] == "action_limit"
    again = httpx.post(f"{base}/api/sessions/{lease}/step", json={"action": "click[back to search]"})
    assert (again.status_code, again.json()["code"]) == (409, "episode_over")
    httpx.delete(f"{base}/api/sessions/{lease}")


def test_private_instruction_only_when_asked(one_slot_server):
    base = one_slot_server
    plain = httpx.post(f"{base}/api/sessions", json={"task_id": 3538}).json()
    assert "private_task_instruction" not in plain and plain["user_persona"] is not None
    httpx.delete(f"{base}/api/sessions/{plain['lease_id']}")
    asked = httpx.post(f"{base}/api/sessions", json={"task_id": 3538, "include_private": True}).json()
    assert asked["private_task_instruction"].startswith("我想买一台可移动的不锈钢小吃车")
    httpx.delete(f"{base}/api/sessions/{asked['lease_id']}")


def test_slot_pool_hands_slots_in_arrival_order():
    from shopsim.simsite.v8.slots import SlotPool, SlotTimeout

    async def scenario() -> list[object]:
        pool = SlotPool(2)
        a, b = await pool.acquire(1), await pool.acquire(1)
        order: list[object] = []

        async def wait(name: str) -> None:
            try:
                order.append((name, await pool.acquire(0.5)))
            except SlotTimeout:
                order.append((name, "timeout"))

        tasks = [asyncio.create_task(wait(n)) for n in ("x", "y", "z")]
        await asyncio.sleep(0.05)
        pool.release(b)
        pool.release(a)
        await asyncio.gather(*tasks)
        return order

    # A thread of its own: Playwright's sync API may have left an event loop running in this one.
    with ThreadPoolExecutor(1) as ex:
        assert ex.submit(asyncio.run, scenario()).result() == [("x", 1), ("y", 0), ("z", "timeout")]


def test_run_viewer_serves_v8_runs(tmp_path, sample_shop):
    """A v8 eval run, browsed through the v8 service's /runs viewer (report, episode, terminations)."""
    from shopsim.agents.evaluation.config import EvalConfig
    from shopsim.agents.evaluation.runner import run_eval
    from shopsim.simsite.v8.service import create_v8_app

    out = tmp_path / "runs" / "v8-heuristic"
    cfg = EvalConfig(agent="heuristic", data=str(SAMPLE / "products.json"), goals=list(range(10)), out=str(out),
                     max_steps=30, profile="shopsim-v8")
    summary, extra = run_eval(cfg, progress=False)
    assert summary.episodes == 10 and extra["environment_version"] == "shopsimulator-paper-aligned-v8"
    assert sum(extra["terminations"].values()) == 10
    from shopsim.agents.reports.viewer import viewer_routes

    with ServerThread(create_v8_app(sample_shop, extra_routes=viewer_routes(tmp_path / "runs"))) as srv:
        listing = httpx.get(f"{srv.base_url}/runs")
        report = httpx.get(f"{srv.base_url}/runs/v8-heuristic")
        episode = httpx.get(f"{srv.base_url}/runs/v8-heuristic/episodes/0")
    assert listing.status_code == 200 and "v8-heuristic" in listing.text
    assert report.status_code == 200 and "How episodes ended" in report.text
    assert episode.status_code == 200 and "search[" in episode.text
