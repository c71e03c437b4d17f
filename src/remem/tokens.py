"""Cheap token estimates for budgets that need no model's tokenizer (short-term
memory segments, notes in a prompt)."""

from __future__ import annotations

import math


def estimate_tokens(text: str) -> int:
    """Word-piece tokens, estimated as 4/3 per whitespace word (MiniLM and most LLM
    tokenizers land near that on English chat)."""
    return math.ceil(len(text.split()) * 4 / 3)


def clip_tokens(text: str, budget: int) -> str:
    """The longest word prefix of ``text`` within ``budget`` estimated tokens."""
    words = text.split()
    if len(words) <= int(budget * 3 / 4):
        return text
    keep = max(int(budget * 3 / 4) - 1, 0)  # the ellipsis counts as a word
    return " ".join(words[:keep] + ["..."])
