"""The embedder contract: texts in, L2-normalised float32 vectors out."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np


class Embedder(ABC):
    #: Identifies the vector space; stored in the database so vectors of two
    #: different models are never mixed in one file.
    name: str
    dim: int
    #: The most word pieces one text may have before the model truncates it (None:
    #: unknown or no limit worth splitting for); longer memories are cut into passages.
    max_pieces: int | None = None

    def count_pieces(self, text: str) -> int:
        """Word pieces of ``text`` as this model counts them, special tokens aside
        (only needed when ``max_pieces`` is set)."""
        raise NotImplementedError

    def piece_starts(self, texts: Sequence[str]) -> list[list[int]] | None:
        """Where each word piece of each text starts (character offsets, special
        tokens aside), all texts in one call, so passages can be cut without counting
        every sentence again; None (the default) when the model cannot say, and
        :meth:`count_pieces` is asked per sentence instead."""
        return None

    @abstractmethod
    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an ``(len(texts), dim)`` float32 array of unit vectors."""

    def embed_one(self, text: str) -> np.ndarray:
        return self.embed([text])[0]

    def load(self) -> None:  # noqa: B027 - optional hook
        """Load the model now rather than at the first embedding (a server's start,
        so its first request does not wait for it); embedders that load nothing
        need not say so."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release model resources (sessions, HTTP pools)."""


def normalise(vectors: np.ndarray) -> np.ndarray:
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return vectors / norms


class MemoEmbedder(Embedder):
    """Remembers every vector it computed, by text.

    For benchmarks that run many engines over the same texts: only the first engine
    pays for embedding, so ingest throughput of the others excludes it (reports say so).
    """

    def __init__(self, inner: Embedder):
        self.inner = inner
        self.name = inner.name
        self.dim = inner.dim
        self.max_pieces = inner.max_pieces
        self._memo: dict[str, np.ndarray] = {}

    def count_pieces(self, text: str) -> int:
        return self.inner.count_pieces(text)

    def piece_starts(self, texts: Sequence[str]) -> list[list[int]] | None:
        return self.inner.piece_starts(texts)

    def load(self) -> None:
        self.inner.load()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            for text, vec in zip(missing, self.inner.embed(missing), strict=True):
                self._memo[text] = vec
            self.dim = self.inner.dim  # an endpoint embedder learns it from its first reply
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts])
