"""An incremental BM25 index (Lucene variant, as bm25s computes it).

bm25s builds an immutable index; a memory store gains one turn at a time and is
searched in between, and rebuilding bm25s on every add costs O(N) per turn. This
index keeps postings lists that grow in place and computes the Lucene scores at
query time with the current corpus statistics (N, df, average length), so its
scores equal a fresh ``bm25s.BM25(method="lucene")`` over the same live documents
(tested). Deletion is O(terms of the document), and a word no live document holds any
more leaves the vocabulary with its postings: a deleted memory's words (a passport
number) must not stay in the process.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable

import numpy as np

from .tokenize import inflection_key, tokenize


class BM25Index:
    def __init__(self, k1: float = 1.5, b: float = 0.75):
        self.k1 = k1
        self.b = b
        self._vocab: dict[str, int] = {}
        self._tokens: list[str | None] = []  # term id -> word (None once forgotten)
        self._forms: dict[str, list[int]] = {}  # inflection key -> its words' term ids
        self._post_docs: list[list[int]] = []
        self._post_tf: list[list[int]] = []
        self._post_cache: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._df: list[int] = []
        self._doc_terms: list[dict[int, int] | None] = []
        self._doc_len = np.zeros(0, dtype=np.float32)
        self._alive = np.zeros(0, dtype=bool)
        self._n_docs = 0
        self._n_alive = 0
        self._total_len = 0
        self._relative: tuple[tuple[int, int, int], np.ndarray] | None = None

    def __len__(self) -> int:
        return self._n_alive

    @property
    def size(self) -> int:
        """Number of positions ever assigned (dead ones included)."""
        return self._n_docs

    def _grow(self, extra: int) -> None:
        need = self._n_docs + extra
        if need > len(self._alive):
            cap = max(need, 2 * len(self._alive), 64)
            doc_len = np.zeros(cap, dtype=np.float32)
            doc_len[: self._n_docs] = self._doc_len[: self._n_docs]
            alive = np.zeros(cap, dtype=bool)
            alive[: self._n_docs] = self._alive[: self._n_docs]
            self._doc_len, self._alive = doc_len, alive

    def add(self, texts: list[str]) -> None:
        """Append documents; their positions continue from the current size."""
        self._grow(len(texts))
        for text in texts:
            pos = self._n_docs
            counts = Counter(tokenize(text))
            terms: dict[int, int] = {}
            for token, tf in counts.items():
                tid = self._vocab.get(token)
                if tid is None:
                    tid = len(self._post_docs)
                    self._vocab[token] = tid
                    self._tokens.append(token)
                    self._forms.setdefault(inflection_key(token), []).append(tid)
                    self._post_docs.append([])
                    self._post_tf.append([])
                    self._df.append(0)
                self._post_docs[tid].append(pos)
                self._post_tf[tid].append(tf)
                self._df[tid] += 1
                self._post_cache.pop(tid, None)
                terms[tid] = tf
            length = sum(counts.values())
            self._doc_terms.append(terms)
            self._doc_len[pos] = length
            self._alive[pos] = True
            self._total_len += length
            self._n_docs += 1
            self._n_alive += 1

    def relative_lengths(self, groups: np.ndarray | None = None) -> np.ndarray:
        """Each position's length in tokens over the median length of the live
        documents of its group (``groups``: one integer per position, e.g. who said
        it; None: one group), 0 at deleted positions: how long a memory is for this
        history and this speaker, whatever their language or habits."""
        n = self._n_docs
        labels = np.zeros(n, dtype=np.int64) if groups is None else np.asarray(groups[:n])
        # kept until a document comes or goes or a label changes: a search reads it
        # once, and at 50,000 memories it costs about 3 ms
        key = (n, self._n_alive, hash(labels.tobytes()))
        if self._relative is not None and self._relative[0] == key:
            return self._relative[1]
        alive = self._alive[:n]
        lengths = self._doc_len[:n]
        out = np.zeros(n, dtype=np.float64)
        for g in np.unique(labels[alive]):
            members = alive & (labels == g)
            median = float(np.median(lengths[members]))
            out[members] = lengths[members] / max(median, 1.0)
        self._relative = (key, out)
        return out

    def remove(self, pos: int) -> None:
        if pos >= self._n_docs or not self._alive[pos]:
            return
        terms = self._doc_terms[pos] or {}
        for tid in terms:
            self._df[tid] -= 1
            if self._df[tid] == 0:
                self._forget_term(tid)
        self._alive[pos] = False
        self._total_len -= int(self._doc_len[pos])
        self._n_alive -= 1
        self._doc_terms[pos] = None

    def _forget_term(self, tid: int) -> None:
        """Drop a word no live document holds: its vocabulary entry and postings. The
        term id stays allotted (ids index the lists) but empty; a later document with
        the word gets a new one."""
        token = self._tokens[tid]
        if token is not None:
            del self._vocab[token]
            self._tokens[tid] = None
            key = inflection_key(token)
            forms = self._forms[key]
            forms.remove(tid)
            if not forms:
                del self._forms[key]
        self._post_docs[tid] = []
        self._post_tf[tid] = []
        self._post_cache.pop(tid, None)

    def df(self, token: str) -> int:
        """How many live documents hold the (tokenized) term."""
        tid = self._vocab.get(token)
        return int(self._df[tid]) if tid is not None else 0

    def idf(self, token: str) -> float:
        """The Lucene IDF of a (tokenized) term; a term no live document has gets the
        largest possible value, as if it occurred in none."""
        n = self._n_alive
        tid = self._vocab.get(token)
        df = self._df[tid] if tid is not None else 0
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5))

    def rarity(self, text: str) -> float:
        """How rare the rarest word of ``text`` is here: its IDF over the largest an
        IDF can be (a word no live document holds), 0 for a text of no word. The
        typed reader prefers answers of rare words ("a bullet journal") to common
        ones ("a lot", "the photo"), as rare for this user's memories."""
        terms = tokenize(text)
        if not terms:
            return 0.0
        top = math.log(1.0 + (self._n_alive + 0.5) / 0.5)
        return max(self.idf(t) for t in terms) / top

    def query_weights(self, query: str) -> dict[str, float]:
        """Each distinct term of the query with its IDF."""
        return {t: self.idf(t) for t in set(tokenize(query))}

    def holders(self, token: str) -> np.ndarray:
        """The live positions whose document holds the (tokenized) term as written
        (no other inflected form), ascending; empty for a word no live document has."""
        tid = self._vocab.get(token)
        if tid is None:
            return np.zeros(0, dtype=np.int64)
        docs = self._postings(tid)[0]
        return docs[self._alive[docs]] if self._n_alive < self._n_docs else docs

    def held_terms(self, pos: int, terms: Iterable[str]) -> set[str]:
        """Which of ``terms`` the memory at ``pos`` holds (none when it is deleted)."""
        doc = self._doc_terms[pos] if pos < self._n_docs else None
        if not doc:
            return set()
        return {t for t in terms if self._vocab.get(t) in doc}

    def _postings(self, tid: int) -> tuple[np.ndarray, np.ndarray]:
        cached = self._post_cache.get(tid)
        if cached is None:
            cached = (
                np.asarray(self._post_docs[tid], dtype=np.int64),
                np.asarray(self._post_tf[tid], dtype=np.float32),
            )
            self._post_cache[tid] = cached
        return cached

    def _term(self, tids: Iterable[int]) -> tuple[np.ndarray, np.ndarray, int] | None:
        """The postings of the live words ``tids`` as one term: the documents holding
        any of them, their summed frequency and how many live documents that is (a
        single word's postings as they are; None when no live document holds one)."""
        tids = [t for t in tids if self._df[t] > 0]
        if not tids:
            return None
        if len(tids) == 1:
            return (*self._postings(tids[0]), self._df[tids[0]])
        parts = [self._postings(t) for t in tids]
        docs, where = np.unique(np.concatenate([d for d, _ in parts]), return_inverse=True)
        tf = np.bincount(where, weights=np.concatenate([f for _, f in parts]))
        live = self._alive[docs]
        return docs[live], tf[live].astype(np.float32), int(live.sum())

    def scores(self, query: str, inflections: bool = False) -> np.ndarray:
        """BM25 score of every position for ``query`` (0 for dead or unmatched documents).

        A query word counted twice weighs twice, as in bm25s. With ``inflections`` a
        query word also matches the other inflected forms of its base ("classes" the
        memory that says "class", "baked" the one that says "baking";
        :func:`~remem.index.tokenize.inflection_key`): all forms count as one term,
        with their summed frequency in a memory and the number of memories holding any
        of them as its document frequency, as if the index were stemmed.
        """
        out = np.zeros(self._n_docs, dtype=np.float32)
        if self._n_alive == 0:
            return out
        n = self._n_alive
        avg = self._total_len / n if self._total_len > 0 else 1.0
        k1, b = self.k1, self.b
        words = tokenize(query)
        for token, times in Counter(map(inflection_key, words) if inflections else words).items():
            if inflections:  # the token is a key: every form the index holds
                term = self._term(self._forms.get(token, ()))
            else:
                tid = self._vocab.get(token)
                term = None if tid is None else self._term((tid,))
            if term is None:
                continue
            docs, tf, df = term
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            norm = k1 * ((1.0 - b) + b * self._doc_len[docs] / avg)
            out[docs] += times * idf * tf / (tf + norm)
        if self._n_alive < self._n_docs:  # only histories with deletions need the mask
            out[~self._alive[: self._n_docs]] = 0.0
        return out

    def nbytes(self) -> int:
        postings = sum(len(p) for p in self._post_docs) * 2 * 28  # python ints in lists
        return postings + self._doc_len.nbytes + self._alive.nbytes
