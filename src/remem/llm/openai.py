"""Chat completions from any OpenAI-compatible endpoint (OpenAI, Ollama, vLLM,
llama.cpp's server, LM Studio...).

Configured by arguments or the usual environment variables (``OPENAI_BASE_URL``,
``OPENAI_API_KEY``, ``REMEM_LLM_MODEL``). Standard library only, so the base
install stays light. Structured output: servers disagree on the request shape, so
``schema_mode="auto"`` sends OpenAI's ``json_schema`` form first and, when the
server rejects it (HTTP 400/422), llama.cpp's ``json_object`` + ``schema`` form,
then plain prompting; the form that worked is remembered. Transport failures and
5xx/429 replies are retried with exponential backoff; other 4xx are not.
"""

from __future__ import annotations

import json
import os
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from typing import Any

from ..errors import LLMError
from .base import LLM, Completion, Message, Request, estimate_tokens

SCHEMA_MODES = ("auto", "json_schema", "json_object", "off")


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
    ):
        super().__init__()
        if schema_mode not in SCHEMA_MODES:
            raise LLMError(f"schema_mode must be one of {SCHEMA_MODES}, not {schema_mode!r}")
        self.model = model or os.environ.get("REMEM_LLM_MODEL") or "gpt-4o-mini"
        self.base_url = (
            base_url or os.environ.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
        ).rstrip("/")
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY", "")
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self.context_window = context_window or int(
            os.environ.get("REMEM_LLM_CONTEXT", "8192") or 8192
        )
        self.name = f"openai:{self.model}"
        self._modes = (
            ["json_schema", "json_object", "off"] if schema_mode == "auto" else [schema_mode]
        )
        self._mode_lock = threading.Lock()

    def _complete(self, req: Request) -> Completion:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": [dict(m) for m in req.messages],
            "max_tokens": req.max_tokens,
            "temperature": req.temperature,
        }
        if req.stop:
            body["stop"] = list(req.stop)
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
            except _Rejected as exc:
                with self._mode_lock:
                    if mode != "off" and len(self._modes) > 1 and self._modes[0] == mode:
                        self._modes.pop(0)  # this server wants another structured form
                        continue
                raise LLMError(f"{self.base_url} rejected the request: {exc}") from None
            return self._parse(reply, req.messages, time.perf_counter() - t0)

    def _post(self, payload: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(payload).encode()
        url = f"{self.base_url}/chat/completions"
        last: str = ""
        for attempt in range(self.retries + 1):
            req = urllib.request.Request(url, data, headers)
            try:
                with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                    return json.load(resp)
            except urllib.error.HTTPError as exc:
                detail = _body(exc)
                if "response_format" in payload and (
                    exc.code in (400, 422)
                    # llama-cpp-python answers an unknown response_format with a 500
                    or (exc.code == 500 and "response_format" in detail)
                    or (exc.code == 500 and "json_object" in detail)
                ):
                    raise _Rejected(f"HTTP {exc.code}: {detail}") from None
                last = f"HTTP {exc.code}: {detail}"
                if exc.code in (401, 403):
                    raise LLMError(
                        f"{url}: not authorised ({last}); check OPENAI_API_KEY"
                    ) from None
                if exc.code == 404:
                    raise LLMError(
                        f"{url}: not found ({last}); check the base URL and model {self.model!r}"
                    ) from None
                if exc.code < 500 and exc.code != 429:
                    raise LLMError(f"{url}: {last}") from None
            except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
                last = str(getattr(exc, "reason", exc)) or type(exc).__name__
            except ValueError as exc:  # not JSON: a proxy page, a half-closed stream
                last = f"unreadable reply ({exc})"
            if attempt < self.retries:
                time.sleep(min(self.backoff_s * 2**attempt, 8.0))
        raise LLMError(
            f"LLM endpoint {self.base_url} failed after {self.retries + 1} tries: {last}"
        )

    def _parse(
        self, reply: dict[str, Any], messages: Sequence[Message], latency: float
    ) -> Completion:
        try:
            choice = reply["choices"][0]
            text = choice["message"].get("content") or ""
        except (KeyError, IndexError, TypeError, AttributeError):
            raise LLMError(f"{self.base_url} sent no completion: {str(reply)[:200]}") from None
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


class _Rejected(Exception):
    """The server refused this structured-output form."""


def _body(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read().decode("utf-8", "replace")[:300]
    except Exception:
        return exc.reason or ""
