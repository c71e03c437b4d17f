"""``llm="none"``: no generation at all. Callers take their offline path."""

from __future__ import annotations

from ..errors import LLMError
from .base import LLM, Completion, Request


class NoLLM(LLM):
    name = "none"
    generates = False
    answer_mode = "typed"
    context_window = 4096

    def _complete(self, req: Request) -> Completion:
        raise LLMError("no LLM is configured (llm='none')")
