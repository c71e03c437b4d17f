"""The baseline engines: dense, BM25 and their reciprocal-rank fusion.

Every later engine is measured against these, and they stay in the product as the
simple, predictable options.

The dense channel runs in the store when it offers a vector search of its own
(``Store.vector_search``, e.g. PostgreSQL with pgvector): the same exact cosine
ranking, computed where the rows live. SYNAPSE and ILSTMA keep searching in process
on every backend: their graph, activation and cache need each memory's vector in
memory anyway, so a round trip would add latency and save nothing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from ..index.cache import UserIndex
from ..index.dense import top_k
from ..index.restrict import Restriction
from ..index.tokenize import without_asking
from ..options import number, resolve, switch
from .base import Engine, EngineContext, Scored
from .fusion import RRF_K, rrf


def dense_ranking(
    ctx: EngineContext,
    idx: UserIndex,
    user_id: str,
    query_vec: np.ndarray,
    k: int,
    restrict: Restriction | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(positions, cosines) of the k memories nearest the query, best first: from the
    store's own vector search when it has one, else from the in-process index.

    Only memories in ``idx`` count (rows another process added after the index was
    synchronised are skipped, as the in-process path would not see them either), so
    both paths rank the same set; the store is asked again for more when skipping
    left fewer than k. Under a read's filters (``restrict``) the in-process path
    ranks, with every position the filters mask scored -inf before the top k.
    """
    want = k
    while True:
        # the store's own scan ranks each memory by its own vector: a user with long
        # memories is ranked here, by their best passage
        found = (
            None
            if idx.has_passages or restrict is not None
            else ctx.store.vector_search(user_id, query_vec, want)
        )
        if found is None:
            scores = idx.similarity(query_vec)
            if restrict is not None:
                scores[~restrict.mask(idx)] = -np.inf
            best = top_k(scores, k)
            return best, scores[best]
        pos = [(idx.pos[i], s) for i, s in found if i in idx.pos]
        if len(pos) >= k or len(found) < want:
            pos = pos[:k]
            return (
                np.array([p for p, _ in pos], dtype=np.int64),
                np.array([s for _, s in pos], dtype=np.float64),
            )
        want *= 2


class DenseEngine(Engine):
    """Cosine similarity of MiniLM vectors of "Speaker: text"."""

    name = "dense"
    filters = True

    def search(
        self,
        user_id: str,
        query: str,
        query_vec: np.ndarray | None,
        k: int,
        *,
        restrict: Restriction | None = None,
    ) -> list[Scored]:
        with self.ctx.indexes.use(user_id) as idx:
            if len(idx) == 0 or query_vec is None:
                return []
            best, scores = dense_ranking(self.ctx, idx, user_id, query_vec, k, restrict)
            return [
                Scored(idx.ids[p], float(s), passage_why(idx, p, query_vec, "dense"))
                for p, s in zip(best.tolist(), scores.tolist(), strict=True)
            ]


class BM25Engine(Engine):
    """Lucene BM25 over "Speaker: text"; memories sharing no query word are not returned."""

    name = "bm25"
    needs_query_vector = False
    filters = True

    def search(
        self,
        user_id: str,
        query: str,
        query_vec: np.ndarray | None,
        k: int,
        *,
        restrict: Restriction | None = None,
    ) -> list[Scored]:
        with self.ctx.indexes.use(user_id) as idx:
            if len(idx) == 0:
                return []
            scores = lexical_scores(idx, query, restrict)
            return [Scored(idx.ids[p], float(scores[p]), "bm25") for p in top_k(scores, k, 0.0)]


def lexical_scores(idx: UserIndex, query: str, restrict: Restriction | None) -> np.ndarray:
    """BM25 of every position, 0 (never returned) where a read's filters mask it."""
    scores = idx.bm25.scores(query)
    if restrict is not None:
        scores = np.where(restrict.mask(idx)[: len(scores)], scores, 0.0)
    return scores


def passage_why(idx: UserIndex, pos: int, query_vec: np.ndarray, why: str) -> str:
    """``why``, naming the passage that matched when the memory has several."""
    found = idx.best_passage(pos, query_vec)
    if found is None:
        return why
    i, start, end = found
    n = len(idx.passage_spans[pos])
    return f"{why} (passage {i + 1} of {n}: characters {start}-{end})"


@dataclass(frozen=True)
class HybridConfig:
    """The hybrid engine's options (``Memory(engine="hybrid", engine_options={...})``)."""

    depth: int = number(100, low=1)
    """choice: each channel's ranking is cut at this depth before fusion (at least k)."""
    constant: float = number(RRF_K, low=0)
    """RRF's constant, 60 as in its paper (``engines/fusion.py``)."""
    lexical_asking: bool = switch(True)
    """choice: whether the lexical ranking reads the question's asking words ("when",
    "what", "did"), as the plain RRF baseline does. Off, they are left out as SYNAPSE
    leaves them out: "did" and "what" no longer lift chatty turns ("Cool! What did it
    look like?"), and recall rose a little, but the verdict then refused fewer
    never-said questions on the conversations it was not fitted on: hits closer to the
    question's topic look like an answer to its false premise too. So the baseline
    stays as published (docs/notes/benchmark-history.md#time-and-change-fourth-round-issue-36)."""


class HybridEngine(Engine):
    """RRF of the dense and BM25 rankings, each cut at ``depth`` (default 100).

    Rank fusion needs no score calibration between the two signals, which is why it
    is the strongest simple baseline on conversational data.
    """

    name = "hybrid"
    config_class = HybridConfig
    filters = True

    def __init__(self, ctx: EngineContext, **options: Any):
        super().__init__(ctx)
        self.cfg = resolve(HybridConfig, options, f"engine {self.name!r}")
        # the hybrid model was fitted on this engine with its default settings (other
        # settings get the default family, which is hybrid's too)
        self.verdict = "hybrid" if self.cfg == HybridConfig() else None
        self.depth = self.cfg.depth
        self.constant = self.cfg.constant

    def config(self) -> dict[str, Any]:
        return asdict(self.cfg)

    def search(
        self,
        user_id: str,
        query: str,
        query_vec: np.ndarray | None,
        k: int,
        *,
        restrict: Restriction | None = None,
    ) -> list[Scored]:
        depth = max(self.depth, k)
        with self.ctx.indexes.use(user_id) as idx:
            if len(idx) == 0 or query_vec is None:
                return []
            dense, _ = dense_ranking(self.ctx, idx, user_id, query_vec, depth, restrict)
            words = query if self.cfg.lexical_asking else without_asking(query)
            lexical = top_k(lexical_scores(idx, words, restrict), depth, 0.0)
            fused = rrf([dense, lexical], self.constant)
            best = sorted(fused.items(), key=lambda kv: (-kv[1], kv[0]))[:k]
            return [
                Scored(idx.ids[p], score, passage_why(idx, p, query_vec, "hybrid"))
                for p, score in best
            ]
