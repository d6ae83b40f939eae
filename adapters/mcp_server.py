"""An MCP server over the in-process shop, built with the official ``mcp`` SDK (``pip install shopsim[mcp]``).

Tools: ``start_episode``, ``search``, ``click`` (and ``ask`` on a shopsim-v8 server), ``observe`` (text,
valid actions, optionally a screenshot as an image content) and ``get_reward`` (reward and breakdown).
Each MCP session plays its own episode (:class:`~shopsim.adapters.mcp_episodes.EpisodeStore`): stdio
serves one client per process; streamable HTTP keys episodes by the ``Mcp-Session-Id`` of the
initialize handshake, and a stateless request (protocol 2026-07-28) names its episode by the id
``start_episode`` returned. Every refusal is a tool error (``isError``) with one line, never a crash.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import re
from typing import Annotated, Any, Literal

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, ImageContent, TextContent
from mcp.types import ToolAnnotations as Annotations
from pydantic import Field

from shopsim.adapters.mcp_episodes import EpisodeStore, EpisodeView, McpEpisode
from shopsim.adapters.page_snapshot import PageSnapshotter
from shopsim.errors import ConfigError, ShopsimError
from shopsim.simsite.profiles import get_profile

__all__ = ["build_server", "check_host", "session_key"]

_INSTRUCTIONS = ("A simulated web shop. Call start_episode, read the instruction, then search and click until you "
                 "click 'buy now'; get_reward tells how well the purchase matched. One episode per MCP session.")
_V8_NOTE = (" shopsim-v8 rules: a well-formed call goes to the shop even when the page does not offer it; it is "
            "then refused (a tool error) and still counts as one of the episode's actions. Option values are "
            "clicked as axis=value.")
_EPISODE_ID = "the episode to act on; only needed on stateless HTTP (default: this session's episode)"
EpisodeId = Annotated[str | None, Field(description=_EPISODE_ID)]


def check_host(host: str, *, allow_remote: bool = False) -> str:
    """``host`` when it is a loopback address (or ``allow_remote``); a ConfigError otherwise."""
    try:
        loopback = host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not allow_remote:
        raise ConfigError(f"--host {host}: not a loopback address; the MCP server has no authentication, so it "
                          "listens on 127.0.0.1 unless you pass --allow-remote")
    return host


def session_key(ctx: Context[Any, Any]) -> str | None:
    """Whose episode a call plays: the process (stdio: one client), the HTTP session id, or None (stateless HTTP).

    Not the SDK's session object: it is built afresh for every request.
    """
    request = ctx.request_context.request
    if request is None:
        return "local"
    sid = request.headers.get("mcp-session-id")
    return f"http-{sid}" if sid else None


def _one_line(text: str) -> str:
    """A tool error on one line: the SDK's argument errors are pydantic's multi-line report."""
    if "\n" not in text:
        return text
    head, *rest = text.splitlines()
    parts: list[str] = []
    for line in rest:
        if not line.strip() or line.strip().startswith("For further information"):
            continue
        if line[:1].isspace() and parts:  # the message under a field name
            parts[-1] += ": " + re.sub(r"\s*\[type=[^\]]*\]\s*$", "", line.strip())
        else:
            parts.append(line.strip())
    return head.rstrip(":") + ": " + "; ".join(parts) if parts else head


async def _one_line_errors(ctx: Any, call_next: Any) -> Any:
    """Middleware: every ``tools/call`` error result says what was wrong in one line."""
    result = await call_next(ctx)
    if ctx.method == "tools/call" and isinstance(result, dict) and result.get("isError"):
        for block in result.get("content") or []:
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                block["text"] = _one_line(block["text"])
    return result


def _text(view: EpisodeView, *, with_instruction: bool) -> str:
    valid = view.valid_actions
    offered = (["search[<query>]"] if valid.get("has_search_bar") else []) + [
        f"click[{c}]" for c in valid.get("clickables") or []]
    lines = [view.observation, ""]
    if with_instruction and get_profile(view.profile).goal_kind == "task" and view.instruction:
        lines.insert(0, f"Instruction: {view.instruction}\n")
    if view.feedback:
        lines.append(f"feedback: {view.feedback}")
    lines.append("valid actions: " + ("none (episode over)" if view.done else " | ".join(offered) or "none"))
    lines.append(f"reward: {view.reward:g}  done: {str(view.done).lower()}  steps: {view.steps}  "
                 f"episode_id: {view.episode_id}")
    return "\n".join(lines)


def _result(view: EpisodeView, *, with_instruction: bool = False, image: bytes | None = None) -> CallToolResult:
    content: list[Any] = [TextContent(type="text", text=_text(view, with_instruction=with_instruction))]
    if image is not None:
        content.append(ImageContent(type="image", data=base64.b64encode(image).decode("ascii"), mime_type="image/png"))
    return CallToolResult(content=content, structured_content=view.model_dump(mode="json"))


class _Tools:
    """The tool functions, bound to one store (and, for screenshots, one browser)."""

    def __init__(self, store: EpisodeStore, snapshots: PageSnapshotter | None):
        self.store, self.snapshots = store, snapshots

    def _episode(self, ctx: Context[Any, Any], episode_id: str | None) -> McpEpisode:
        try:
            return self.store.get(session_key(ctx), episode_id)
        except ShopsimError as exc:
            raise ToolError(str(exc)) from None

    def _act(self, ctx: Context[Any, Any], tool: str, argument: str, episode_id: str | None) -> CallToolResult:
        episode = self._episode(ctx, episode_id)
        try:
            return _result(episode.act(tool, argument))
        except ShopsimError as exc:
            raise ToolError(str(exc)) from None

    async def start_episode(self, ctx: Context[Any, Any], goal: int | None = None, task_id: int | None = None,
                            profile: Literal["webshop", "shopsim-v8"] | None = None, seed: int = 0,
                            interaction_mode: Literal["single_turn", "multi_turn"] = "single_turn") -> CallToolResult:
        """Start a new episode in this session (replacing its current one).

        Args:
            ctx: the request (the SDK passes it; not a tool argument).
            goal: goal (instruction) index; default: a seeded draw.
            task_id: a shopsim-v8 task id instead of a goal index.
            profile: webshop or shopsim-v8 (default: the server's --profile).
            seed: seed of the episode (and of the goal draw).
            interaction_mode: shopsim-v8 only: multi_turn adds the ask tool (questions to the shopper).
        """
        try:
            episode = self.store.start(session_key(ctx), profile=profile, goal=goal, task_id=task_id, seed=seed,
                                       interaction_mode=interaction_mode)
        except ShopsimError as exc:
            raise ToolError(str(exc)) from None
        return _result(episode.view(), with_instruction=True)

    async def search(self, ctx: Context[Any, Any], query: str, episode_id: EpisodeId = None) -> CallToolResult:
        """Search the catalog (from a page with a search box). Returns the new page."""
        return self._act(ctx, "search", query, episode_id)

    async def click(self, ctx: Context[Any, Any], value: str, episode_id: EpisodeId = None) -> CallToolResult:
        """Click one clickable of the page (a product id, an option value, 'buy now', 'next >', ...)."""
        return self._act(ctx, "click", value, episode_id)

    async def ask(self, ctx: Context[Any, Any], question: str, episode_id: EpisodeId = None) -> CallToolResult:
        """Ask the shopper you buy for one question (shopsim-v8 multi_turn episodes; uses one action)."""
        return self._act(ctx, "ask", question, episode_id)

    async def observe(self, ctx: Context[Any, Any], screenshot: bool = False,
                      episode_id: EpisodeId = None) -> CallToolResult:
        """The current page: text observation, valid actions, and with screenshot=true a PNG of the page."""
        episode = self._episode(ctx, episode_id)
        png = None
        if screenshot:
            if self.snapshots is None:
                raise ToolError("screenshots are off on this server (started with --no-screenshots)")
            try:
                png = await asyncio.wrap_future(self.snapshots.submit(episode.env.state))  # type: ignore[arg-type]
            except ShopsimError as exc:
                raise ToolError(f"screenshot failed: {exc}") from None
        return _result(episode.view(), with_instruction=True, image=png)

    async def get_reward(self, ctx: Context[Any, Any], episode_id: EpisodeId = None) -> dict[str, Any]:
        """The episode's reward so far (0 until the purchase), whether it is over, and the reward's breakdown."""
        episode = self._episode(ctx, episode_id)
        info = episode.info
        breakdown = info.get("reward_detail") if episode.v8 else info.get("reward_info")
        return {"episode_id": episode.episode_id, "reward": episode.reward, "done": episode.done,
                "steps": episode.steps, "termination": info.get("termination"), "breakdown": breakdown}


def build_server(store: EpisodeStore, *, snapshots: PageSnapshotter | None = None) -> MCPServer[Any]:
    """The MCP server: WebShop's tools, or shopsim-v8's (with ``ask``) when the store's profile is v8."""
    v8 = get_profile(store.default_profile).episode_rules
    server: MCPServer[Any] = MCPServer("shopsim", instructions=_INSTRUCTIONS + (_V8_NOTE if v8 else ""),
                                       log_level="WARNING", middleware=[_one_line_errors])
    tools = _Tools(store, snapshots)
    acting = Annotations(read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=False)
    reading = Annotations(read_only_hint=True, open_world_hint=False)
    server.add_tool(tools.start_episode, name="start_episode", annotations=acting, structured_output=False)
    server.add_tool(tools.search, name="search", annotations=acting, structured_output=False)
    server.add_tool(tools.click, name="click", annotations=acting, structured_output=False)
    if v8:
        server.add_tool(tools.ask, name="ask", annotations=acting, structured_output=False)
    server.add_tool(tools.observe, name="observe", annotations=reading, structured_output=False)
    server.add_tool(tools.get_reward, name="get_reward", annotations=reading)
    return server
