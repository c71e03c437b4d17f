"""One user's episodic-semantic graph, as sparse matrices ready for activation.

Node layout: concepts first (``0..C-1``), then episodes by index position
(``C..C+N-1``), so memories added between consolidations extend the matrices
without renumbering. Edges (all built here from stored rows and vectors):

* temporal: consecutive live episodes, both ways, weight ``exp(-rho * hours)``;
* abstraction: episode <-> each concept it mentions, both ways, weight = cosine of
  the episode and concept vectors (clipped to [0.05, 1]), so pruning keeps the
  episodes most *about* a concept;
* association: concept <-> concept at cosine >= the association threshold.

Then every node keeps its ``max_in_edges`` strongest incoming edges, fan = out-degree
after pruning, and PageRank runs once per build (power iteration on scipy sparse).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from ...index.cache import UserIndex
from .config import SynapseConfig


@dataclass
class Concept:
    cid: int
    label: str
    kind: str
    vec: np.ndarray
    archived: bool = False


@dataclass
class SemanticLayer:
    """What is stored: concepts, aliases and per-memory mentions (labels)."""

    concepts: list[Concept] = field(default_factory=list)
    aliases: dict[str, int] = field(default_factory=dict)  # label -> cid
    mentions: dict[str, dict[str, str]] = field(default_factory=dict)  # memory -> label -> kind
    label_df: dict[str, int] = field(default_factory=dict)
    consolidated_seq: int = -1
    rev: int = 0
    epoch: str = ""  # the user's epoch: an erased and recreated user starts afresh

    def add_mention(self, memory_id: str, label: str, kind: str) -> None:
        labels = self.mentions.setdefault(memory_id, {})
        if label not in labels:
            labels[label] = kind
            self.label_df[label] = self.label_df.get(label, 0) + 1

    @property
    def next_cid(self) -> int:
        return max((c.cid for c in self.concepts), default=-1) + 1


@dataclass
class Graph:
    n_concepts: int
    n_nodes: int
    incoming: sp.csr_matrix  # row i: fan-normalised weights of edges into node i
    raw_incoming: sp.csr_matrix  # the same edges, unnormalised (for explanations)
    pagerank: np.ndarray  # per node, raw
    concept_labels: list[str]
    concept_vecs: np.ndarray  # (C, dim), active concepts in node order
    index_size: int  # episodes covered when built

    def resized(self, index_size: int) -> Graph:
        """The same graph with isolated nodes for episodes added since the build."""
        n = self.n_concepts + index_size
        if n == self.n_nodes:
            return self
        inc = self.incoming.copy()
        inc.resize((n, n))
        raw = self.raw_incoming.copy()
        raw.resize((n, n))
        pr = np.concatenate([self.pagerank, np.zeros(n - self.n_nodes)])
        return Graph(
            self.n_concepts, n, inc, raw, pr, self.concept_labels, self.concept_vecs, index_size
        )


def build_graph(idx: UserIndex, layer: SemanticLayer, cfg: SynapseConfig) -> Graph:
    concepts = [c for c in layer.concepts if not c.archived]
    C = len(concepts)
    N = idx.dense.size
    n = C + N
    col: dict[int, int] = {c.cid: i for i, c in enumerate(concepts)}
    src: list[np.ndarray] = []
    dst: list[np.ndarray] = []
    wts: list[np.ndarray] = []

    # temporal chain over live episodes, in insertion order
    live = np.array(sorted(idx.pos.values()), dtype=np.int64)
    if len(live) > 1:
        times = np.asarray(idx.times, dtype=np.float64)[live]
        hours = np.abs(np.diff(times)) / 3600.0
        w = np.exp(-cfg.temporal_rho * hours) if cfg.temporal_decay else np.ones_like(hours)
        a, b = live[:-1] + C, live[1:] + C
        src += [a, b]
        dst += [b, a]
        wts += [w, w]

    # abstraction: episode <-> concept
    if C:
        vecs = np.stack([c.vec for c in concepts]).astype(np.float32)
        e_src, e_dst, e_w = [], [], []
        for memory_id, labels in layer.mentions.items():
            p = idx.pos.get(memory_id)
            if p is None:
                continue
            cols = {col[cid] for lab in labels if (cid := layer.aliases.get(lab)) in col}
            if not cols:
                continue
            cl = np.fromiter(cols, dtype=np.int64)
            w = np.clip(vecs[cl] @ idx.dense.vector(p), 0.05, 1.0)
            e_src.append(np.full(len(cl), p + C))
            e_dst.append(cl)
            e_w.append(w)
        if e_src:
            es, ed, ew = np.concatenate(e_src), np.concatenate(e_dst), np.concatenate(e_w)
            src += [es, ed]
            dst += [ed, es]
            wts += [ew, ew]
        # association: concept <-> concept
        if C > 1:
            sims = vecs @ vecs.T
            np.fill_diagonal(sims, -1.0)
            k = min(cfg.max_in_edges, C - 1)
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            rows = np.repeat(np.arange(C), k)
            cols_ = top.ravel()
            w = sims[rows, cols_]
            keep = w >= cfg.association_threshold
            src.append(rows[keep])
            dst.append(cols_[keep])
            wts.append(w[keep].astype(np.float64))

    if src:
        s = np.concatenate(src)
        d = np.concatenate(dst)
        w = np.concatenate(wts).astype(np.float64)
        s, d, w = _prune_incoming(s, d, w, cfg.max_in_edges)
    else:
        s = d = np.zeros(0, dtype=np.int64)
        w = np.zeros(0)
    raw = sp.csr_matrix((w, (d, s)), shape=(n, n))
    fan = np.bincount(s, minlength=n).astype(np.float64)
    norm_w = w / fan[s] if cfg.fan_effect and len(s) else w
    inc = sp.csr_matrix((norm_w, (d, s)), shape=(n, n))
    pr = pagerank(raw, cfg.damping)
    cvecs = (
        np.stack([c.vec for c in concepts]).astype(np.float32)
        if C
        else np.zeros((0, idx.dim), dtype=np.float32)
    )
    return Graph(C, n, inc, raw, pr, [c.label for c in concepts], cvecs, N)


def _prune_incoming(s: np.ndarray, d: np.ndarray, w: np.ndarray, keep: int):
    """Keep each destination's ``keep`` heaviest incoming edges (ties: lower source)."""
    # duplicate (s, d) pairs: keep the heaviest
    order = np.lexsort((-w, s, d))
    s, d, w = s[order], d[order], w[order]
    first = np.ones(len(s), dtype=bool)
    first[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
    s, d, w = s[first], d[first], w[first]
    order = np.lexsort((s, -w, d))
    s, d, w = s[order], d[order], w[order]
    starts = np.r_[0, np.flatnonzero(d[1:] != d[:-1]) + 1] if len(d) else np.zeros(0, int)
    rank = np.arange(len(d)) - np.repeat(starts, np.diff(np.r_[starts, len(d)]))
    mask = rank < keep
    return s[mask], d[mask], w[mask]


def pagerank(raw_incoming: sp.csr_matrix, damping: float = 0.85, iters: int = 50) -> np.ndarray:
    """Weighted PageRank; dangling nodes spread uniformly."""
    n = raw_incoming.shape[0]
    if n == 0:
        return np.zeros(0)
    out_w = np.asarray(raw_incoming.sum(axis=0)).ravel()  # column j = edges out of j
    inv = np.divide(1.0, out_w, out=np.zeros_like(out_w), where=out_w > 0)
    trans = raw_incoming @ sp.diags(inv)
    dangling = out_w == 0
    r = np.full(n, 1.0 / n)
    for _ in range(iters):
        nxt = damping * (trans @ r + r[dangling].sum() / n) + (1.0 - damping) / n
        if np.abs(nxt - r).sum() < 1e-9:
            r = nxt
            break
        r = nxt
    return r
