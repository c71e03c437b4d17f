"""The LLM contract: one small chat-completion interface every backend implements.

Engines and the answering layer depend on this interface only, so a user's own
model (any OpenAI-compatible endpoint), the bundled SmolLM2 and "no LLM at all"
are interchangeable. Every call is counted (calls and tokens per task) because
context size and LLM calls are what memory layers are judged on.
"""

from __future__ import annotations

import json
import threading
import zlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import LLMError
from ..tokens import estimate_tokens

Message = dict[str, str]
"""One chat message: ``{"role": "system" | "user" | "assistant", "content": ...}``."""


@dataclass(frozen=True)
class Request:
    """One completion request, as a backend receives it."""

    messages: Sequence[Message]
    max_tokens: int
    temperature: float
    #: JSON schema the reply must follow (backends that can enforce it do)
    json_schema: dict[str, Any] | None = None
    stop: Sequence[str] | None = None
    #: the sampling seed of this call (:func:`prompt_seed`); None when greedy
    seed: int | None = None

    def chat_body(self) -> dict[str, Any]:
        """This request as an OpenAI-style chat-completion body (messages, max_tokens,
        temperature; seed and stop when set), which the endpoint backend and llama.cpp's
        server both read. The structured-reply form is left to the backend: servers
        differ in the ``response_format`` they take."""
        body: dict[str, Any] = {
            "messages": [dict(m) for m in self.messages],
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
        }
        if self.seed is not None:  # servers that sample by seed repeat it
            body["seed"] = self.seed
        if self.stop:
            body["stop"] = list(self.stop)
        return body


@dataclass(frozen=True)
class Completion:
    text: str
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    #: "stop", "length" or what the backend said
    finish_reason: str = "stop"


@dataclass
class TaskUsage:
    calls: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0


@dataclass
class Usage:
    """Token and call counts per task ("answer", "hit_judge", "summary", ...)."""

    tasks: dict[str, TaskUsage] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, task: str, c: Completion | None) -> None:
        with self._lock:
            u = self.tasks.setdefault(task, TaskUsage())
            if c is None:
                u.failures += 1
                return
            u.calls += 1
            u.prompt_tokens += c.prompt_tokens
            u.completion_tokens += c.completion_tokens
            u.seconds += c.latency_s

    @property
    def calls(self) -> int:
        return sum(u.calls for u in self.tasks.values())

    def as_dict(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            return {k: dict(vars(v)) for k, v in self.tasks.items()}


class LLM(ABC):
    """A chat model. ``generates`` is False for the ``none`` backend, whose callers
    then use their offline method (extractive answers, lexical judges...)."""

    name: str = "llm"
    generates: bool = True
    #: the prompt + completion window in tokens; the answering layer budgets within it
    context_window: int = 8192
    #: whether ``json_schema`` is enforced by the backend (grammar / structured output)
    enforces_schema: bool = False
    #: how the answering layer reads memory with this model when its ``mode`` is
    #: "auto" (``remem.answer.reader.MODES``): a capable model generates the answer
    #: from the notes; without one (``none``), and with the bundled small one, the
    #: typed extractive reader cuts it from the evidence (``typed``)
    answer_mode: str = "generate"
    #: the sampling seed a sampled call (temperature > 0) derives its own from; None
    #: sends none (the backend picks)
    seed: int | None = None

    def __init__(self) -> None:
        self.usage = Usage()

    @abstractmethod
    def _complete(self, req: Request) -> Completion: ...

    def complete(
        self,
        messages: Sequence[Message],
        *,
        task: str = "chat",
        max_tokens: int = 256,
        temperature: float = 0.0,
        json_schema: dict[str, Any] | None = None,
        stop: Sequence[str] | None = None,
    ) -> Completion:
        """One completion, counted under ``task``; raises :class:`LLMError` on failure."""
        if not self.generates:
            raise LLMError("no LLM is configured (llm='none'): nothing can be generated")
        try:
            seed = None
            if self.seed is not None and temperature > 0:  # greedy decoding needs no seed
                seed = prompt_seed(self.seed, messages)
            out = self._complete(
                Request(messages, max_tokens, temperature, json_schema, stop, seed)
            )
        except LLMError:
            self.usage.record(task, None)
            raise
        except Exception as exc:  # a backend's own exception types stay inside
            self.usage.record(task, None)
            failed = LLMError(f"{self.name} failed: {type(exc).__name__}: {exc}")
            failed.log_detail = f"{type(exc).__name__} in {self.name}"
            raise failed from exc
        self.usage.record(task, out)
        return out

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` for budgeting (:func:`remem.tokens.estimate_tokens`);
        backends with a tokenizer override this."""
        return estimate_tokens(text)

    def close(self) -> None:  # noqa: B027
        """Release the model or connections."""


def prompt_seed(seed: int, messages: Sequence[Message]) -> int:
    """The sampling seed of one call: the configured seed mixed with the prompt.

    A sampled reply then depends on what is asked and the seed, not on how many calls
    came before, so a benchmark run split in parallel parts, resumed, or run in
    another order samples every question the same way."""
    text = json.dumps([dict(m) for m in messages], sort_keys=True, ensure_ascii=False)
    return zlib.crc32(text.encode("utf-8"), seed & 0xFFFFFFFF) & 0x7FFFFFFF
