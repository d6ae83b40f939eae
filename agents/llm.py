"""An agent that asks an OpenAI-compatible chat-completions server, one tool call per step.

The valid actions become tools (``search`` only when the page has a search bar; ``click`` with an
``enum`` of exactly the page's clickables), so a well-behaved model cannot name an action the page
lacks. Models misbehave anyway, so every protocol error gets a repair turn that says what was wrong.
On WebShop pages, after ``repair_budget`` failed repairs the agent takes a safe action and counts the
failure. On shopsim-v8 pages the seed's runtime rules hold instead: each model response is a turn,
repairs go on while the runner's turns last (``info["turns_left"]``), and the agent never invents
an action: when the turns run out it raises ``PolicyFailure("action_limit")``. An optional skill
context file (``skills=``, the assisted conditions) joins the system context.
Plain httpx keeps the dependency surface small and lets tests swap the transport; an ``openai``
client object works too (``client=OpenAI(...)``).

Transient failures (HTTP 429 and 5xx, timeouts, dropped connections) are retried with exponential
backoff (``retries`` times, honouring ``Retry-After``, each logged on ``shopsim.agents.llm``); a 401
or 403 aborts at once with a message about the key, since no retry fixes it. The key itself never
appears in a log line or an error message, even when a server echoes it.
"""

from __future__ import annotations

import json
import logging
import os
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

from shopsim.agents.base import PolicyFailure
from shopsim.agents.llm_protocol import ProtocolError, parse_reply, parse_v8_reply, repair_messages
from shopsim.agents.redact import Scrubber
from shopsim.agents.skills import SkillContext, load_skills
from shopsim.errors import ConfigError, SourceError
from shopsim.v8.runtime import MAX_ACTIONS, MAX_TOKENS_PER_TURN
from shopsim.v8.tool_calls import tool_schemas

__all__ = ["SYSTEM_PROMPT", "LLMAgent", "LLMStats"]

SYSTEM_PROMPT = """You are a careful online shopper in a web shop. Your task is to buy the one product that best \
fits the customer's instruction: the right kind of product, with the attributes asked for, with every \
option (color, size, ...) set to the values the instruction names, and at a price under its limit.

Each turn you see the instruction and the current page as text. Act by calling exactly one tool:
- search(query): type keywords into the search bar (only offered on pages that have one).
- click(value): click one of the page's buttons, products (by id), or option values.

Typical flow: search with the key product words and option values; open a promising result; click \
each option value the instruction asks for; check the price; click "buy now". Use "< prev" to go back \
to the results and "back to search" to start over. The episode ends when you click "buy now"."""

_ENV_BASE_URL = ("SHOPSIM_LLM_BASE_URL", "OPENAI_BASE_URL")
_ENV_MODEL = ("SHOPSIM_LLM_MODEL", "OPENAI_MODEL")
_ENV_API_KEY = ("SHOPSIM_LLM_API_KEY", "OPENAI_API_KEY")
DEFAULT_BASE_URL = "https://api.openai.com/v1"
#: WebShop's default cap per model turn (v8 uses the seed's, :data:`MAX_TOKENS_PER_TURN`).
WEBSHOP_MAX_TOKENS = 256
_RETRY_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
_MAX_WAIT_S = 60.0
_log = logging.getLogger("shopsim.agents.llm")


@dataclass
class LLMStats:
    """What the agent spent and how often the model broke the protocol (``turns``: model responses
    that counted against an episode's turn limit; ``errors``: what each protocol error was).
    """

    turns: int = 0
    requests: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    protocol_errors: int = 0
    generation_length: int = 0
    repairs: int = 0
    fallbacks: int = 0
    retries: int = 0
    errors: list[str] = field(default_factory=list)


def _env(names: tuple[str, ...]) -> str | None:
    for name in names:
        value = os.environ.get(name)
        if value:
            return value
    return None


class LLMAgent:
    """Chat-completions with tool calling over httpx; deterministic request bodies (temperature 0, seed)."""

    name = "llm"

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        seed: int = 0,
        temperature: float = 0.0,
        max_tokens: int | None = None,
        history_turns: int = 6,
        repair_budget: int = 2,
        timeout: float = 60.0,
        tool_choice: str = "auto",
        system_prompt: str = SYSTEM_PROMPT,
        retries: int = 5,
        backoff: float = 1.0,
        transport: httpx.BaseTransport | None = None,
        client: Any = None,
        sleep: Callable[[float], None] = time.sleep,
        skills: str | os.PathLike[str] | None = None,
    ):
        client_url = getattr(client, "base_url", None) if client is not None else None
        self.base_url = (base_url or (str(client_url) if client_url else None) or _env(_ENV_BASE_URL)
                         or DEFAULT_BASE_URL).rstrip("/")
        model = model or _env(_ENV_MODEL)
        if not model:
            raise ConfigError("the llm agent needs a model: pass model=... or set SHOPSIM_LLM_MODEL (or OPENAI_MODEL)")
        if retries < 0 or backoff < 0:
            raise ConfigError("the llm agent's retries and backoff must not be negative")
        self.model = model
        self.api_key = api_key or _env(_ENV_API_KEY)
        self._scrub = Scrubber([self.api_key] if self.api_key else [])
        #: None: the profile's default per page (WebShop 256, shopsim-v8 4,096, the seed's cap).
        self.seed, self.temperature, self.max_tokens = seed, temperature, max_tokens
        #: The assisted conditions' skill context (guidance only: the task and pages stay the same).
        self.skills: SkillContext | None = load_skills(skills) if skills is not None else None
        self._cap = max_tokens or WEBSHOP_MAX_TOKENS
        self.history_turns, self.repair_budget, self.timeout = history_turns, repair_budget, timeout
        self.tool_choice, self.system_prompt = tool_choice, system_prompt
        self.retries, self.backoff, self._sleep = retries, backoff, sleep
        self._openai = client
        self._jitter = random.Random(seed)
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        self._client = httpx.Client(timeout=timeout, headers=headers, transport=transport)
        self.stats = LLMStats()
        self.persona: Any = None
        self.turns: list[list[dict[str, Any]]] = []
        self._episode_seed = seed
        self._call_counter = 0

    # ---- Agent protocol ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Forget the conversation; ``seed`` is sent with every request of the episode."""
        self.turns = []
        self._episode_seed = self.seed if seed is None else seed

    def act(self, observation: str, valid_actions: dict[str, Any], info: dict[str, Any]) -> str:
        """One user turn with the page, then repairs until one tool call is valid.

        On a shopsim-v8 page (``observation_state`` in ``info``) the contract's runtime rules apply
        (:meth:`_act_v8`); elsewhere up to ``repair_budget`` repairs, then a safe action.
        """
        v8 = info.get("observation_state") is not None
        self.persona = info.get("user_persona") if v8 else None
        self._cap = self.max_tokens or (MAX_TOKENS_PER_TURN if v8 else WEBSHOP_MAX_TOKENS)
        has_search = bool(valid_actions.get("has_search_bar"))
        clicks = [c for c in valid_actions.get("clickables", []) if c != "search"]
        multi_turn = v8 and info.get("interaction_mode") == "multi_turn"  # the shopper answers ask[...]
        tools = tool_schemas(has_search, clicks, ask=multi_turn) if v8 else self.tools(has_search, clicks)
        turn: list[dict[str, Any]] = [{"role": "user", "content": self._page_text(observation, info, has_search, clicks)}]
        self.turns.append(turn)
        self.turns = self.turns[-self.history_turns:]
        if v8:
            return self._act_v8(turn, tools, info)
        for attempt in range(self.repair_budget + 1):
            message = self._complete(tools)
            message.pop("_finish_reason", None)
            turn.append(_assistant_entry(message))
            try:
                action, call_id = parse_reply(message, has_search, clicks)
            except ProtocolError as exc:
                self._protocol_error(turn, message, exc)
                if attempt < self.repair_budget:
                    self.stats.repairs += 1
                continue
            turn.append({"role": "tool", "tool_call_id": call_id, "content": f"executed {action}"})
            return action
        self.stats.fallbacks += 1
        return self._safe_action(has_search, clicks, info)

    def _act_v8(self, turn: list[dict[str, Any]], tools: list[dict[str, Any]], info: dict[str, Any]) -> str:
        """The seed's runtime: each response is a turn; a protocol error is repaired on the same page
        while turns are left; a length cut without one valid call raises ``generation_length``; no
        turn left raises ``action_limit``. The agent never picks an action the model did not call.
        """
        left = info.get("turns_left")
        if left is None:  # outside the runner: the turns the environment has left
            limit = info.get("max_actions") or MAX_ACTIONS.get(str(info.get("interaction_mode")), MAX_ACTIONS["single_turn"])
            left = int(limit or 0) - int(info.get("actions_used") or 0)
        offered = [t["function"]["name"] for t in tools]
        for used in range(max(0, int(left))):
            if used:
                self.stats.repairs += 1  # this turn answers the repair message on the same page
            message = self._complete(tools)
            finish = message.pop("_finish_reason", None)
            turn.append(_assistant_entry(message))
            try:
                action, call_id = parse_v8_reply(message, offered, multi_turn="ask" in offered)
            except ProtocolError as exc:
                if finish == "length":
                    self.stats.generation_length += 1
                    raise PolicyFailure("generation_length", f"the model hit max_tokens={self._cap} "
                                        f"without one valid tool call ({exc.code})") from exc
                self._protocol_error(turn, message, exc)
                continue
            turn.append({"role": "tool", "tool_call_id": call_id, "content": f"executed {action}"})
            return action
        raise PolicyFailure("action_limit", f"the model's turns ran out without a valid tool call ({left} left)")

    def _protocol_error(self, turn: list[dict[str, Any]], message: dict[str, Any], exc: ProtocolError) -> None:
        """Count the error and put its repair message on the turn."""
        self.stats.protocol_errors += 1
        self.stats.errors.append(f"{exc.code}: {exc}")
        turn.extend(repair_messages(message, str(exc), exc.reply_to_calls))

    def close(self) -> None:
        """Close the HTTP client."""
        self._client.close()

    # ---- request ------------------------------------------------------------------------------------
    @staticmethod
    def tools(has_search: bool, clicks: list[str]) -> list[dict[str, Any]]:
        """The tool list for a page: ``search`` only with a search bar; ``click`` over its clickables."""
        tools: list[dict[str, Any]] = []
        if has_search:
            tools.append({"type": "function", "function": {
                "name": "search",
                "description": "Search the shop: type keywords into the search bar and submit.",
                "parameters": {"type": "object", "properties": {"query": {
                    "type": "string", "description": "search keywords"}},
                    "required": ["query"], "additionalProperties": False},
            }})
        if clicks:
            tools.append({"type": "function", "function": {
                "name": "click",
                "description": "Click a button, a product (by its id) or an option value on the current page.",
                "parameters": {"type": "object", "properties": {"value": {
                    "type": "string", "enum": list(clicks), "description": "exactly one of the listed values"}},
                    "required": ["value"], "additionalProperties": False},
            }})
        return tools

    def messages(self) -> list[dict[str, Any]]:
        """The system prompt plus the last ``history_turns`` turns (whole turns, so tool replies pair up)."""
        system = self.system_prompt
        if self.persona is not None:
            system += ("\n\nThe customer's profile (evidence about preferences, not hard constraints; the request "
                       "comes first):\n" + json.dumps(self.persona, ensure_ascii=False, indent=1))
        if self.skills is not None:
            system += "\n\nSkill context (guidance for how to shop; the request and the page decide):\n" + self.skills.text
        out: list[dict[str, Any]] = [{"role": "system", "content": system}]
        for turn in self.turns[-self.history_turns:]:
            out.extend(turn)
        return out

    def request_body(self, tools: list[dict[str, Any]]) -> dict[str, Any]:
        """The chat-completions body for the current conversation (no randomness but the seed)."""
        body: dict[str, Any] = {
            "model": self.model,
            "messages": self.messages(),
            "temperature": self.temperature,
            "seed": self._episode_seed,
            "max_tokens": self._cap,
        }
        if tools:
            body["tools"] = tools
            body["tool_choice"] = self.tool_choice
        return body

    def _complete(self, tools: list[dict[str, Any]]) -> dict[str, Any]:
        url = f"{self.base_url}/chat/completions"
        body = self.request_body(tools)
        scrub = self._scrub.text  # a server may echo the key back; it never reaches a log or an error
        for attempt in range(self.retries + 1):
            try:
                data = self._post(url, body)
                break
            except _Transient as exc:
                if attempt == self.retries:
                    raise SourceError(scrub(f"{exc.message} (gave up after {self.retries} retries)")) from None
                wait = min(_MAX_WAIT_S, exc.retry_after if exc.retry_after is not None
                           else self.backoff * 2 ** attempt * (1 + self._jitter.random() / 4))
                self.stats.retries += 1
                _log.warning("%s; retry %d of %d in %.1f s", scrub(exc.message), attempt + 1, self.retries, wait)
                self._sleep(wait)
            except SourceError as exc:
                raise SourceError(scrub(str(exc))) from None
        try:
            choice = data["choices"][0]
            message = choice["message"]
        except (KeyError, IndexError, TypeError):
            raise SourceError(scrub(f"LLM server {url} sent no chat completion: {str(data)[:300]}")) from None
        self.stats.requests += 1
        self.stats.turns += 1  # one model response, however it turns out
        usage = data.get("usage") or {}
        for key in ("prompt_tokens", "completion_tokens", "total_tokens"):
            value = usage.get(key)
            if isinstance(value, int):
                setattr(self.stats, key, getattr(self.stats, key) + value)
        message = dict(message) if isinstance(message, dict) else {"role": "assistant", "content": str(message)}
        message["_finish_reason"] = choice.get("finish_reason") if isinstance(choice, dict) else None
        return message

    def _post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        """One request; a transient failure raises ``_Transient``, anything else ``SourceError``."""
        if self._openai is not None:
            return self._post_client(url, body)
        try:
            response = self._client.post(url, content=json.dumps(body))
        except httpx.TimeoutException as exc:
            raise _Transient(f"LLM server {url} did not answer within {self.timeout:g} s ({type(exc).__name__})") from exc
        except httpx.HTTPError as exc:
            raise _Transient(f"cannot reach LLM server {url}: {exc}") from exc
        if response.status_code >= 400:
            _raise_for_status(url, response.status_code, response.text, response.headers.get("retry-after"))
        try:
            data = response.json()
        except ValueError as exc:
            raise SourceError(f"LLM server {url} sent no chat completion: {response.text[:300]}") from exc
        if not isinstance(data, dict):
            raise SourceError(f"LLM server {url} sent no chat completion: {response.text[:300]}")
        return data

    def _post_client(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        """The request through an ``openai`` client (its exceptions read by duck typing, not imported)."""
        try:
            response = self._openai.chat.completions.create(**body)
        except Exception as exc:
            status = getattr(exc, "status_code", None)
            if isinstance(status, int):
                headers = getattr(getattr(exc, "response", None), "headers", None) or {}
                _raise_for_status(url, status, str(exc), headers.get("retry-after"))
            if any(word in type(exc).__name__ for word in ("Timeout", "Connection")):
                raise _Transient(f"LLM client for {url}: {type(exc).__name__}: {exc}") from exc
            raise SourceError(f"LLM client for {url} failed: {type(exc).__name__}: {exc}") from exc
        data = response.model_dump() if hasattr(response, "model_dump") else response
        return data if isinstance(data, dict) else {}

    # ---- reply handling -------------------------------------------------------------------------------
    def _safe_action(self, has_search: bool, clicks: list[str], info: dict[str, Any]) -> str:
        if "back to search" in clicks:
            return "click[back to search]"
        if clicks:
            return f"click[{clicks[0]}]"
        instruction = str(info.get("instruction") or "products")
        return f"search[{' '.join(instruction.replace('[', ' ').replace(']', ' ').split()[:12])}]"

    @staticmethod
    def _page_text(observation: str, info: dict[str, Any], has_search: bool, clicks: list[str]) -> str:
        lines = [f"Instruction: {info.get('instruction') or ''}", "", "Current page:", observation, ""]
        feedback = info.get("feedback")
        if feedback is not None and getattr(feedback, "code", "ok") != "ok":
            lines.append(f"Your last action was refused: {getattr(feedback, 'message', '')}")
        lines.append(f"Search bar: {'yes' if has_search else 'no'}. Clickable: {', '.join(clicks) or 'nothing'}.")
        return "\n".join(lines)


def _assistant_entry(message: dict[str, Any]) -> dict[str, Any]:
    """The assistant message as it goes back into the history (only the fields the API accepts)."""
    entry: dict[str, Any] = {"role": "assistant", "content": message.get("content")}
    if message.get("tool_calls"):
        entry["tool_calls"] = message["tool_calls"]
    return entry


class _Transient(Exception):
    """A failure worth retrying (rate limit, server error, timeout, dropped connection)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.message, self.retry_after = message, retry_after


def _raise_for_status(url: str, status: int, text: str, retry_after: str | None) -> None:
    """Map an HTTP error to a retry, a clear abort (401/403), or a plain error."""
    if status in (401, 403):
        raise SourceError(f"LLM server {url} refused the request (HTTP {status}): check the API key "
                          "(api_key=..., SHOPSIM_LLM_API_KEY or OPENAI_API_KEY)")
    if status in _RETRY_STATUS:
        try:
            after = float(retry_after) if retry_after is not None else None
        except ValueError:
            after = None
        if after is not None and not 0 <= after < float("inf"):  # -5, nan, inf: time.sleep refuses them
            after = None
        raise _Transient(f"LLM server {url} answered HTTP {status}", after)
    raise SourceError(f"LLM server {url} answered HTTP {status}: {text[:300]}")
