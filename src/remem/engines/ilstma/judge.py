"""Hit judgment: can the short-term memory answer the question without retrieval?

One interface, :class:`HitJudge`; the offline judges need no LLM. The paper asks the
LLM itself (answer from the short-term memory and general knowledge, then say
whether that sufficed); that judge plugs in through the same interface once an LLM
is configured; the typed judge asks remem's typed extractive reader instead, handed
down by the facade (``EngineContext.spans``). A judge returns the cached dialogues
it relied on, so their recall metadata can be updated (deferred) on a hit.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from ...errors import LLMError
from ...index.tokenize import stem, tokenize
from ...llm import LLM, ask_json, prompts
from ...redact import failure
from ..base import FoundSpan
from .stm import Dialogue

log = logging.getLogger("remem.ilstma")


class HitJudge(Protocol):
    def judge(
        self, question: str, cache: list[Dialogue], query_vec: Callable[[], np.ndarray]
    ) -> list[Dialogue]:
        """The cached dialogues that answer the question; empty = a miss."""
        ...


class LexicalJudge:
    """Hit when one cached dialogue covers ``threshold`` of the question's IDF weight.

    Rare words (names, places, objects) carry the weight, so "When did Caroline go to
    the support group?" is covered by a cached "Caroline: I went to a support group
    yesterday" but not by another turn of Caroline's. It needs no embedding, so a hit
    costs microseconds.
    """

    def __init__(self, idf: Callable[[str], float], threshold: float):
        self.idf = idf
        self.threshold = threshold

    def coverage(self, question: str, text: str) -> float:
        q = set(tokenize(question))
        if not q:
            return 0.0
        weights = {t: self.idf(t) for t in q}
        total = sum(weights.values())
        if total <= 0:
            return 0.0
        found = {stem(t) for t in tokenize(text)}
        return sum(w for t, w in weights.items() if stem(t) in found) / total

    def judge(
        self, question: str, cache: list[Dialogue], query_vec: Callable[[], np.ndarray]
    ) -> list[Dialogue]:
        scored = [(self.coverage(question, d.text), d) for d in cache]
        return [d for c, d in sorted(scored, key=lambda x: -x[0]) if c >= self.threshold]


class EmbeddingJudge:
    """Hit when a cached dialogue's cosine to the question reaches ``threshold``."""

    def __init__(self, vectors: Callable[[list[Dialogue]], np.ndarray], threshold: float):
        self.vectors = vectors
        self.threshold = threshold

    def judge(
        self, question: str, cache: list[Dialogue], query_vec: Callable[[], np.ndarray]
    ) -> list[Dialogue]:
        if not cache:
            return []
        sims = self.vectors(cache) @ query_vec()
        order = np.argsort(-sims, kind="stable")
        return [cache[i] for i in order if sims[i] >= self.threshold]


class TypedJudge:
    """Hit when the typed reader, reading the cached dialogues alone, finds a
    confident span of the kind the question wants ("Who's teaching you?" and a
    cached "Her name is Ines Duarte"): its score reaches ``threshold`` and its
    sentence speaks to at least ``share`` of the question's asked words (the score
    ranks one question's candidates against each other; the share says whether
    the cache is about the question at all). A question that wants no typed answer
    (yes/no, when, why) is a miss. The dialogue the span was cut from is the one
    used. ``find`` is the reader over some memory ids, best first (the engine
    context's ``spans`` with the user and question bound)."""

    def __init__(
        self, find: Callable[[Sequence[str]], FoundSpan | None], threshold: float, share: float
    ):
        self.find = find
        self.threshold = threshold
        self.share = share
        self.span: FoundSpan | None = None  # the last judgment's best span, if any

    def confident(self, span: FoundSpan) -> bool:
        return span.score >= self.threshold and span.share >= self.share

    def judge(
        self, question: str, cache: list[Dialogue], query_vec: Callable[[], np.ndarray]
    ) -> list[Dialogue]:
        self.span = self.find([d.memory_id for d in cache]) if cache else None
        if self.span is None or not self.confident(self.span):
            return []
        return [d for d in cache if d.memory_id == self.span.memory_id]


HIT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "enough": {"type": "boolean"},
        "answer": {"type": "string", "maxLength": 400},
        "used": {"type": "array", "items": {"type": "integer"}, "maxItems": 8},
    },
    "required": ["enough", "answer"],
}


@dataclass(frozen=True)
class HitVerdict:
    enough: bool
    answer: str
    used: tuple[int, ...]

    @classmethod
    def from_json(cls, value: dict[str, Any]) -> HitVerdict:
        return cls(bool(value["enough"]), str(value["answer"]), tuple(value.get("used") or ()))


class LLMJudge:
    """The paper's judge: the LLM answers from the short-term memory alone and says
    whether that sufficed. On a hit its answer is the answer (one call per question);
    a failing LLM falls back to the offline judge, with a logged warning."""

    def __init__(self, llm: LLM, notes: str, fallback: HitJudge, retries: int = 1):
        self.llm = llm
        self.notes = notes
        self.fallback = fallback
        self.retries = retries
        self.answer: str | None = None
        self.calls = 0

    def _count(self) -> None:
        self.calls += 1

    def judge(
        self, question: str, cache: list[Dialogue], query_vec: Callable[[], np.ndarray]
    ) -> list[Dialogue]:
        self.answer = None
        listed = "\n".join(f"[{i}] {d.text}" for i, d in enumerate(cache, 1))
        short_term = f"Cached dialogues:\n{listed}" + (f"\n{self.notes}" if self.notes else "")
        try:
            verdict = ask_json(
                self.llm,
                prompts.render("hit_judge", short_term=short_term, question=question),
                HIT_SCHEMA,
                HitVerdict.from_json,
                task="hit_judge",
                retries=self.retries,
                max_tokens=96,
                on_call=self._count,
            )
        except LLMError as exc:
            log.warning("LLM hit judge failed (%s); using the offline judge", failure(exc))
            return self.fallback.judge(question, cache, query_vec)
        if not verdict.enough or not verdict.answer.strip():
            return []
        used = [cache[i - 1] for i in verdict.used if 1 <= i <= len(cache)]
        self.answer = verdict.answer.strip()
        return used or list(cache)
