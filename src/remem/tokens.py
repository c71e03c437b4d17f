"""Token budgets without a model's tokenizer: the one estimate and the one clip.

Budgets are everywhere (the reader's context, ILSTMA's short-term segments, the
notes put into a prompt) and they must agree, so there is one estimate, about four
characters per token (BPE tokenizers of current models land near that on English),
and one clip. A backend that has its own tokenizer passes its count to
:func:`clip_tokens` instead (:meth:`remem.llm.LLM.count_tokens`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

_WORD = re.compile(r"\S+")
#: what a clipped text ends with, so a reader can tell it was cut
ELLIPSIS = " ..."


def estimate_tokens(text: str) -> int:
    """About 4 characters per token for English (BPE tokenizers of current models)."""
    return max(1, (len(text) + 3) // 4) if text else 0


def clip_tokens(text: str, budget: int, count: Callable[[str], int] = estimate_tokens) -> str:
    """``text`` itself when ``count(text)`` is within ``budget``; else its longest
    whole-word prefix that, with " ..." after it, is. When not even the first word
    fits, that word cut by characters (with " ..." where there is room for it).

    Never more than ``budget`` (>= 0) by ``count``: only a prefix that was counted
    and fits is returned, "" when none does. The search is binary, so it finds the
    longest one where ``count`` grows with the text, as token counts do."""
    if count(text) <= budget:
        return text
    words = list(_WORD.finditer(text))

    def fits(s: str) -> bool:
        return count(s) <= budget

    n = _longest(len(words), lambda i: fits(text[: words[i - 1].end()] + ELLIPSIS))
    if n:
        return text[: words[n - 1].end()] + ELLIPSIS
    first = words[0].group(0) if words else ""
    n = _longest(len(first), lambda i: fits(first[:i] + ELLIPSIS))
    if n:
        return first[:n] + ELLIPSIS
    return first[: _longest(len(first), lambda i: fits(first[:i]))]


def _longest(n: int, ok: Callable[[int], bool]) -> int:
    """The largest ``i`` in 1..n with ``ok(i)`` (``ok`` assumed to hold for a prefix
    of that range), by binary search; 0 when ``ok(1)`` fails."""
    lo, hi = 0, n
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid - 1
    return lo
