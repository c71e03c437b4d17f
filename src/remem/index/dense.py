"""Brute-force cosine search over one user's vectors in numpy.

At 10,000 x 384 float32 one query is a 15 MB matrix-vector product (~1 ms on two
cores), simpler and exact compared with an ANN index at the sizes one user's memory
reaches; capacity doubles so appends are amortised O(1).
"""

from __future__ import annotations

import numpy as np

from .ivf import IvfIndex


class DenseIndex:
    def __init__(self, dim: int):
        self.dim = dim
        self._vecs = np.zeros((0, dim), dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)
        self._n = 0
        self._dead = 0
        self._ivf: IvfIndex | None = None

    @property
    def size(self) -> int:
        return self._n

    def add(self, vectors: np.ndarray) -> None:
        vectors = np.asarray(vectors, dtype=np.float32).reshape(-1, self.dim)
        need = self._n + len(vectors)
        if need > len(self._vecs):
            cap = max(need, 2 * len(self._vecs), 64)
            vecs = np.zeros((cap, self.dim), dtype=np.float32)
            vecs[: self._n] = self._vecs[: self._n]
            alive = np.zeros(cap, dtype=bool)
            alive[: self._n] = self._alive[: self._n]
            self._vecs, self._alive = vecs, alive
        self._vecs[self._n : need] = vectors
        self._alive[self._n : need] = True
        self._n = need

    def remove(self, pos: int) -> None:
        if pos < self._n and self._alive[pos]:
            self._alive[pos] = False
            self._vecs[pos] = 0.0
            self._dead += 1

    def snapshot(self) -> tuple[np.ndarray, np.ndarray | None]:
        """(vectors, alive mask or None when nothing is dead) to score outside the lock:
        appends write past the snapshot or into a new array, so it stays consistent."""
        alive = self._alive[: self._n].copy() if self._dead else None
        return self._vecs[: self._n], alive

    def is_alive(self, pos: int) -> bool:
        return 0 <= pos < self._n and bool(self._alive[pos])

    def vector(self, pos: int) -> np.ndarray:
        return self._vecs[pos]

    @property
    def matrix(self) -> np.ndarray:
        """All stored vectors (dead rows are zero); a view, do not modify."""
        return self._vecs[: self._n]

    def scores(self, query_vec: np.ndarray) -> np.ndarray:
        """Cosine of every position to the query (-inf for dead positions)."""
        out = self._vecs[: self._n] @ np.asarray(query_vec, dtype=np.float32)
        if self._dead:  # most histories never delete: skip the mask pass then
            out[~self._alive[: self._n]] = -np.inf
        return out

    def approx_top_k(self, query_vec: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """(positions, cosines) of an approximate top-k through an IVF index built and
        kept current on demand (see ``ivf.py``); exact within the lists it reads."""
        if self._ivf is None:
            self._ivf = IvfIndex()
        self._ivf.sync(self._vecs[: self._n])
        q = np.asarray(query_vec, dtype=np.float32)
        cand = self._ivf.candidates(q, self._n)
        if self._dead:
            cand = cand[self._alive[cand]]
        cos = self._vecs[cand] @ q
        best = top_k(cos, k)
        return cand[best], cos[best]

    def cosines(self, positions: np.ndarray, query_vec: np.ndarray) -> np.ndarray:
        """Exact cosine of the given positions (-inf where dead)."""
        out = self._vecs[positions] @ np.asarray(query_vec, dtype=np.float32)
        if self._dead:
            out[~self._alive[positions]] = -np.inf
        return out

    def nbytes(self) -> int:
        return self._vecs.nbytes + self._alive.nbytes


def top_k(scores: np.ndarray, k: int, min_score: float = -np.inf) -> np.ndarray:
    """Positions of the k best scores above ``min_score``, best first; ties by position
    (none for k <= 0)."""
    if k <= 0:
        return np.zeros(0, dtype=np.int64)
    valid = np.flatnonzero(scores > min_score)
    if len(valid) > k:
        vals = scores[valid]
        kth = np.partition(vals, len(vals) - k)[len(vals) - k]
        valid = valid[vals >= kth]  # keep every tie at the cut, then order decides
    order = np.lexsort((valid, -scores[valid]))
    return valid[order][:k]
