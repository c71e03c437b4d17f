"""Reciprocal-rank fusion (Cormack et al., 2009): the one place its constant lives.

Hybrid fuses the dense and BM25 rankings with it, SYNAPSE's ``fusion="rank"`` mode
does the same inside its ranking, and the time stage prices a window match as a
reciprocal rank on the same scale, so a change of the constant moves all three.
"""

from __future__ import annotations

import numpy as np

RRF_K = 60.0
"""RRF's constant, 60 as in its paper: ranks far down a list still count, and the
first few do not swamp the rest."""


def rrf(rankings: list[np.ndarray], constant: float = RRF_K) -> dict[int, float]:
    """Reciprocal-rank fusion: sum of 1 / (constant + rank), ranks starting at 1."""
    fused: dict[int, float] = {}
    for ranking in rankings:
        for rank, p in enumerate(ranking.tolist(), start=1):
            fused[p] = fused.get(p, 0.0) + 1.0 / (constant + rank)
    return fused
