"""The baseline engines: dense, BM25 and their reciprocal-rank fusion.

Every later engine is measured against these, and they stay in the product as the
simple, predictable options.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..index.dense import top_k
from .base import Engine, EngineContext, Scored


class DenseEngine(Engine):
    """Cosine similarity of MiniLM vectors of "Speaker: text"."""

    name = "dense"

    def search(
        self, user_id: str, query: str, query_vec: np.ndarray | None, k: int
    ) -> list[Scored]:
        with self.ctx.indexes.use(user_id) as idx:
            if len(idx) == 0 or query_vec is None:
                return []
            scores = idx.dense.scores(query_vec)
            return [Scored(idx.ids[p], float(scores[p]), "dense") for p in top_k(scores, k)]


class BM25Engine(Engine):
    """Lucene BM25 over "Speaker: text"; memories sharing no query word are not returned."""

    name = "bm25"
    needs_query_vector = False

    def search(
        self, user_id: str, query: str, query_vec: np.ndarray | None, k: int
    ) -> list[Scored]:
        with self.ctx.indexes.use(user_id) as idx:
            if len(idx) == 0:
                return []
            scores = idx.bm25.scores(query)
            return [Scored(idx.ids[p], float(scores[p]), "bm25") for p in top_k(scores, k, 0.0)]


def rrf(rankings: list[np.ndarray], constant: float = 60.0) -> dict[int, float]:
    """Reciprocal-rank fusion: sum of 1 / (constant + rank), ranks starting at 1."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, p in enumerate(ranking.tolist(), start=1):
            fused[p] = fused.get(p, 0.0) + 1.0 / (constant + rank)
    return fused


class HybridEngine(Engine):
    """RRF of the dense and BM25 rankings, each cut at ``depth`` (default 100).

    Rank fusion needs no score calibration between the two signals, which is why it
    is the strongest simple baseline on conversational data.
    """

    name = "hybrid"

    def __init__(
        self, ctx: EngineContext, *, depth: int = 100, constant: float = 60.0, **options: Any
    ):
        super().__init__(ctx, **options)
        self.depth = depth
        self.constant = constant

    def search(
        self, user_id: str, query: str, query_vec: np.ndarray | None, k: int
    ) -> list[Scored]:
        depth = max(self.depth, k)
        with self.ctx.indexes.use(user_id) as idx:
            if len(idx) == 0 or query_vec is None:
                return []
            dense = top_k(idx.dense.scores(query_vec), depth)
            lexical = top_k(idx.bm25.scores(query), depth, 0.0)
            fused = rrf([dense, lexical], self.constant)
            best = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
            return [Scored(idx.ids[p], score, "hybrid") for p, score in best]
