"""Step time through ``shopsim mcp`` (stdio and streamable HTTP) beside the in-process ``ShopEnv.step``.

    python benchmarks/harness_mcp.py [--episodes N] [--profile webshop|shopsim-v8]

Each episode starts on goal ``i`` (webshop) or task ``i`` (shopsim-v8), searches the instruction's first
words, opens the first result and goes back, over and over: the steps an agent takes most. The MCP
servers run as ``shopsim mcp`` subprocesses, driven by the SDK's own ``ClientSession`` (initialize
handshake, one episode per session). Prints the median and p90 of one step's wall time per path; the
episode start (``start_episode``) is timed apart. Timings move with load: read the ratios, not the
absolute numbers, on a shared machine.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import anyio
from mcp import ClientSession

from shopsim.adapters.env import ShopEnv
from shopsim.adapters.mcp_client import http_session, serve_http, stdio_session
from shopsim.simsite.profiles import open_shop
from shopsim.simsite.shop import ShopConfig

ROOT = Path(__file__).resolve().parents[1]
STEPS_PER_EPISODE = 12


def plan(instruction: str) -> str:
    return " ".join(instruction.split()[:6])


def first_result(clickables: list[str]) -> str:
    return next(c for c in clickables if c.lower() not in ("back to search", "next >", "< prev"))


def in_process(profile: str, episodes: int) -> tuple[list[float], list[float]]:
    env = ShopEnv(open_shop(ShopConfig(profile=profile)))
    starts, steps = [], []
    for i in range(episodes):
        t = time.perf_counter()
        _, info = env.reset(seed=0, options={"goal": i})
        starts.append(time.perf_counter() - t)
        for _ in range(STEPS_PER_EPISODE // 3):
            for action in (f"search[{plan(info['instruction'])}]", None, "click[back to search]"):
                if action is None:
                    action = f"click[{first_result(info['valid_actions']['clickables'])}]"
                t = time.perf_counter()
                _, _, _, _, info = env.step(action)
                steps.append(time.perf_counter() - t)
    return starts, steps


async def drive(session: ClientSession, profile: str, episodes: int, task_ids: list[int]) -> tuple[list[float], list[float]]:
    starts, steps = [], []
    for i in range(episodes):
        args = {"task_id": task_ids[i]} if profile == "shopsim-v8" else {"goal": i}
        t = time.perf_counter()
        first = (await session.call_tool("start_episode", args)).structured_content
        starts.append(time.perf_counter() - t)
        assert first is not None
        for _ in range(STEPS_PER_EPISODE // 3):
            t = time.perf_counter()
            page = (await session.call_tool("search", {"query": plan(first["instruction"])})).structured_content
            steps.append(time.perf_counter() - t)
            assert page is not None
            for value in (first_result(page["valid_actions"]["clickables"]), "back to search"):
                t = time.perf_counter()
                result = await session.call_tool("click", {"value": value})
                steps.append(time.perf_counter() - t)
                assert not result.is_error, result.content
    return starts, steps


def row(name: str, starts: list[float], steps: list[float], base: float) -> str:
    med = statistics.median(steps)
    p90 = statistics.quantiles(steps, n=10)[-1]
    return (f"| {name} | {len(steps)} | {med * 1e3:.2f} | {p90 * 1e3:.2f} | {med / base:.1f}x | "
            f"{statistics.median(starts) * 1e3:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=20)
    parser.add_argument("--profile", default="webshop", choices=["webshop", "shopsim-v8"])
    args = parser.parse_args()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    shop = open_shop(ShopConfig(profile=args.profile))
    task_ids = [shop.goal(i).task_id for i in range(args.episodes)] if args.profile == "shopsim-v8" else []
    base_starts, base = in_process(args.profile, args.episodes)

    async def over(session: ClientSession) -> tuple[list[float], list[float]]:
        await drive(session, args.profile, 1, task_ids)  # warm: imports, first search
        return await drive(session, args.profile, args.episodes, task_ids)

    async def stdio() -> tuple[list[float], list[float]]:
        async with stdio_session("--profile", args.profile, "--no-screenshots") as session:
            return await over(session)

    async def http(url: str) -> tuple[list[float], list[float]]:
        async with http_session(url) as session:
            return await over(session)

    results = {"stdio": anyio.run(stdio)}
    with serve_http("--profile", args.profile, "--no-screenshots") as url:
        results["http"] = anyio.run(http, url)
    med = statistics.median(base)
    print(f"{args.profile}: {args.episodes} episodes x {STEPS_PER_EPISODE} steps (search, open first result, back)")
    print("| path | steps | median step (ms) | p90 (ms) | vs in-process | median start_episode / reset (ms) |")
    print("|---|---|---|---|---|---|")
    print(row("in-process ShopEnv.step", base_starts, base, med))
    print(row("MCP stdio (ClientSession)", *results["stdio"], med))
    print(row("MCP streamable HTTP (ClientSession)", *results["http"], med))


if __name__ == "__main__":
    main()
