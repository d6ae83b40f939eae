"""Session snapshots: branch one state into several rollouts, byte for byte equal to straight replays.

Real shops (the bundled catalog, WebShop's real small set when ../shared has it, the v8 sample), a
real server on 127.0.0.1 for the JSON API and ``HttpSource``, seeded random policies.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import shutil
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from shopsim.adapters.browser_source import BrowserSource
from shopsim.adapters.env import ShopEnv
from shopsim.adapters.replay import ReplaySource
from shopsim.adapters.sources import HttpSource, InProcessSource
from shopsim.errors import ConfigError
from shopsim.render import render_rich
from shopsim.simsite.server import ServerThread
from shopsim.simsite.session import ShopSession
from shopsim.simsite.shop import Shop, ShopConfig
from shopsim.simsite.snapshots import MAX_TOKEN_CHARS, TOKEN_PREFIX, SnapshotError, decode, shop_fingerprint
from shopsim.simsite.web import create_app

ROOT = Path(__file__).resolve().parents[2]
BRANCHES = 3


def _policy_action(rng: random.Random, info: dict[str, Any], buy: bool = True) -> str:
    """A seeded random policy over the page's valid actions (a search uses the instruction's words)."""
    va = info["valid_actions"]
    clicks = [c for c in va["clickables"] if c != "search" and (buy or c != "buy now")]
    if va["has_search_bar"] and (not clicks or rng.random() < 0.5):
        words = info["instruction"].lower().split()
        return f"search[{' '.join(rng.sample(words, min(4, len(words))))}]"
    return f"click[{rng.choice(clicks)}]"


def _rollout(env: ShopEnv, info: dict[str, Any], seed: int, steps: int,
             buy: bool = True) -> tuple[list[str], list[tuple]]:
    """Step ``env`` with a seeded policy; the actions and every output as bytes-comparable tuples."""
    rng = random.Random(seed)
    actions, outputs = [], []
    for _ in range(steps):
        action = _policy_action(rng, info, buy)
        obs, reward, terminated, truncated, info = env.step(action)
        actions.append(action)
        state = info["page_state"]
        outputs.append((obs, render_rich(state), reward, terminated, truncated,
                        state.model_dump_json(), json.dumps(info["reward_info"], sort_keys=True)))
        if terminated or truncated:
            break
    return actions, outputs


def _branch_and_replay(shop: Any, goal: int, *, prefix_steps: int = 4, mode: str = "text", **kw: Any) -> None:
    """Snapshot after a prefix, run BRANCHES rollouts from it, compare each to a replay from reset."""
    env = ShopEnv(shop, observation_mode=mode, **kw)  # type: ignore[arg-type]
    _, info = env.reset(seed=0, options={"goal": goal})
    prefix, outputs = _rollout(env, info, seed=1000 + goal, steps=prefix_steps, buy=False)
    token = env.snapshot()
    before = (outputs[-1][0], env.state)
    seen = set()
    for b in range(BRANCHES):
        branch = ShopEnv(shop, observation_mode=mode, **kw)  # type: ignore[arg-type]
        obs, info = branch.restore(token)
        assert (obs, info["page_state"]) == before and info["goal_index"] == goal
        _, got = _rollout(branch, info, seed=b, steps=12)

        straight = ShopEnv(shop, observation_mode=mode, **kw)  # type: ignore[arg-type]
        _, sinfo = straight.reset(seed=0, options={"goal": goal})
        for action in prefix:
            straight.step(action)
        _, want = _rollout(straight, {**sinfo, **_info_now(straight)}, seed=b, steps=12)
        assert got == want, f"branch {b} differs from its straight replay"
        seen.add(tuple(o[0] for o in got))
    assert len(seen) > 1, "the branches should explore different continuations"


def _info_now(env: ShopEnv) -> dict[str, Any]:
    assert env.state is not None
    return {"valid_actions": env.state.valid_actions(), "instruction": env.state.instruction}


# ---- in-process branching -------------------------------------------------------------------------
@pytest.mark.parametrize("goal", [0, 7, 42])
def test_branches_equal_straight_replays_bundled(bundled_shop: Shop, goal: int) -> None:
    _branch_and_replay(bundled_shop, goal)


def test_branches_equal_straight_replays_real_small_set(small_shop: Shop) -> None:
    for goal in (0, 123):
        _branch_and_replay(small_shop, goal, prefix_steps=3)


@pytest.mark.parametrize("mode", ["text_rich", "url", "html"])
def test_branches_in_every_text_mode(bundled_shop: Shop, mode: str) -> None:
    _branch_and_replay(bundled_shop, 11, mode=mode)


def test_strict_and_action_limit_travel_in_the_token(bundled_shop: Shop) -> None:
    _branch_and_replay(bundled_shop, 3, strict=True, max_steps=6)
    env = ShopEnv(bundled_shop, max_steps=3)
    env.reset(options={"goal": 3})
    env.step("search[shoes]")
    env.step("click[next >]")
    token = env.snapshot()
    other = ShopEnv(bundled_shop)  # no limit of its own: the token's limit of 3 holds
    other.restore(token)
    _, reward, terminated, truncated, info = other.step("click[next >]")
    assert (reward, terminated, truncated, info["feedback"].code) == (0.0, False, True, "action_limit")


def test_done_and_refused_states_restore_exactly(bundled_shop: Shop) -> None:
    goal = bundled_shop.goals[5]
    s = ShopSession(bundled_shop, goal, "5", goal_index=5)
    s.step(f"search[{goal.instruction_text}]")
    s.step("click[nothing like this]")  # refused: the feedback is part of the state
    refused = ShopSession.from_snapshot(bundled_shop, s.snapshot())
    assert refused.state == s.state and refused.state.feedback.code == "not_available"
    s.show("item_page", keywords=s.state.keywords, page_num=1, asin=goal.asin)
    result = s.step("click[buy now]")
    assert result.done
    done = ShopSession.from_snapshot(bundled_shop, s.snapshot())
    assert done.state == s.state and done.breakdown == s.breakdown and done.done
    assert done.step("click[back to search]").state.feedback.code == "episode_done"


def test_restore_in_place_keeps_id_and_takes_goal(bundled_shop: Shop) -> None:
    a = ShopSession(bundled_shop, bundled_shop.goals[1], "a", goal_index=1)
    a.step("search[red dress]")
    b = ShopSession(bundled_shop, bundled_shop.goals[2], "b", goal_index=2)
    state = b.restore(a.snapshot())
    assert b.session_id == "b" and b.goal_index == 1 and b.goal == a.goal
    assert render_rich(state) == render_rich(a.state) and "/b/" in (state.url or "")


def test_session_without_index_finds_its_goal(bundled_shop: Shop) -> None:
    s = ShopSession(bundled_shop, bundled_shop.goals[9], "9")
    assert decode(s.snapshot(), bundled_shop).goal_index == 9  # type: ignore[union-attr]


def test_in_process_source(bundled_shop: Shop) -> None:
    _branch_and_replay(bundled_shop, 4, source=InProcessSource(bundled_shop))


# ---- v8 ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def v8_shop() -> Any:
    from shopsim.simsite.v8.shop import V8Shop

    return V8Shop.load()


def test_v8_branches_equal_straight_replays(v8_shop: Any) -> None:
    for goal in (0, 3):
        _branch_and_replay(v8_shop, goal, prefix_steps=3)


def test_v8_terminal_and_task_mode_restore(v8_shop: Any) -> None:
    persona = next((i for i, t in enumerate(v8_shop.goals) if t.user_persona is not None), None)
    goal = persona if persona is not None else 0
    mode = "persona" if persona is not None else "standard"
    env = ShopEnv(v8_shop, task_mode=mode, max_steps=2)
    env.reset(options={"goal": goal})
    env.step("search[x]")
    env.step("click[back to search]")  # the second action reaches the limit of 2
    token = env.snapshot()
    obs, info = ShopEnv(v8_shop).restore(token)
    assert obs == env.render() and info["termination"] == "action_limit" and info["task_mode"] == mode


def test_v8_token_refused_by_webshop_shop(v8_shop: Any, bundled_shop: Shop) -> None:
    env = ShopEnv(v8_shop)
    env.reset(options={"goal": 0})
    with pytest.raises(SnapshotError, match="shopsim-v8 session; this shop is webshop"):
        ShopEnv(bundled_shop).restore(env.snapshot())


# ---- bad tokens -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def token(bundled_shop: Shop) -> str:
    s = ShopSession(bundled_shop, bundled_shop.goals[0], "0", goal_index=0)
    s.step("search[shoes]")
    return s.snapshot()


def _forge(payload: dict[str, Any], key: str) -> str:
    raw = zlib.compress(json.dumps(payload).encode())
    mac = hmac.new(key.encode(), raw, hashlib.sha256).digest()
    b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()  # noqa: E731
    return f"{TOKEN_PREFIX}{b64(raw)}.{b64(mac)}"


@pytest.mark.parametrize("edit, message", [
    (lambda t: t[:-5], "integrity check"),
    (lambda t: t[: len(TOKEN_PREFIX) + 20] + ("A" if t[len(TOKEN_PREFIX) + 20] != "A" else "B") + t[len(TOKEN_PREFIX) + 21:],
     "integrity check"),
    (lambda t: t.split(".")[0] + "." + t.split(".")[1], "malformed"),
    (lambda t: "not a token", "not a shopsim snapshot token"),
    (lambda t: t.replace(TOKEN_PREFIX, TOKEN_PREFIX + "é"), "malformed"),
])
def test_altered_tokens_are_refused_in_one_line(bundled_shop: Shop, token: str, edit: Any, message: str) -> None:
    with pytest.raises(SnapshotError, match=message) as err:
        ShopSession.from_snapshot(bundled_shop, edit(token))
    assert "\n" not in str(err.value) and isinstance(err.value, ConfigError)


def test_token_from_another_catalog_or_seed_is_refused(bundled_shop: Shop, token: str) -> None:
    reseeded = Shop.from_config(ShopConfig(seed=1))  # same products, other drawn prices and goals
    with pytest.raises(SnapshotError, match="another catalog, goal set, seed or search engine"):
        ShopSession.from_snapshot(reseeded, token)


def test_keys_version_and_impossible_states(bundled_shop: Shop, token: str, monkeypatch: pytest.MonkeyPatch) -> None:
    state = decode(token, bundled_shop)
    keyed = ShopSession.from_snapshot(bundled_shop, token).snapshot(key="k1")
    with pytest.raises(SnapshotError, match="integrity check"):
        decode(keyed, bundled_shop, key="k2")
    monkeypatch.setenv("SHOPSIM_SNAPSHOT_KEY", "k1")
    assert decode(keyed, bundled_shop) == state  # the key from the environment
    monkeypatch.delenv("SHOPSIM_SNAPSHOT_KEY")

    packed = token[len(TOKEN_PREFIX):].split(".")[0]
    payload = json.loads(zlib.decompress(base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))))
    with pytest.raises(SnapshotError, match="format version 1; this shopsim reads version 2"):
        decode(_forge({**payload, "v": 1}, "k"), bundled_shop, key="k")
    bad_states = [
        ({"page": "item_page", "asin": "NOPE", "page_num": 1}, "not in this catalog"),
        ({"goal_index": 10**6}, "does not exist"),
        ({"done": True}, "done and truncated flags"),
        ({"max_steps": 2, "steps": 5}, "5 steps taken with a limit of 2"),
        ({"sub_page": "Reviews"}, "product state"),
        ({"visited": ["NOPE"]}, "visited a product"),
        ({"page": "nowhere"}, "state is invalid at state"),
    ]
    for change, message in bad_states:
        forged = _forge({**payload, "state": {**payload["state"], **change}}, "k")
        with pytest.raises(SnapshotError, match=message):
            ShopSession.from_snapshot(bundled_shop, forged, key="k")


def test_sources_that_cannot_snapshot_say_so(bundled_shop: Shop, token: str) -> None:
    bundle = ROOT / "fixtures" / "bundles" / "sim-rule-goal3"
    sources = [BrowserSource("http://127.0.0.1:9"), HttpSource("http://127.0.0.1:9", api="html"),
               ReplaySource(bundle)]
    for source in sources:
        env = ShopEnv(bundled_shop, source=source)
        with pytest.raises(SnapshotError, match="cannot"):
            env.restore(token)
        with pytest.raises(SnapshotError, match="cannot snapshot"):
            env.snapshot()
        env.close()


# ---- over HTTP ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def server(bundled_shop: Shop) -> Iterator[str]:
    with ServerThread(create_app(bundled_shop, max_sessions=50)) as srv:
        yield srv.base_url


def test_http_source_branches_equal_in_process_replays(bundled_shop: Shop, server: str) -> None:
    """Branch over the JSON API; observations, rewards and ends equal the in-process straight replay."""
    env = ShopEnv(bundled_shop, source=HttpSource(server))
    _, info = env.reset(options={"goal": 8})
    prefix, _ = _rollout(env, info, seed=77, steps=4, buy=False)
    token = env.snapshot()
    for b in range(BRANCHES):
        branch = ShopEnv(bundled_shop, source=HttpSource(server))
        _, binfo = branch.restore(token)
        _, got = _rollout(branch, binfo, seed=b, steps=10)
        branch.close()
        straight = ShopEnv(bundled_shop)
        straight.reset(options={"goal": 8})
        for action in prefix:
            straight.step(action)
        _, want = _rollout(straight, _info_now(straight), seed=b, steps=10)
        # URLs name the server and its session ids, so compare what the agent sees and scores
        assert [o[:5] + o[6:] for o in got] == [o[:5] + o[6:] for o in want]
    env.close()
    assert decode(token, bundled_shop).goal_index == 8  # type: ignore[union-attr]
    env.close()


def test_api_snapshot_restore_and_new_session(server: str, bundled_shop: Shop) -> None:
    with httpx.Client(base_url=server) as c:
        a = c.post("/api/sessions", json={"goal": 2, "mode": "text_rich"}).json()
        sid = a["session_id"]
        c.post(f"/api/sessions/{sid}/step", json={"action": "search[blue shirt]"})
        snap = c.post(f"/api/sessions/{sid}/snapshot")
        assert snap.status_code == 200 and snap.json()["snapshot"].startswith(TOKEN_PREFIX)
        token = snap.json()["snapshot"]
        after = c.post(f"/api/sessions/{sid}/step", json={"action": "click[next >]"}).json()

        back = c.post(f"/api/sessions/{sid}/restore", json={"snapshot": token})
        assert back.status_code == 200 and back.json()["goal_index"] == 2
        assert back.json()["page_state"]["page_num"] == 1 and "[button]" in back.json()["observation"]  # rich mode kept
        again = c.post(f"/api/sessions/{sid}/step", json={"action": "click[next >]"}).json()
        assert again == after

        new = c.post("/api/sessions", json={"snapshot": token})
        assert new.status_code == 201 and new.json()["goal_index"] == 2 and new.json()["session_id"] != sid
        branch = c.post(f"/api/sessions/{new.json()['session_id']}/step", json={"action": "click[next >]"}).json()
        assert branch["reward"] == after["reward"]
        assert [x["id"] for x in branch["page_state"]["results"]] == [x["id"] for x in after["page_state"]["results"]]

        for path, body, status, code in [
            (f"/api/sessions/{sid}/restore", {"snapshot": token[:-4]}, 400, "invalid_snapshot"),
            (f"/api/sessions/{sid}/restore", {"snapshot": 3}, 422, "invalid_body"),
            (f"/api/sessions/{sid}/restore", {}, 422, "invalid_body"),
            ("/api/sessions/nope/restore", {"snapshot": token}, 404, "unknown_session"),
            ("/api/sessions/nope/snapshot", None, 404, "unknown_session"),
            ("/api/sessions", {"snapshot": "shopsim-snap.x.y"}, 400, "invalid_snapshot"),
            ("/api/sessions", {"snapshot": token, "goal": 1}, 422, "invalid_body"),
        ]:
            r = c.post(path, json=body) if body is not None else c.post(path)
            assert (r.status_code, r.json()["code"]) == (status, code), (path, r.text)
        for s in (sid, new.json()["session_id"]):
            assert c.delete(f"/api/sessions/{s}").status_code == 204


def test_api_refuses_token_of_another_shop(server: str) -> None:
    other = Shop.from_config(ShopConfig(seed=3))
    s = ShopSession(other, other.goals[0], "0", goal_index=0)
    r = httpx.post(f"{server}/api/sessions", json={"snapshot": s.snapshot()})
    assert r.status_code == 400 and r.json()["code"] == "invalid_snapshot" and "another catalog" in r.json()["error"]
    with HttpSource(server) as source, pytest.raises(SnapshotError, match="another catalog"):
        source.restore(s.snapshot())


def test_documented_in_openapi() -> None:
    from shopsim.simsite.api_schema import openapi_spec

    paths = openapi_spec()["paths"]
    assert "400" in paths["/api/sessions/{sid}/restore"]["post"]["responses"]
    assert "snapshot" in openapi_spec()["components"]["schemas"]["CreateSession"]["properties"]


def test_token_size_is_bounded(bundled_shop: Shop) -> None:
    """The longest query in a non-Latin script still fits; an unbounded visited list is refused in one line."""
    rng = random.Random(0)
    s = ShopSession(bundled_shop, bundled_shop.goals[0], "0", goal_index=0)
    s.step("search[" + "".join(chr(rng.randrange(0x4E00, 0x9FFF)) for _ in range(1000)) + "]")
    token = s.snapshot()
    assert len(token) <= MAX_TOKEN_CHARS and ShopSession.from_snapshot(bundled_shop, token).state == s.state
    for asin in list(bundled_shop.products)[:600]:  # the HTML routes can visit any number of products
        s.show("item_page", keywords=["x"], page_num=1, asin=asin)
    with pytest.raises(SnapshotError, match="too large to snapshot"):
        s.snapshot()


def test_server_key_signs_tokens(bundled_shop: Shop) -> None:
    """A server with its own key: its tokens restore through it (the client only peeks), nowhere else."""
    with ServerThread(create_app(bundled_shop, snapshot_key="server-secret")) as srv:
        env = ShopEnv(bundled_shop, source=HttpSource(srv.base_url))
        env.reset(options={"goal": 6})
        env.step("search[green tea]")
        token = env.snapshot()
        other = ShopEnv(bundled_shop, source=HttpSource(srv.base_url))
        obs, info = other.restore(token)
        assert info["goal_index"] == 6 and obs == env._obs()
        other.close()
        with pytest.raises(SnapshotError, match="integrity check"):
            ShopSession.from_snapshot(bundled_shop, token)
        assert ShopSession.from_snapshot(bundled_shop, token, key="server-secret").goal_index == 6
        env.close()


def _catalog_with_title(tmp: Path, asin: str | None, title: str) -> Shop:
    """A copy of the bundled catalog on disk, ``asin``'s title changed (None: unchanged), loaded afresh."""
    from shopsim.simsite.catalog import default_catalog_dir

    folder = tmp / f"catalog-{asin}"
    shutil.copytree(default_catalog_dir(), folder)
    items = json.loads((folder / "shop_items.json").read_text(encoding="utf-8"))
    for item in items:
        if item["asin"] == asin:
            item["name"] = title
    (folder / "shop_items.json").write_text(json.dumps(items), encoding="utf-8")
    return Shop.from_config(ShopConfig(data_dir=str(folder)))


def test_a_named_product_that_changed_is_refused_though_fingerprints_match(tmp_path: Path) -> None:
    """The WebShop fingerprint covers prices and goals, not titles: a token names its products' content too."""
    original = _catalog_with_title(tmp_path, None, "")
    seen, other = list(original.products)[:2]
    s = ShopSession(original, original.goals[0], "0", goal_index=0)
    s.show("item_page", keywords=["shoes"], page_num=1, asin=seen)
    token = s.snapshot()

    retitled = _catalog_with_title(tmp_path, seen, "Something else entirely")
    assert shop_fingerprint(retitled) == shop_fingerprint(original)  # what alone let it through before
    with pytest.raises(SnapshotError, match=f"product {seen} read differently") as err:
        ShopSession.from_snapshot(retitled, token)
    assert "\n" not in str(err.value)
    unrelated = _catalog_with_title(tmp_path, other, "Something else entirely")  # a product the token does not name
    assert ShopSession.from_snapshot(unrelated, token).snapshot_state().asin == seen
