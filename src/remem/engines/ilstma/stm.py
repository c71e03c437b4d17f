"""ILSTMA's short-term memory: five bounded segments per user (paper section 3.3).

cache (the prefetched dialogues) · summary · personality · history (a queue of the
most recent turns) · relevant (the dialogues recalled on a cache miss). It lives in
the process (it is short-term by nature); what must survive - memories, recall
metadata, summaries, the profile - is in the store, and metadata updates buffered
on cache hits are flushed when the cache is overwritten and on close.

Every entry keeps the id of the memory it came from, so a deleted memory can be
forgotten (:meth:`ShortTermMemory.forget`): deleting has to mean gone, from the
process's copies too.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ...tokens import clip_tokens, estimate_tokens

__all__ = ["Dialogue", "ShortTermMemory", "clip_tokens", "estimate_tokens"]


@dataclass(frozen=True)
class Dialogue:
    """A table entry as the short-term memory holds it."""

    memory_id: str
    index: int  # the entry's index (creation order) in the global memory table
    text: str
    score: float = 0.0
    recall_times: int = 1  # as the table held it when the dialogue was cached


@dataclass
class ShortTermMemory:
    history_turns: int = 7
    segment_tokens: int = 400
    cache: list[Dialogue] = field(default_factory=list)
    summary: str = ""
    personality: str = ""
    relevant: list[Dialogue] = field(default_factory=list)
    #: (memory id, turn text) of the most recent turns, oldest first
    history: deque[tuple[str, str]] = field(default_factory=deque)
    #: recall metadata of cache hits as this process sees it (recall times, last recall)
    deferred: dict[str, tuple[int, float]] = field(default_factory=dict)
    #: the same hits as increments (recalls, last recall), written as such when the
    #: cache is overwritten, so hits counted by other workers meanwhile are kept
    pending: dict[str, tuple[int, float]] = field(default_factory=dict)
    questions: int = 0
    #: the user's (epoch, delete revision) when this was last brought up to date: a
    #: change means memories were deleted (by any process) since
    seen: tuple[str, int] | None = None

    def push_turn(self, memory_id: str, text: str) -> None:
        self.history.append((memory_id, clip_tokens(text, self.segment_tokens)))
        while len(self.history) > self.history_turns:
            self.history.popleft()

    def forget(self, gone: Callable[[str], bool]) -> None:
        """Drop every entry of the memories ``gone`` says were deleted, and the summary
        and profile (they may quote them; the next miss picks them again from the
        store, where the deleted memories' notes are already gone)."""
        self.cache = [d for d in self.cache if not gone(d.memory_id)]
        self.relevant = [d for d in self.relevant if not gone(d.memory_id)]
        self.history = deque(turn for turn in self.history if not gone(turn[0]))
        for buffered in (self.deferred, self.pending):
            for memory_id in [m for m in buffered if gone(m)]:
                del buffered[memory_id]
        self.summary = self.personality = ""

    def segments(self) -> dict[str, Any]:
        """The five segments as they would enter a prompt, each within its budget."""
        return {
            "cache": _fit([d.text for d in self.cache], self.segment_tokens),
            "summary": clip_tokens(self.summary, self.segment_tokens),
            "personality": clip_tokens(self.personality, self.segment_tokens),
            "history": _fit([t for _, t in self.history], self.segment_tokens, newest_last=True),
            "relevant": _fit([d.text for d in self.relevant], self.segment_tokens),
        }

    def tokens(self) -> int:
        segs = self.segments()
        return sum(
            estimate_tokens(" ".join(v) if isinstance(v, list) else v) for v in segs.values()
        )


def _fit(texts: list[str], budget: int, *, newest_last: bool = False) -> list[str]:
    """Whole texts in order while they fit (the newest ones for a history)."""
    out: list[str] = []
    used = 0
    for text in reversed(texts) if newest_last else texts:
        cost = estimate_tokens(text)
        if used + cost > budget:
            if not out:
                out.append(clip_tokens(text, budget))
            break
        out.append(text)
        used += cost
    return list(reversed(out)) if newest_last else out
