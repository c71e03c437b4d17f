"""An inverted-file (IVF) index over one user's vectors, for approximate top-k.

Brute-force cosine reads every vector (50,000 x 384 floats is 77 MB per query), so
its cost grows with the history. Above a size threshold SYNAPSE takes its dense
anchors from this index instead: spherical k-means centroids (about 2 sqrt(N)),
each vector listed under its nearest one; a query scores the centroids, reads the
``nprobe`` closest lists and scores only their vectors exactly. Vectors appended
after the last (re)build sit in a tail that is scanned exactly, so results never
miss new memories; the tail is absorbed into the lists every ``absorb`` vectors and
the centroids are retrained when the index has doubled since training.
"""

from __future__ import annotations

import math

import numpy as np


class IvfIndex:
    def __init__(self, nprobe: int = 24, absorb: int = 4096, seed: int = 0):
        self.nprobe = nprobe
        self.absorb = absorb
        self.seed = seed
        self.centroids = np.zeros((0, 0), dtype=np.float32)
        self.trained_on = 0
        self.indexed = 0  # positions < indexed are in the lists
        self._assign = np.zeros(0, dtype=np.int32)
        self._order = np.zeros(0, dtype=np.int64)
        self._starts = np.zeros(1, dtype=np.int64)

    def _train(self, vecs: np.ndarray) -> None:
        n = len(vecs)
        k = max(8, int(2 * math.sqrt(n)))
        rng = np.random.default_rng(self.seed)
        sample = vecs[rng.choice(n, size=min(n, 32 * k), replace=False)]
        k = min(k, len(sample))  # fewer vectors than lists: one list each
        cents = sample[rng.choice(len(sample), size=k, replace=False)].copy()
        for _ in range(8):
            labels = np.argmax(sample @ cents.T, axis=1)
            sums = np.zeros_like(cents)
            np.add.at(sums, labels, sample)
            norms = np.linalg.norm(sums, axis=1, keepdims=True)
            empty = norms[:, 0] == 0
            cents = np.where(empty[:, None], cents, sums / np.maximum(norms, 1e-12))
        self.centroids = cents.astype(np.float32)
        self.trained_on = n
        self._assign = np.zeros(0, dtype=np.int32)
        self.indexed = 0

    def _index_upto(self, vecs: np.ndarray, n: int) -> None:
        new = vecs[self.indexed : n]
        labels = np.empty(len(new), dtype=np.int32)
        for i in range(0, len(new), 8192):  # bounded temporaries
            labels[i : i + 8192] = np.argmax(new[i : i + 8192] @ self.centroids.T, axis=1)
        self._assign = np.concatenate([self._assign[: self.indexed], labels])
        self._order = np.argsort(self._assign, kind="stable")
        counts = np.bincount(self._assign, minlength=len(self.centroids))
        self._starts = np.concatenate([[0], np.cumsum(counts)])
        self.indexed = n

    def sync(self, vecs: np.ndarray) -> None:
        """Bring the index up to ``vecs`` (all positions so far; rows only ever append)."""
        n = len(vecs)
        if self.trained_on == 0 or n >= 2 * self.trained_on:
            self._train(vecs)
        if n - self.indexed >= self.absorb or self.indexed == 0:
            self._index_upto(vecs, n)

    def candidates(self, query: np.ndarray, n: int) -> np.ndarray:
        """Positions whose exact score decides the approximate top-k: the vectors of
        the ``nprobe`` nearest lists plus the unindexed tail ``indexed..n-1``."""
        probe = min(self.nprobe, len(self.centroids))
        near = np.argpartition(-(self.centroids @ query), probe - 1)[:probe]
        parts = [self._order[self._starts[c] : self._starts[c + 1]] for c in near]
        parts.append(np.arange(self.indexed, n, dtype=np.int64))
        return np.concatenate(parts)
