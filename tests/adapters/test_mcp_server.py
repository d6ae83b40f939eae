"""``shopsim mcp`` through the official SDK's own client: stdio (the command as a subprocess) and streamable
HTTP (a server on 127.0.0.1), each episode's reward checked against the in-process env's for the same actions.
"""

from __future__ import annotations

import base64
import subprocess
import sys
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed: pip install 'shopsim[mcp]'")

from mcp import ClientSession

from shopsim.adapters.env import ShopEnv
from shopsim.adapters.mcp_client import http_session, serve_http, stdio_session
from shopsim.adapters.mcp_server import check_host
from shopsim.errors import ConfigError
from shopsim.simsite.profiles import open_shop
from shopsim.simsite.shop import ShopConfig

# each test starts a server process (~3 s on two busy cores); the SDK client is asyncio, in this thread
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("no_sync_playwright")]


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """``shopsim mcp --transport http`` on a free 127.0.0.1 port."""
    with serve_http() as url:
        yield url


def run(fn: Callable[[], Awaitable[Any]]) -> Any:
    return anyio.run(fn)


async def call(session: ClientSession, tool: str, **args: Any) -> dict[str, Any]:
    """A tool call that must succeed; its structured content."""
    result = await session.call_tool(tool, args)
    assert not result.is_error, result.content[0].text  # type: ignore[union-attr]
    assert result.structured_content is not None
    return result.structured_content


async def error(session: ClientSession, tool: str, **args: Any) -> str:
    """A tool call that must be refused as a tool error; its one-line message."""
    result = await session.call_tool(tool, args)
    assert result.is_error, result
    text = result.content[0].text  # type: ignore[union-attr]
    assert "\n" not in text and "Traceback" not in text, text
    return text


async def buy_first_result(session: ClientSession, **start: Any) -> tuple[list[str], dict[str, Any]]:
    """Search the instruction's words, open the first result, buy it: the actions and get_reward's answer."""
    first = await call(session, "start_episode", **start)
    query = " ".join(first["instruction"].split()[:8])
    page = await call(session, "search", query=query)
    product = next(c for c in page["valid_actions"]["clickables"]
                   if c.lower() not in ("back to search", "next >", "< prev"))
    page = await call(session, "click", value=product)
    buy = next(c for c in page["valid_actions"]["clickables"] if c.lower() == "buy now")
    page = await call(session, "click", value=buy)
    assert page["done"]
    return [f"search[{query}]", f"click[{product}]", f"click[{buy}]"], await call(session, "get_reward")


def in_process(actions: list[str], profile: str = "webshop", **options: Any) -> tuple[float, dict[str, Any]]:
    """Reward and info of the same actions played by ShopEnv in this process."""
    env = ShopEnv(open_shop(ShopConfig(profile=profile)))
    env.reset(seed=0, options=options)
    for action in actions:
        _, reward, terminated, truncated, info = env.step(action)
    assert terminated or truncated
    return reward, info


def test_stdio_lists_tools_and_buys_with_the_in_process_reward() -> None:
    async def main() -> tuple[list[str], list[str], dict[str, Any]]:
        async with stdio_session() as session:
            tools = [t.name for t in (await session.list_tools()).tools]
            actions, got = await buy_first_result(session, goal=3)
            return tools, actions, got

    tools, actions, got = run(main)
    assert tools == ["start_episode", "search", "click", "observe", "get_reward"]
    reward, info = in_process(actions, goal=3)
    assert got["reward"] == pytest.approx(reward) and got["done"]
    assert got["breakdown"] == info["reward_info"]


def test_http_episode_matches_the_in_process_env(http_url: str) -> None:
    async def main() -> tuple[list[str], dict[str, Any]]:
        async with http_session(http_url) as session:
            return await buy_first_result(session, goal=7)

    actions, got = run(main)
    reward, info = in_process(actions, goal=7)
    assert got["reward"] == pytest.approx(reward)
    assert got["breakdown"] == info["reward_info"]


def test_every_misuse_is_a_one_line_tool_error(http_url: str) -> None:
    async def main() -> dict[str, str]:
        async with http_session(http_url) as session:
            out = {"before start": await error(session, "click", value="buy now"),
                   "unknown goal": await error(session, "start_episode", goal=10**6),
                   "bad argument": await error(session, "start_episode", goal="three"),
                   "task id on webshop": await error(session, "start_episode", task_id=5)}
            await call(session, "start_episode", goal=2)
            out["bad click"] = await error(session, "click", value="no such thing")
            out["search off page"] = await error(session, "search", query="")
            out["other episode"] = await error(session, "get_reward", episode_id="not-an-episode")
            _, reward = await buy_first_result(session, goal=2)
            assert reward["done"]
            out["episode over"] = await error(session, "search", query="more")
            return out

    msgs = run(main)
    assert "call start_episode first" in msgs["before start"]
    assert "goal 1000000" in msgs["unknown goal"]
    assert "goal" in msgs["bad argument"]
    assert "shopsim-v8" in msgs["task id on webshop"]
    assert "'no such thing' is not on this page" in msgs["bad click"]
    assert "search" in msgs["search off page"]
    assert "unknown episode_id" in msgs["other episode"]
    assert "is over" in msgs["episode over"]


def test_two_sessions_play_independent_episodes(http_url: str) -> None:
    async def main() -> tuple[dict[str, Any], ...]:
        async with http_session(http_url) as a, http_session(http_url) as b:
            first_a = await call(a, "start_episode", goal=1)
            first_b = await call(b, "start_episode", goal=4)
            await call(a, "search", query="shoes")
            seen_b = await call(b, "observe")
            stolen = await error(b, "get_reward", episode_id=first_a["episode_id"])
            return first_a, first_b, seen_b, {"stolen": stolen}

    first_a, first_b, seen_b, other = run(main)
    assert first_a["episode_id"] != first_b["episode_id"] and first_a["instruction"] != first_b["instruction"]
    assert seen_b["episode_id"] == first_b["episode_id"] and seen_b["steps"] == 0
    assert seen_b["observation"] == first_b["observation"]  # a's search changed nothing in b's episode
    assert "unknown episode_id" in other["stolen"]


def test_stateless_http_names_its_episode_by_id(http_url: str) -> None:
    """The SDK's default Client speaks protocol 2026-07-28 over HTTP: no session, so the episode id is the handle."""
    from mcp import Client

    async def main() -> tuple[str, str, dict[str, Any]]:
        async with Client(http_url) as client:
            first = (await client.call_tool("start_episode", {"goal": 5})).structured_content
            assert first is not None
            unnamed = (await client.call_tool("search", {"query": "tea"})).content[0].text  # type: ignore[union-attr]
            page = await client.call_tool("search", {"query": "tea", "episode_id": first["episode_id"]})
            assert not page.is_error and page.structured_content is not None
            return client.protocol_version, unnamed, page.structured_content

    version, unnamed, page = run(main)
    if version < "2026-07-28":
        pytest.skip(f"this SDK's Client negotiated {version}, a session protocol")
    assert "pass the episode_id" in unnamed
    assert page["steps"] == 1 and page["goal_index"] == 5


def test_v8_profile_plays_the_v8_tool_protocol() -> None:
    shop = open_shop(ShopConfig(profile="shopsim-v8"))
    task_id = shop.goal(0).task_id

    async def main() -> tuple[list[str], list[str], str, dict[str, Any]]:
        async with stdio_session("--profile", "shopsim-v8", "--no-screenshots") as session:
            tools = [t.name for t in (await session.list_tools()).tools]
            first = await call(session, "start_episode", task_id=task_id)
            assert first["tools"][0]["function"]["name"] == "search"
            refused = await error(session, "click", value="nonsense")
            actions, got = ["click[nonsense]"], {}
            query = " ".join(first["instruction"].split()[:6])
            page = await call(session, "search", query=query)
            actions.append(f"search[{query}]")
            chosen: set[str] = set()
            for _ in range(12):  # open the first result, pick each option axis's first value, buy
                pick = _v8_next_click(page["valid_actions"]["clickables"], chosen)
                chosen.add(pick.split("=", 1)[0])
                page = await call(session, "click", value=pick)
                actions.append(f"click[{pick}]")
                if page["done"]:
                    break
            got = await call(session, "get_reward")
            await call(session, "start_episode", task_id=task_id, interaction_mode="multi_turn")
            answered = await call(session, "ask", question="what colour do you want?")
            assert answered["observation"].startswith("The shopper answered") and answered["steps"] == 1
            return tools, actions, refused, got

    tools, actions, refused, got = run(main)
    assert tools == ["start_episode", "search", "click", "ask", "observe", "get_reward"]
    assert "not clickable" in refused and "step counted" in refused
    assert got["done"] and got["termination"] == "purchase"
    reward, info = in_process(actions, profile="shopsim-v8", task_id=task_id)
    assert got["reward"] == pytest.approx(reward)
    assert got["breakdown"] == info["reward_detail"]


def _v8_next_click(clicks: list[str], chosen: set[str]) -> str:
    """An option value of an axis not yet chosen, else buy, else the first product of a results page."""
    for c in clicks:
        if "=" in c and c.split("=", 1)[0] not in chosen:
            return c
    for c in clicks:
        if c.lower() in ("buy now", "buy"):
            return c
    return next(c for c in clicks if c.lower() not in ("back to search", "next >", "< prev", "description",
                                                        "features", "reviews", "attributes"))


@pytest.mark.browser
def test_observe_returns_a_screenshot_as_image_content(http_url: str) -> None:
    async def main() -> Any:
        async with http_session(http_url) as session:
            await call(session, "start_episode", goal=3)
            return await session.call_tool("observe", {"screenshot": True})

    result = run(main)
    assert not result.is_error, result.content[0].text
    image = next(c for c in result.content if c.type == "image")
    assert image.mime_type == "image/png"
    png = base64.b64decode(image.data)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 2_000


def test_a_non_loopback_host_is_refused_without_allow_remote() -> None:
    assert check_host("127.0.0.1") == "127.0.0.1" and check_host("::1") == "::1"
    assert check_host("0.0.0.0", allow_remote=True) == "0.0.0.0"
    with pytest.raises(ConfigError, match="--allow-remote"):
        check_host("0.0.0.0")
    done = subprocess.run([sys.executable, "-m", "shopsim.cli", "mcp", "--transport", "http", "--host", "10.1.2.3"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and "--allow-remote" in done.stderr
