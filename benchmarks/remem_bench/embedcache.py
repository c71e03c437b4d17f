"""An embedding cache on disk for repeated benchmark runs.

Tuning a retrieval mechanism on LongMemEval means many runs over the same few
thousand long texts; embedding them is most of a run's time on a laptop. This cache
keeps every vector a run computed, by model and text digest, in one ``.npz`` file,
so a later run embeds only what is new. It changes no result: the vectors are the
model's own, stored as float32. Timed ingest then excludes embedding, as with
``--reuse-embeddings``, and reports say so.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from remem.embed import Embedder, create_embedder


class MemoEmbedder(Embedder):
    """Remembers every vector it computed, by text.

    For benchmarks that run many engines over the same texts: only the first engine
    pays for embedding, so ingest throughput of the others excludes it (reports say
    so). The harness's own, over remem's public :class:`~remem.embed.Embedder`: its
    name, length limit and word pieces are the inner one's.
    """

    def __init__(self, inner: Embedder):
        self.inner = inner
        self.name = inner.name
        self.max_pieces = inner.max_pieces
        self.dim = inner.dim
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


def said_text(text: str, speaker: str | None) -> str:
    """A turn as the engines embed and index it, the speaker before the words
    ("Caroline: ..."), as docs/configuration.md says; the harness's own two lines, so a
    count of word pieces or a lexical baseline does not borrow remem's code."""
    return f"{speaker}: {text}" if speaker else text


def word_pieces(texts: Sequence[str]) -> int:
    """How many MiniLM word pieces the texts hold, untruncated, ``[CLS]`` and ``[SEP]``
    included as the model sees them (the unit of embedding work), counted through the
    public embedder's :meth:`~remem.embed.Embedder.count_pieces`."""
    minilm = create_embedder("minilm")  # the shared instance; its model loads on first use
    return sum(minilm.count_pieces(t) + 2 for t in texts)


def _digest(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8"), digest_size=16).hexdigest()


class DiskCachedEmbedder(MemoEmbedder):
    """A :class:`MemoEmbedder` whose memo starts from, and is saved to, ``path``."""

    def __init__(self, inner: Embedder, path: str | os.PathLike[str]):
        super().__init__(inner)
        self.path = Path(path)
        self._disk: dict[str, np.ndarray] = {}
        self._new = 0
        if self.path.is_file():
            with np.load(self.path, allow_pickle=False) as data:
                if str(data["model"]) == f"{inner.name}/{inner.dim}":
                    self._disk = dict(zip(data["keys"].tolist(), data["vectors"], strict=True))

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        for t in dict.fromkeys(texts):
            if t not in self._memo:
                hit = self._disk.get(_digest(t))
                if hit is not None:
                    self._memo[t] = hit
        before = len(self._memo)
        out = super().embed(texts)
        self._new += len(self._memo) - before
        return out

    def save(self) -> None:
        """Write every vector known (atomically: a crash leaves the old file)."""
        if not self._new:
            return
        merged = dict(self._disk)
        merged.update({_digest(t): v for t, v in self._memo.items()})
        tmp = self.path.with_suffix(f".tmp-{os.getpid()}.npz")
        np.savez(
            tmp,
            model=np.array(f"{self.inner.name}/{self.inner.dim}"),
            keys=np.array(list(merged)),
            vectors=np.stack(list(merged.values())).astype(np.float32),
        )
        os.replace(tmp, self.path)
        self._disk, self._new = merged, 0
