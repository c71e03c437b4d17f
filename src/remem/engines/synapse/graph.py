"""One user's episodic-semantic graph, as sparse matrices ready for activation.

Node layout: concepts first (``0..C-1``), then episodes by index position
(``C..C+N-1``), so memories added between consolidations extend the matrices
without renumbering. A memory without a word ("x", "?", an emoji: nothing the lexical
index reads, ``tokenize.has_words``) is no episode: as one it only relayed its
neighbours' activation and held PageRank for its place in the chain, which ranked a
lone "x" above the memory next to it that matched the question; it is ranked by its
similarity alone, and the chain links its neighbours. Edges (all built here from
stored rows and vectors):

* temporal: consecutive live episodes, both ways, weight ``exp(-rho * hours)``;
* abstraction: episode <-> each concept it mentions, both ways, weight = cosine of
  the episode and concept vectors (clipped to [0.05, 1]), so pruning keeps the
  episodes most *about* a concept;
* association: concept <-> concept at cosine >= the association threshold.

Then every node keeps its ``max_in_edges`` strongest incoming edges, fan = out-degree
after pruning, and PageRank runs once per build (power iteration on scipy sparse).

Dormancy (the paper: nodes dormant for W consolidation windows are archived, the
active graph stays <= 10,000 nodes). A window is ``consolidate_every`` memories of the
user, counted by sequence number, so batching does not change it. A node's last
active window is the latest of: its own memory's window (episodes), the window of
the latest memory mentioning it (concepts), and the window in which a query's
spreading activation last reached it with activation >= epsilon (stored in
``syn_activity``). :func:`select_active` keeps the most recently active nodes up to
``max_active_nodes``; with ``archive_all_dormant`` (the paper read literally) every
node dormant for ``dormancy_windows`` windows is archived even below the cap.
Archived nodes are left out of the graph's node space, so propagation, inhibition
and PageRank cost nothing for them, while the dense and BM25 anchors still see
every memory: an archived memory that becomes an anchor is scored at once (with its
seed activation) and is back in the graph, with its concepts, from the next build.
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


@dataclass
class SemanticLayer:
    """What is stored: concepts, aliases and per-memory mentions (labels)."""

    concepts: list[Concept] = field(default_factory=list)
    aliases: dict[str, int] = field(default_factory=dict)  # label -> cid
    mentions: dict[str, dict[str, str]] = field(default_factory=dict)  # memory -> label -> kind
    label_df: dict[str, int] = field(default_factory=dict)
    label_win: dict[str, int] = field(default_factory=dict)  # label -> latest window
    activity: dict[tuple[str, str], int] = field(default_factory=dict)  # stored touches
    consolidated_seq: int = -1
    rev: int = 0
    epoch: str = ""  # the user's epoch: an erased and recreated user starts afresh

    def add_mention(self, memory_id: str, label: str, kind: str, window: int) -> None:
        labels = self.mentions.setdefault(memory_id, {})
        if label not in labels:
            labels[label] = kind
            self.label_df[label] = self.label_df.get(label, 0) + 1
        if window > self.label_win.get(label, -1):
            self.label_win[label] = window

    @property
    def next_cid(self) -> int:
        return max((c.cid for c in self.concepts), default=-1) + 1


@dataclass
class Graph:
    """The active graph in its own compact node space: concepts ``0..C-1``, then the
    active episodes in index order (``ep_pos`` holds their index positions). Archived
    episodes, and episodes added since the build, are not nodes at all, so every
    per-query cost here is bounded by the active-graph size, not the history's."""

    n_concepts: int
    incoming: sp.csr_matrix  # row i: fan-normalised weights of edges into node i
    raw_incoming: sp.csr_matrix  # the same edges, unnormalised (for explanations)
    pagerank: np.ndarray  # per node, raw
    concept_labels: list[str]
    concept_ids: list[int]  # cid of each concept node
    concept_vecs: np.ndarray  # (C, dim), active concepts in node order
    ep_pos: np.ndarray  # index position of each episode node, ascending
    index_size: int  # episodes in the index when built
    archived_concepts: int = 0
    archived_episodes: int = 0
    _local: np.ndarray = field(init=False, repr=False)
    _walk: Walk | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        self._local = np.full(self.index_size, -1, dtype=np.int64)
        self._local[self.ep_pos] = self.n_concepts + np.arange(len(self.ep_pos))

    @property
    def walk(self) -> Walk:
        """The edges as a random walk, for the PageRank anchored at a query: derived
        from ``raw_incoming`` on first use, so a graph no query walks holds no copy."""
        if self._walk is None:
            self._walk = Walk.of(self.raw_incoming)
        return self._walk

    def episode_scaled(self, values: np.ndarray) -> np.ndarray:
        """Per-node ``values`` divided by the best episode's, so a ranking term is 1
        for the top episode on any graph; all 0 when no episode has a positive value."""
        episodes = values[self.n_concepts :]
        top = float(episodes.max()) if len(episodes) else 0.0
        return values / top if top > 0 else np.zeros_like(values)

    @property
    def n_nodes(self) -> int:
        return self.n_concepts + len(self.ep_pos)

    def nodes_of(self, positions: np.ndarray) -> np.ndarray:
        """Node id of each index position; -1 where the episode is not in the graph."""
        positions = np.asarray(positions, dtype=np.int64)
        out = np.full(len(positions), -1, dtype=np.int64)
        inside = positions < self.index_size
        out[inside] = self._local[positions[inside]]
        return out

    def node_of(self, position: int) -> int | None:
        node = int(self.nodes_of(np.array([position]))[0])
        return node if node >= 0 else None

    def in_graph(self, position: int) -> bool:
        return self.node_of(position) is not None


def window_of(seq: int | np.ndarray, cfg: SynapseConfig):
    """The consolidation window a memory sequence number falls in."""
    return seq // max(cfg.consolidate_every, 1)


def current_window(idx: UserIndex, cfg: SynapseConfig) -> int:
    """The window of the user's latest memory ever added (deleted ones count too, so
    every process agrees whatever its cache holds)."""
    last = idx.state.next_seq - 1 if idx.state is not None else idx.last_seq
    return int(window_of(max(last, 0), cfg))


def select_active(
    idx: UserIndex,
    layer: SemanticLayer,
    cfg: SynapseConfig,
    pending: dict[tuple[str, str], int] | None = None,
) -> tuple[list[Concept], np.ndarray]:
    """The concepts and the episode positions that stay in the active graph."""
    N = idx.dense.size
    live = np.zeros(N, dtype=bool)
    if idx.pos:
        live[np.fromiter(idx.pos.values(), dtype=np.int64)] = True
    # a memory without a word ("x", "?") is no episode: it would only relay its
    # neighbours' activation and hold PageRank for its place in the chain
    live &= idx.worded[:N]
    seqs = np.asarray(idx.seqs, dtype=np.int64)
    own_win = window_of(seqs, cfg)  # each episode's own window
    ep_win = own_win.copy()  # raised below by queries' touches
    C = len(layer.concepts)
    row = {c.cid: i for i, c in enumerate(layer.concepts)}
    c_win = np.full(C, -1, dtype=np.int64)
    for label, cid in layer.aliases.items():
        i = row.get(cid)
        if i is not None:
            c_win[i] = max(c_win[i], layer.label_win.get(label, -1))
    for touches in (layer.activity, pending or {}):
        for (kind, ref), w in touches.items():
            if kind == "m":
                p = idx.pos.get(ref)
                if p is not None and w > ep_win[p]:
                    ep_win[p] = w
            else:
                i = row.get(int(ref))
                if i is not None and w > c_win[i]:
                    c_win[i] = w
    cap = cfg.max_active_nodes
    strict = cfg.archive_all_dormant and cfg.dormancy_windows > 0
    if not strict and (cap <= 0 or C + int(live.sum()) <= cap):
        return list(layer.concepts), live
    cur = current_window(idx, cfg)
    eps = np.flatnonzero(live)
    win = np.concatenate([c_win, ep_win[eps]])
    # ties within a window: concepts (the hubs) first, then episodes a query revived
    # in it, then the newer episodes
    top = np.iinfo(np.int64).max
    ep_tie = np.where(ep_win[eps] > own_win[eps], top - 1, seqs[eps])
    tie = np.concatenate([np.full(C, top), ep_tie])
    keep = np.ones(len(win), dtype=bool)
    if strict:
        keep &= cur - win < cfg.dormancy_windows
    if cap > 0 and keep.sum() > cap:
        order = np.lexsort((-tie, -win))
        order = order[keep[order]][:cap]
        keep = np.zeros(len(win), dtype=bool)
        keep[order] = True
    concepts = [c for c, k in zip(layer.concepts, keep[:C], strict=True) if k]
    active = np.zeros(N, dtype=bool)
    active[eps[keep[C:]]] = True
    return concepts, active


def build_graph(
    idx: UserIndex,
    layer: SemanticLayer,
    cfg: SynapseConfig,
    pending: dict[tuple[str, str], int] | None = None,
) -> Graph:
    """The user's graph over the active concepts and episodes (``select_active``):
    the temporal chain, the abstraction and the association edges, each
    destination's heaviest ``max_in_edges`` incoming kept (:func:`_edge_matrices`)."""
    concepts, ep_active = select_active(idx, layer, cfg, pending)
    C = len(concepts)
    live = np.flatnonzero(ep_active)  # active episode positions, ascending
    n = C + len(live)
    edges = _temporal_edges(idx, live, C, cfg)
    if C:
        vecs = np.stack([c.vec for c in concepts]).astype(np.float32)
        _add(edges, _abstraction_edges(idx, layer, concepts, vecs, live))
        if C > 1:
            _add(edges, _association_edges(vecs, cfg))
    inc, raw = _edge_matrices(edges, n, cfg)
    cvecs = (
        np.stack([c.vec for c in concepts]).astype(np.float32)
        if C
        else np.zeros((0, idx.dim), dtype=np.float32)
    )
    return Graph(
        C,
        inc,
        raw,
        pagerank(raw, cfg.damping),
        [c.label for c in concepts],
        [c.cid for c in concepts],
        cvecs,
        live,
        idx.dense.size,
        len(layer.concepts) - C,
        len(idx.pos) - len(live),
    )


#: edges as parallel lists of arrays: (sources, destinations, weights)
_Edges = tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray]]


def _add(edges: _Edges, more: _Edges) -> None:
    for into, part in zip(edges, more, strict=True):
        into += part


def _temporal_edges(idx: UserIndex, live: np.ndarray, C: int, cfg: SynapseConfig) -> _Edges:
    """The temporal chain over the active episodes, in insertion order, both ways:
    weight ``exp(-temporal_rho * hours apart)`` (1 without ``temporal_decay``)."""
    if len(live) <= 1:
        return [], [], []
    times = np.asarray(idx.times, dtype=np.float64)[live]
    hours = np.abs(np.diff(times)) / 3600.0
    w = np.exp(-cfg.temporal_rho * hours) if cfg.temporal_decay else np.ones_like(hours)
    a = C + np.arange(len(live) - 1)
    return [a, a + 1], [a + 1, a], [w, w]


def _abstraction_edges(
    idx: UserIndex,
    layer: SemanticLayer,
    concepts: list[Concept],
    vecs: np.ndarray,
    live: np.ndarray,
) -> _Edges:
    """Abstraction: episode <-> each active concept it mentions, both ways, weight =
    cosine(episode, concept) clipped to [0.05, 1]."""
    C = len(concepts)
    col: dict[int, int] = {c.cid: i for i, c in enumerate(concepts)}
    label_col = {lab: col[cid] for lab, cid in layer.aliases.items() if cid in col}
    e_node: list[int] = []
    e_col: list[int] = []
    ids, mentions = idx.ids, layer.mentions
    for j, p in enumerate(live.tolist()):
        labels = mentions.get(ids[p])
        if labels:
            cols = {label_col[lab] for lab in labels if lab in label_col}
            e_node.extend([j] * len(cols))
            e_col.extend(cols)
    if not e_node:
        return [], [], []
    ej = np.asarray(e_node, dtype=np.int64)
    ed = np.asarray(e_col, dtype=np.int64)
    ew = np.clip(_pair_cosines(vecs, idx.dense.matrix, ed, live[ej]), 0.05, 1.0)
    es = ej + C
    return [es, ed], [ed, es], [ew, ew]


def _association_edges(vecs: np.ndarray, cfg: SynapseConfig) -> _Edges:
    """Association: concept <-> concept, each concept's ``max_in_edges`` most similar
    others at cosine >= ``association_threshold`` (one direction per row)."""
    C = len(vecs)
    sims = vecs @ vecs.T
    np.fill_diagonal(sims, -1.0)
    k = min(cfg.max_in_edges, C - 1)
    top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    rows = np.repeat(np.arange(C), k)
    cols_ = top.ravel()
    w = sims[rows, cols_]
    keep = w >= cfg.association_threshold
    return [rows[keep]], [cols_[keep]], [w[keep].astype(np.float64)]


def _edge_matrices(
    edges: _Edges, n: int, cfg: SynapseConfig
) -> tuple[sp.csr_matrix, sp.csr_matrix]:
    """(propagation weights, raw weights) as (destination, source) matrices, after
    pruning each destination to its heaviest ``max_in_edges`` incoming edges; the
    propagation weights divide by the sender's fan (``fan_effect``)."""
    src, dst, wts = edges
    if src:
        s = np.concatenate(src)
        d = np.concatenate(dst)
        w = np.concatenate(wts).astype(np.float64)
        s, d, w = _prune_incoming(s, d, w, cfg.max_in_edges, dedup=False)
    else:
        s = d = np.zeros(0, dtype=np.int64)
        w = np.zeros(0)
    raw = sp.csr_matrix((w, (d, s)), shape=(n, n))
    fan = np.bincount(s, minlength=n).astype(np.float64)
    norm_w = w / fan[s] if cfg.fan_effect and len(s) else w
    inc = sp.csr_matrix((norm_w, (d, s)), shape=(n, n))
    return inc, raw


def _pair_cosines(
    a: np.ndarray, b: np.ndarray, ia: np.ndarray, ib: np.ndarray, chunk: int = 4096
) -> np.ndarray:
    """``a[ia[i]] . b[ib[i]]`` for every pair, in cache-sized chunks (one big gather
    of tens of thousands of 384-d rows is several times slower)."""
    out = np.empty(len(ia), dtype=np.float64)
    for i in range(0, len(ia), chunk):
        out[i : i + chunk] = np.einsum("ij,ij->i", a[ia[i : i + chunk]], b[ib[i : i + chunk]])
    return out


def _prune_incoming(s: np.ndarray, d: np.ndarray, w: np.ndarray, keep: int, *, dedup: bool = True):
    """Keep each destination's ``keep`` heaviest incoming edges (ties: lower source).

    ``dedup`` first collapses repeated (s, d) pairs to the heaviest; the graph build
    passes False because its three edge families never repeat a pair. Only the
    edges into destinations with more than ``keep`` senders need sorting.
    """
    if dedup and len(s):
        order = np.lexsort((-w, s, d))
        s, d, w = s[order], d[order], w[order]
        first = np.ones(len(s), dtype=bool)
        first[1:] = (s[1:] != s[:-1]) | (d[1:] != d[:-1])
        s, d, w = s[first], d[first], w[first]
    if not len(d):
        return s, d, w
    heavy = np.bincount(d)[d] > keep
    if not heavy.any():
        return s, d, w
    hs, hd, hw = s[heavy], d[heavy], w[heavy]
    order = np.lexsort((hs, -hw, hd))
    hs, hd, hw = hs[order], hd[order], hw[order]
    starts = np.r_[0, np.flatnonzero(hd[1:] != hd[:-1]) + 1]
    rank = np.arange(len(hd)) - np.repeat(starts, np.diff(np.r_[starts, len(hd)]))
    top = rank < keep
    light = ~heavy
    return (
        np.concatenate([s[light], hs[top]]),
        np.concatenate([d[light], hd[top]]),
        np.concatenate([w[light], hw[top]]),
    )


@dataclass(frozen=True)
class Walk:
    """A random walk over the graph's weighted edges: ``step[i, j]`` is the chance of
    moving from j to i (j's out-edges divided by their sum); a node without
    out-edges (``dangling``) jumps like a restart. The global PageRank walks it once at
    the build; ``Graph.walk`` keeps one for the PageRank anchored at each query."""

    step: sp.csr_matrix
    dangling: np.ndarray

    @classmethod
    def of(cls, raw_incoming: sp.csr_matrix) -> Walk:
        out_w = np.asarray(raw_incoming.sum(axis=0)).ravel()  # column j = edges out of j
        inv = np.divide(1.0, out_w, out=np.zeros_like(out_w), where=out_w > 0)
        return cls((raw_incoming @ sp.diags(inv)).tocsr(), out_w == 0)

    def rank(
        self,
        damping: float = 0.85,
        iters: int = 50,
        restart: np.ndarray | None = None,
        tol: float = 1e-9,
    ) -> np.ndarray:
        """PageRank by power iteration. ``restart`` (summing to 1) personalises it:
        the walk jumps back to those nodes instead of anywhere (random walk with
        restart); None = uniform, the global PageRank."""
        n = self.step.shape[0]
        if n == 0:
            return np.zeros(0)
        jump = np.full(n, 1.0 / n) if restart is None else restart
        r = jump.copy()
        for _ in range(iters):
            nxt = damping * (self.step @ r + r[self.dangling].sum() * jump) + (1.0 - damping) * jump
            if np.abs(nxt - r).sum() < tol:
                return nxt
            r = nxt
        return r


def pagerank(raw_incoming: sp.csr_matrix, damping: float = 0.85, iters: int = 50) -> np.ndarray:
    """Weighted PageRank; dangling nodes spread uniformly."""
    return Walk.of(raw_incoming).rank(damping, iters)
