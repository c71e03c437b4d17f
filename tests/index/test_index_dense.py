"""Brute-force dense index and top_k against plain numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.index.dense import DenseIndex, top_k


def _unit(rng: np.random.Generator, n: int, dim: int) -> np.ndarray:
    v = rng.standard_normal((n, dim)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


@pytest.mark.parametrize("seed", range(4))
def test_top_k_matches_argsort_with_dead_rows(seed):
    rng = np.random.default_rng(seed)
    dim, n = 384, 300
    vecs = _unit(rng, n, dim)
    idx = DenseIndex(dim)
    for a, b in [(0, 1), (1, 63), (63, 64), (64, 65), (65, 200), (200, 300)]:  # growth paths
        idx.add(vecs[a:b])
    assert idx.size == n
    dead = rng.choice(n, size=60, replace=False)
    for p in dead:
        idx.remove(p)
    idx.remove(10_000)  # out of range: no-op
    alive = np.setdiff1d(np.arange(n), dead)
    for _ in range(5):
        q = _unit(rng, 1, dim)[0]
        scores = idx.scores(q)
        assert scores.shape == (n,)
        assert np.all(np.isneginf(scores[dead]))
        np.testing.assert_allclose(scores[alive], vecs[alive] @ q, rtol=1e-5, atol=1e-6)
        expected = alive[np.argsort(-(vecs[alive] @ q), kind="stable")]
        for k in (1, 5, 10, 50, 240, 1000):
            got = top_k(scores, k)
            np.testing.assert_array_equal(got, expected[:k])
            assert not set(got.tolist()) & set(dead.tolist())


def test_vector_and_matrix_views():
    rng = np.random.default_rng(1)
    vecs = _unit(rng, 5, 8)
    idx = DenseIndex(8)
    idx.add(vecs)
    np.testing.assert_array_equal(idx.vector(3), vecs[3])
    assert idx.matrix.shape == (5, 8)
    idx.remove(3)
    assert not idx.matrix[3].any()
    assert idx.nbytes() > 0


def test_add_accepts_single_vector_and_float64():
    idx = DenseIndex(3)
    idx.add(np.array([1.0, 0.0, 0.0]))
    idx.add(np.array([[0.0, 1.0, 0.0]], dtype=np.float64))
    assert idx.size == 2
    np.testing.assert_array_equal(top_k(idx.scores(np.array([0.0, 1.0, 0.0])), 2), [1, 0])


def test_empty_index():
    idx = DenseIndex(4)
    assert idx.scores(np.ones(4)).shape == (0,)
    assert top_k(idx.scores(np.ones(4)), 3).shape == (0,)


def test_top_k_min_score_excludes_and_all_dead():
    s = np.array([0.0, 2.0, -1.0, 1.0, 0.0], dtype=np.float32)
    np.testing.assert_array_equal(top_k(s, 10, 0.0), [1, 3])
    np.testing.assert_array_equal(top_k(s, 1, 0.0), [1])
    assert top_k(np.full(4, -np.inf), 2).size == 0
    assert top_k(s, 0).size == 0 and top_k(s, -1).size == 0  # none asked (it raised)


def test_top_k_ties_broken_by_position_small():
    s = np.array([1.0, 3.0, 3.0, 2.0, 3.0], dtype=np.float32)
    np.testing.assert_array_equal(top_k(s, 5), [1, 2, 4, 3, 0])
    np.testing.assert_array_equal(top_k(s, 2), [1, 2])


def test_top_k_tie_at_the_cut_keeps_earliest_position():
    """Four equal scores, one better: k=3 must be the better one, then positions 0 and 1."""
    s = np.array([0.25, 0.25, 0.25, 0.25, 0.5], dtype=np.float32)
    np.testing.assert_array_equal(top_k(s, 3), [4, 0, 1])


@settings(max_examples=200, deadline=None)
@given(
    scores=st.lists(st.sampled_from([0.25, 0.5, 1.0]), min_size=1, max_size=120),
    k=st.integers(1, 130),
)
def test_top_k_ties_broken_by_position(scores, k):
    """The docstring's contract: best first, ties by position -- also at the k-th cut."""
    s = np.asarray(scores, dtype=np.float32)
    expected = np.lexsort((np.arange(len(s)), -s))[:k]
    np.testing.assert_array_equal(top_k(s, k), expected)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9])
def test_the_approximate_top_k_of_a_tiny_index_is_exact(n):
    """Fewer vectors than the IVF index's least number of lists (8): each is a list,
    every one is read, and the answer is the exact top-k (it used to fail to train:
    a sample of 8 centroids from fewer vectors)."""
    rng = np.random.default_rng(n)
    vecs = _unit(rng, n, 16)
    idx = DenseIndex(16)
    idx.add(vecs)
    query = _unit(rng, 1, 16)[0]
    pos, cos = idx.approx_top_k(query, 3)
    exact = np.argsort(-(vecs @ query), kind="stable")[:3]
    assert sorted(pos.tolist()) == sorted(exact.tolist())
    np.testing.assert_allclose(np.sort(cos)[::-1], np.sort(vecs[exact] @ query)[::-1], rtol=1e-5)
