"""The embedder contract: texts in, L2-normalised float32 vectors out."""

from __future__ import annotations

import logging
from abc import ABC, abstractmethod
from collections.abc import Sequence

import numpy as np

from ..errors import EmbedderError

log = logging.getLogger(__name__)


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


MAX_LENGTH = 1.001
"""The longest vector remem keeps or ranks (its L2 norm). Every vector is a unit
vector, so a dot product is a cosine in [-1, 1]; float32 rounding leaves one within
about 1e-6 of 1. A longer one would outscore every other memory on every query (one
component of 1e39, finite as JSON, is infinite as float32)."""


def usable(vectors: np.ndarray) -> np.ndarray:
    """Per row of a 2-D array: whether it is a vector a dot product can rank, every
    component finite and a length of at most :data:`MAX_LENGTH` (measured in float64,
    where squaring a float32 cannot overflow; NaN fails too)."""
    wide = np.asarray(vectors, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.linalg.norm(wide, axis=1) <= MAX_LENGTH


def rankable(vectors: np.ndarray) -> np.ndarray:
    """``vectors`` as read from the store, each one a dot product cannot rank (not
    finite, or longer than a unit vector: a damaged file, or a table imported before
    vectors were checked) replaced by zeros, which match nothing. Such a memory is
    still found by its words; left as it was, it would outrank every other memory on
    every query, with a score of infinity or NaN."""
    ok = usable(vectors)
    if ok.all():
        return vectors
    log.warning("%d stored vector(s) cannot be ranked; they count as zeros", int((~ok).sum()))
    out = np.array(vectors, dtype=np.float32)
    out[~ok] = 0.0
    return out


def normalise(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (a zero row stays zero), in float32. A row whose
    squared length leaves float32's range (components past about 1e19, or all below
    1e-19) is scaled in float64, so it too comes out a unit vector, not zeros or the
    row unchanged."""
    vectors = np.asarray(vectors, dtype=np.float32)
    with np.errstate(over="ignore", under="ignore"):
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    out = vectors / np.where(norms == 0, 1.0, norms)
    length = norms[:, 0]
    redo = (~np.isfinite(length) | (length < 1e-18)) & np.isfinite(vectors).all(axis=1)
    redo &= vectors.any(axis=1)
    if redo.any():
        wide = vectors[redo].astype(np.float64)
        out[redo] = wide / np.linalg.norm(wide, axis=1, keepdims=True)
    return out


class WrappedEmbedder(Embedder):
    """An embedder over another (``inner``) that changes only how it embeds: its name,
    length limit and word pieces are the inner one's."""

    def __init__(self, inner: Embedder):
        self.inner = inner
        self.name = inner.name
        self.max_pieces = inner.max_pieces

    def count_pieces(self, text: str) -> int:
        return self.inner.count_pieces(text)

    def piece_starts(self, texts: Sequence[str]) -> list[list[int]] | None:
        return self.inner.piece_starts(texts)

    def load(self) -> None:
        self.inner.load()


class CheckedEmbedder(WrappedEmbedder):
    """The embedder a Memory embeds with: ``inner``, with every output checked before
    it is stored or ranked: one row per text, ``dim`` wide, every row :func:`usable`.
    Anything else is the embedder's fault, an :class:`EmbedderError` (a custom
    embedder that forgets to normalise, an endpoint sending huge numbers), raised
    before anything is written."""

    @property
    def dim(self) -> int:
        return self.inner.dim  # an endpoint embedder learns it from its first reply

    @dim.setter
    def dim(self, value: int) -> None:
        self.inner.dim = value

    def close(self) -> None:
        self.inner.close()

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        raw = self.inner.embed(texts)
        try:
            with np.errstate(over="ignore"):
                vectors = np.asarray(raw, dtype=np.float32)
        except (TypeError, ValueError, OverflowError):
            raise EmbedderError(f"{self.name} returned no array of numbers") from None
        if vectors.shape != (len(texts), self.dim):
            raise EmbedderError(
                f"{self.name} returned an array of shape {vectors.shape} for "
                f"{len(texts)} texts of {self.dim} dimensions"
            )
        bad = int(len(vectors) - usable(vectors).sum())
        if bad:
            raise EmbedderError(
                f"{self.name} returned {bad} vector(s) with a component that is not a "
                f"finite float32 or a length over {MAX_LENGTH}: an embedder returns unit vectors"
            )
        return vectors


class MemoEmbedder(WrappedEmbedder):
    """Remembers every vector it computed, by text.

    For benchmarks that run many engines over the same texts: only the first engine
    pays for embedding, so ingest throughput of the others excludes it (reports say so).
    """

    def __init__(self, inner: Embedder):
        super().__init__(inner)
        self.dim = inner.dim
        self._memo: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._memo))
        if missing:
            for text, vec in zip(missing, self.inner.embed(missing), strict=True):
                self._memo[text] = vec
            self.dim = self.inner.dim  # an endpoint embedder learns it from its first reply
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._memo[t] for t in texts])
