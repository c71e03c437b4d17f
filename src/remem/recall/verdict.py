"""The pipeline's verdict step: does memory hold the answer at all?

``answer/verdict.py`` holds the calibrated model and the signals it reads; this step
gives it the user's side of the evidence: how rare each question word is and whether
any memory holds it (the user's lexical index), and how near in meaning a thing the
question says the user has comes to the hits (one word embedded, compared with the
hits' vectors).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..answer.verdict import Verdict, VerdictModel, judge, signals
from ..embed.base import Embedder
from ..index.cache import IndexCache
from ..question import Question
from ..types import Hit


class VerdictStage:
    """The "not in memory" verdict over a recall's hits, with one model."""

    name = "verdict"

    def __init__(self, model: VerdictModel, embedder: Embedder, indexes: IndexCache):
        self.model = model
        self._embedder = embedder
        self._indexes = indexes

    def __call__(self, user_id: str, question: Question, hits: list[Hit]) -> Verdict:
        with self._indexes.use(user_id) as idx:
            at = np.array([idx.pos[h.id] for h in hits if h.id in idx.pos], dtype=np.int64)

            def related(word: str) -> float:
                return idx.nearest(at, self._embedder.embed_one(word))

            values = signals(
                question,
                hits,
                idx.bm25.idf,
                lambda t: idx.bm25.df(t) > 0,
                len(idx.bm25),
                related,
            )
        verdict = judge(values, self.model)
        # nothing recalled (no memories, or none the search found): certain, whatever
        # the model makes of the question's words
        return verdict if hits else replace(verdict, score=1.0, not_in_memory=True)
