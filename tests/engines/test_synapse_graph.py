"""SYNAPSE graph construction: pruning, PageRank and the edges build_graph derives."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from remem.engines.synapse.graph import Walk, _prune_incoming, pagerank
from store_rows import synapse_db  # noqa: E402


def _brute_prune(s, d, w, keep):
    """Per destination: heaviest edge per (s, d), then the `keep` heaviest (ties: lower s)."""
    best: dict[tuple[int, int], float] = {}
    for si, di, wi in zip(s.tolist(), d.tolist(), w.tolist(), strict=True):
        if (si, di) not in best or wi > best[(si, di)]:
            best[(si, di)] = wi
    kept = set()
    for dest in {di for _, di in best}:
        edges = sorted(((-wi, si) for (si, di), wi in best.items() if di == dest))
        kept |= {(si, dest, -nw) for nw, si in edges[:keep]}
    return kept


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_prune_incoming_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    n_edges, n_nodes, keep = 400, 12, 4
    s = rng.integers(0, n_nodes, n_edges)
    d = rng.integers(0, n_nodes, n_edges)
    w = rng.random(n_edges)
    ps, pd, pw = _prune_incoming(s, d, w, keep)
    got = set(zip(ps.tolist(), pd.tolist(), pw.tolist(), strict=True))
    assert got == _brute_prune(s, d, w, keep)
    # exactly min(keep, distinct senders) incoming edges per destination, no (s, d) twice
    pairs = list(zip(ps.tolist(), pd.tolist(), strict=True))
    assert len(pairs) == len(set(pairs))
    for dest in range(n_nodes):
        senders = {si for si, di in zip(s.tolist(), d.tolist(), strict=True) if di == dest}
        assert int((pd == dest).sum()) == min(keep, len(senders))


def test_prune_incoming_dedupes_keeping_heaviest_and_breaks_ties_by_source():
    s = np.array([0, 0, 1, 2, 3])
    d = np.array([5, 5, 5, 5, 5])
    w = np.array([0.2, 0.9, 0.5, 0.5, 0.1])
    ps, pd, pw = _prune_incoming(s, d, w, keep=2)
    # (0, 5) appears twice: 0.9 survives; then 0.9 (src 0) and the 0.5 tie -> lower src 1
    assert sorted(zip(ps.tolist(), pw.tolist(), strict=True)) == [(0, 0.9), (1, 0.5)]
    assert set(pd.tolist()) == {5}


def test_pagerank_three_cycle_is_uniform():
    # 0 -> 1 -> 2 -> 0 ; raw_incoming[dst, src] = weight
    raw = sp.csr_matrix(([1.0, 1.0, 1.0], ([1, 2, 0], [0, 1, 2])), shape=(3, 3))
    r = pagerank(raw)
    np.testing.assert_allclose(r, [1 / 3, 1 / 3, 1 / 3], atol=1e-12)


def test_pagerank_dangling_node_hand_computed():
    # 0 -> 1 only; node 1 is dangling and spreads uniformly. With d = 0.85:
    #   r0 = 0.15/2 + 0.85 * r1/2 ; r0 + r1 = 1  =>  r0 = 0.5 / 1.425
    raw = sp.csr_matrix(([1.0], ([1], [0])), shape=(2, 2))
    r = pagerank(raw, damping=0.85)
    assert r[0] == pytest.approx(0.5 / 1.425, abs=1e-8)
    assert r[1] == pytest.approx(1 - 0.5 / 1.425, abs=1e-8)
    assert pagerank(sp.csr_matrix((0, 0))).shape == (0,)


def test_pagerank_random_weighted_matches_dense_power_iteration():
    rng = np.random.default_rng(7)
    n = 9
    dense = rng.random((n, n)) * (rng.random((n, n)) < 0.3)
    np.fill_diagonal(dense, 0.0)
    dense[:, 4] = 0.0  # node 4 has no out-edges (dangling)
    r = pagerank(sp.csr_matrix(dense), damping=0.85, iters=500)
    assert r.sum() == pytest.approx(1.0)
    # dense reference: column j of `dense` = edges out of j
    out_w = dense.sum(axis=0)
    p = np.where(out_w > 0, dense / np.where(out_w > 0, out_w, 1.0), 0.0)
    ref = np.full(n, 1.0 / n)
    for _ in range(1000):
        ref = 0.85 * (p @ ref + ref[out_w == 0].sum() / n) + 0.15 / n
    np.testing.assert_allclose(r, ref, atol=1e-8)


def test_anchored_pagerank_solves_the_walk_with_restart():
    # r = (1 - d) j + d (P r + (dangling . r) j), solved exactly: the restart vector j
    # takes the place of the uniform jump, dangling mass included
    rng = np.random.default_rng(3)
    n, d = 8, 0.85
    dense = rng.random((n, n)) * (rng.random((n, n)) < 0.35)
    np.fill_diagonal(dense, 0.0)
    dense[:, 2] = 0.0  # node 2 is dangling
    out_w = dense.sum(axis=0)
    p = np.where(out_w > 0, dense / np.where(out_w > 0, out_w, 1.0), 0.0)
    jump = np.zeros(n)
    jump[[0, 5]] = [0.75, 0.25]
    a = np.eye(n) - d * (p + np.outer(jump, out_w == 0))
    ref = np.linalg.solve(a, (1 - d) * jump)
    r = Walk.of(sp.csr_matrix(dense)).rank(d, iters=500, restart=jump)
    np.testing.assert_allclose(r, ref, atol=1e-8)
    assert r.sum() == pytest.approx(1.0)
    # uniform restart is the global PageRank
    np.testing.assert_allclose(
        Walk.of(sp.csr_matrix(dense)).rank(d, iters=500), pagerank(sp.csr_matrix(dense), d, 500)
    )


def test_anchored_pagerank_favours_the_anchors_neighbourhood():
    # two chains 0 -> 1 -> 2 and 3 -> 4 -> 5 (both ways): anchored at 0, node 2 (two
    # steps away) outranks node 4, which the walk cannot reach; the global PageRank
    # ranks the two chains alike
    s = np.array([0, 1, 1, 2, 3, 4, 4, 5])
    dst = np.array([1, 0, 2, 1, 4, 3, 5, 4])
    walk = Walk.of(sp.csr_matrix((np.ones(8), (dst, s)), shape=(6, 6)))
    jump = np.zeros(6)
    jump[0] = 1.0
    near = walk.rank(restart=jump)
    assert near[1] > near[2] > near[4] == 0.0
    glob = walk.rank()
    assert glob[2] == pytest.approx(glob[5])


# -- build_graph through a real Memory --------------------------------------------------

TEN_HOURS = ["2024-03-01T00:00:00", "2024-03-01T10:00:00", "2024-03-01T20:00:00"]
TEXTS = [
    "Biscuit chewed the sofa cushion.",
    "I bought Biscuit a rope toy.",
    "The plumber fixed the boiler.",
]


def _graph(mem, user="u"):
    """Run a search (which builds the graph the engine's own way) and return it."""
    mem.search("anything at all", user_id=user, k=3)
    return mem._engine._graphs[user][1]


def _episode_node(mem, graph, memory_id, user="u"):
    return graph.node_of(mem._indexes.get(user).pos[memory_id])


@pytest.mark.parametrize(
    ("engine", "weight"),
    [("synapse", math.exp(-0.01 * 10)), ("synapse-nodecay", 1.0)],
)
def test_temporal_edges_between_consecutive_memories(open_memory, tmp_path, engine, weight):
    mem = open_memory(tmp_path / "t.db", engine, engine_options={"consolidate_every": 1})
    ids = [mem.add(t, user_id="u", timestamp=ts) for t, ts in zip(TEXTS, TEN_HOURS, strict=True)]
    assert synapse_db(mem).graph_state("u")[0] == 2
    g = _graph(mem)
    n0, n1, n2 = (_episode_node(mem, g, i) for i in ids)
    raw = g.raw_incoming.toarray()
    # consecutive memories, both ways (raw[dst, src])
    for a, b in ((n0, n1), (n1, n2)):
        assert raw[b, a] == pytest.approx(weight)
        assert raw[a, b] == pytest.approx(weight)
    # no temporal edge skips a memory
    assert raw[n2, n0] == 0.0 and raw[n0, n2] == 0.0


def test_abstraction_association_and_fan_normalisation(open_memory, embedder):
    texts = [
        "Our wedding photos finally arrived from the photographer.",
        "The wedding cake had three tiers.",
        "Marriage counselling helped them a lot.",
        "Their marriage lasted fifty years.",
        "The bus was late again.",
    ]
    mem = open_memory(":memory:", "synapse")
    ids = mem.add_many(texts, user_id="u")  # 5 memories: consolidated on add
    g = _graph(mem)
    labels = g.concept_labels
    assert {"wedding", "marriage"} <= set(labels)
    cw, cm = labels.index("wedding"), labels.index("marriage")
    raw = g.raw_incoming.toarray()
    lv = embedder.embed(["wedding", "marriage"])
    # association: cosine 0.6 <= x < 0.92 links the two concepts both ways, weight = cosine
    cos_wm = float(lv[0] @ lv[1])
    assert 0.6 <= cos_wm < 0.92
    assert raw[cm, cw] == pytest.approx(cos_wm, abs=1e-5)
    assert raw[cw, cm] == pytest.approx(cos_wm, abs=1e-5)
    # abstraction: episode <-> concept, weight = clip(cos(concept, episode), 0.05, 1)
    ev = embedder.embed(texts)
    for p, c, vec in ((0, cw, lv[0]), (1, cw, lv[0]), (2, cm, lv[1]), (3, cm, lv[1])):
        node = _episode_node(mem, g, ids[p])
        expected = float(np.clip(vec @ ev[p], 0.05, 1.0))
        assert raw[c, node] == pytest.approx(expected, abs=1e-5)
        assert raw[node, c] == pytest.approx(expected, abs=1e-5)
    # the bus memory mentions no concept: its only edges are temporal
    bus = _episode_node(mem, g, ids[4])
    assert np.all(raw[bus, : g.n_concepts] == 0.0)
    # fan effect: incoming = raw / out-degree of the sender (non-zeros in its column)
    inc = g.incoming.toarray()
    fan = (raw != 0).sum(axis=0)
    dst, src = np.nonzero(raw)
    np.testing.assert_allclose(inc[dst, src], raw[dst, src] / fan[src])
    assert g.pagerank.sum() == pytest.approx(1.0)
    assert np.all(g.pagerank > 0)


def test_graph_grows_for_memories_added_after_a_build(open_memory):
    mem = open_memory(":memory:", "synapse", engine_options={"consolidate_every": 100})
    mem.add_many(TEXTS, user_id="u")
    assert mem._engine.consolidate("u") == 3
    g = _graph(mem)
    assert g.n_nodes == g.n_concepts + 3
    new_id = mem.add("A heron stood in the frozen pond.", user_id="u")
    hits = mem.search("heron frozen pond", user_id="u", k=2)
    assert hits[0].id == new_id
    g2 = mem._engine._graphs["u"][1]
    assert g2 is g and g2.n_nodes == g.n_concepts + 3
    # the unconsolidated memory is found by its anchor but is not a node of the graph
    # until the next consolidation rebuilds it
    assert _episode_node(mem, g2, new_id) is None
    mem.consolidate("u")
    g3 = mem._engine._graphs["u"][1]
    assert g3.n_nodes == g3.n_concepts + 4 and _episode_node(mem, g3, new_id) is not None
