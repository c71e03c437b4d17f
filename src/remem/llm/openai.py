"""Chat completions from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM,
llama.cpp's server, LM Studio...).

Configured by arguments or the usual environment variables (``OPENAI_BASE_URL``,
``OPENAI_API_KEY``, ``REMEM_LLM_MODEL``). The transport (httpx, imported at the
first call) is shared with the embedder in ``remem/_openai.py``.

Structured output: servers disagree on the request shape, so ``schema_mode="auto"``
sends OpenAI's ``json_schema`` form first and, when the server rejects it (HTTP
400/422), llama.cpp's ``json_object`` + ``schema`` form, then plain prompting; the
form that worked is remembered. Transport failures and 5xx/429 replies are retried
with exponential backoff, or after the wait the reply's ``Retry-After`` names;
other 4xx are not.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from typing import Any

from .. import env
from .._openai import Rejected, endpoint, post_json
from ..errors import LLMError
from .base import LLM, Completion, Message, Request, estimate_tokens
from .options import SCHEMA_MODES


class OpenAILLM(LLM):
    enforces_schema = True

    def __init__(
        self,
        model: str | None = None,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout_s: float = 60.0,
        retries: int = 2,
        backoff_s: float = 0.5,
        context_window: int | None = None,
        schema_mode: str = "auto",
        seed: int | None = None,
    ):
        super().__init__()
        if schema_mode not in SCHEMA_MODES:
            raise LLMError(f"schema_mode must be one of {SCHEMA_MODES}, not {schema_mode!r}")
        self.model = model or env.read("REMEM_LLM_MODEL")
        self.base_url, self.api_key = endpoint(base_url, api_key)
        self.seed = seed
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.context_window = context_window or int(env.read("REMEM_LLM_CONTEXT"))
        self.name = f"openai:{self.model}"
        self._modes = (
            ["json_schema", "json_object", "off"] if schema_mode == "auto" else [schema_mode]
        )
        self._mode_lock = threading.Lock()

    def _complete(self, req: Request) -> Completion:
        body = {"model": self.model, **req.chat_body()}
        json_schema = req.json_schema
        while True:
            mode = self._modes[0] if json_schema is not None else "off"
            payload = dict(body)
            if mode == "json_schema":
                payload["response_format"] = {
                    "type": "json_schema",
                    "json_schema": {"name": "reply", "schema": json_schema},
                }
            elif mode == "json_object":
                payload["response_format"] = {"type": "json_object", "schema": json_schema}
            t0 = time.perf_counter()
            try:
                reply = self._post(payload)
            except Rejected as exc:
                with self._mode_lock:
                    if mode != "off" and len(self._modes) > 1 and self._modes[0] == mode:
                        self._modes.pop(0)  # this server wants another structured form
                        continue
                failed = LLMError(f"{self.base_url} rejected the request: {exc}")
                failed.log_detail = "the endpoint rejected the request"  # its body may echo it
                raise failed from None
            return self._parse(reply, req.messages, time.perf_counter() - t0)

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        return post_json(
            f"{self.base_url}/chat/completions",
            payload,
            api_key=self.api_key,
            timeout_s=self.timeout_s,
            retries=self.retries,
            backoff_s=self.backoff_s,
            error=LLMError,
            what="LLM",
            model=self.model,
            reject=_rejects_format if "response_format" in payload else None,
        )

    def _parse(
        self, reply: dict[str, Any], messages: Sequence[Message], latency: float
    ) -> Completion:
        try:
            choice = reply["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            failed = LLMError(f"{self.base_url} sent no completion: {str(reply)[:200]}")
            failed.log_detail = "the endpoint sent no completion"
            raise failed from None
        usage = reply.get("usage") or {}
        prompt = usage.get("prompt_tokens") or sum(
            estimate_tokens(m.get("content", "")) for m in messages
        )
        return Completion(
            text=text,
            prompt_tokens=int(prompt),
            completion_tokens=int(usage.get("completion_tokens") or estimate_tokens(text)),
            latency_s=latency,
            finish_reason=str(choice.get("finish_reason") or "stop"),
        )


def _rejects_format(status: int, body: str) -> bool:
    """Whether an error status means "not this structured-output form" (then the
    next form is tried): 400/422, or llama-cpp-python's 500 naming the field."""
    return status in (400, 422) or (
        status == 500 and ("response_format" in body or "json_object" in body)
    )
