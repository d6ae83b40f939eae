"""An optional shopper played by an OpenAI-compatible chat model, behind the same :class:`Shopper` interface.

The model gets the persona and the private goal without the target ASIN, and answers one question
at a time, in the task's language; its answer still passes :func:`guard_answer`, so it cannot say
the ASIN or the target's title whatever it writes. When the service fails or answers nothing, the
rule-based shopper answers instead (``fallbacks`` counts it), so an episode never stops on it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from shopsim.simsite.v8.records import V8Task, public_persona
from shopsim.simsite.v8.shopper import RuleShopper, Shopper, ShopperFactory, guard_answer, task_language

__all__ = ["LLMShopper", "llm_shopper_factory"]

_LANGUAGE = {"zh": "Chinese (简体中文)", "en": "English"}


class LLMShopper:
    """One session's shopper: chat completions at temperature 0, one request per question."""

    def __init__(self, task: V8Task, title: str, *, base_url: str, model: str, api_key: str | None = None,
                 timeout: float = 30.0, client: httpx.Client | None = None):
        self.rules = RuleShopper(task, title)
        self.goal, self.title, self.model = self.rules.goal, title, model
        self.url = base_url.rstrip("/") + "/chat/completions"
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.client = client or httpx.Client(timeout=timeout, headers=headers)
        self.fallbacks = 0
        goal = self.goal.model_dump(mode="json", exclude={"target_asin", "task_id"})
        self.system = (
            "You are the customer an online shopping assistant is buying for. Answer the assistant's question "
            f"in one or two short sentences, in {_LANGUAGE[task_language(task)]}, using only the goal and the "
            "profile below. Say only what is asked. Never name a specific product, title or product id.\n"
            f"Goal: {json.dumps(goal, ensure_ascii=False)}\n"
            f"Profile: {json.dumps(public_persona(task.user_persona), ensure_ascii=False)}")

    def answer(self, question: str) -> str:
        """The model's answer (guarded), or the rule-based shopper's when the model gives none."""
        body = {"model": self.model, "temperature": 0, "max_tokens": 200,
                "messages": [{"role": "system", "content": self.system}, {"role": "user", "content": question}]}
        try:
            response = self.client.post(self.url, json=body)
            response.raise_for_status()
            content = _content(response.json())
        except (httpx.HTTPError, ValueError):
            content = None
        if not content:
            self.fallbacks += 1
            return self.rules.answer(question)
        return guard_answer(content.strip(), self.goal, self.title)


def _content(payload: Any) -> str | None:
    """The first choice's text, or None for any other shape."""
    try:
        text = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    return text if isinstance(text, str) else None


def llm_shopper_factory(base_url: str, model: str, *, api_key: str | None = None,
                        timeout: float = 30.0) -> ShopperFactory:
    """A :data:`ShopperFactory` for :class:`~shopsim.simsite.v8.session.V8Session` or the v8 service."""
    client = httpx.Client(timeout=timeout, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})

    def make(task: V8Task, title: str) -> Shopper:
        return LLMShopper(task, title, base_url=base_url, model=model, client=client)

    return make
