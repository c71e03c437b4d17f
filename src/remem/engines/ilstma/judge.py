"""Hit judgment: can the short-term memory answer the question without retrieval?

One interface, :class:`HitJudge`; the offline judges need no LLM. The paper asks the
LLM itself (answer from the short-term memory and general knowledge, then say
whether that sufficed); that judge plugs in through the same interface once an LLM
is configured. A judge returns the cached dialogues it relied on, so their recall
metadata can be updated (deferred) on a hit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from ...index.tokenize import tokenize
from .stm import Dialogue


class HitJudge(Protocol):
    def judge(
        self, question: str, cache: list[Dialogue], query_vec: Callable[[], np.ndarray]
    ) -> list[Dialogue]:
        """The cached dialogues that answer the question; empty = a miss."""
        ...


def stem(token: str) -> str:
    """A light suffix stripper, so "painted" covers "paint" and "kids" covers "kid"
    (the BM25 index itself stays unstemmed, as in the baselines)."""
    if len(token) <= 4:
        return token
    for suffix, repl in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", "e"), ("s", "")):
        if token.endswith(suffix) and len(token) - len(suffix) >= 3:
            return token[: len(token) - len(suffix)] + repl
    return token


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
