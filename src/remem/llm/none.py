"""``llm="none"``: no generation at all. Callers take their offline path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..errors import LLMError
from .base import LLM, Completion, Message


class NoLLM(LLM):
    name = "none"
    generates = False
    context_window = 4096

    def _complete(
        self,
        messages: Sequence[Message],
        *,
        max_tokens: int,
        temperature: float,
        json_schema: dict[str, Any] | None,
        stop: Sequence[str] | None,
    ) -> Completion:
        raise LLMError("no LLM is configured (llm='none')")
