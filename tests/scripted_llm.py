"""A test double for an LLM's *output*: replies are scripted, calls recorded.

Real backends are tested against a real llama.cpp server and the bundled model
(tests/llm); this double only lets engine tests choose what the model says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from remem.errors import LLMError
from remem.llm.base import LLM, Completion, Request, estimate_tokens

Reply = str | Callable[[list[dict], Any], str]


class ScriptedLLM(LLM):
    name = "scripted"

    def __init__(self, reply: Reply = "ok", *, fail: bool = False):
        super().__init__()
        self.reply = reply
        self.fail = fail
        self.calls: list[dict[str, Any]] = []

    def _complete(self, req: Request) -> Completion:
        msgs = [dict(m) for m in req.messages]
        self.calls.append(
            {
                "messages": msgs,
                "schema": req.json_schema,
                "max_tokens": req.max_tokens,
                "stop": req.stop,
                "temperature": req.temperature,
            }
        )
        if self.fail:
            raise LLMError("scripted failure")
        text = self.reply(msgs, req.json_schema) if callable(self.reply) else self.reply
        return Completion(
            text, sum(estimate_tokens(m["content"]) for m in msgs), estimate_tokens(text), 0.001
        )

    def tasks(self) -> list[str]:
        """The prompt files used, in call order (read off the system prompts)."""
        return [c["messages"][0]["content"][:40] for c in self.calls]
