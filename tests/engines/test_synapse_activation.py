"""SYNAPSE spreading activation on tiny hand-built graphs, with hand-computed numbers.

Convention (activation.py): row i of ``m`` holds the edges *into* node i, already
divided by the sender's fan-out, so ``m[i, j] = w_ji / fan(j)``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from remem.engines.synapse.activation import Dynamics, fire, inhibit, propagate, spread_activation


def _incoming(n: int, edges: list[tuple[int, int, float]], fan: bool = True) -> sp.csr_matrix:
    """Matrix of (src, dst, w) edges in the engine's layout, fan-divided by hand."""
    out_degree = [sum(1 for s, _, _ in edges if s == j) for j in range(n)]
    rows, cols, vals = [], [], []
    for s, d, w in edges:
        rows.append(d)
        cols.append(s)
        vals.append(w / out_degree[s] if fan else w)
    return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


def _sigmoid(u: float, gamma: float = 5.0, theta: float = 0.5) -> float:
    return 1.0 / (1.0 + math.exp(-gamma * (u - theta)))


# -- propagate ------------------------------------------------------------------------


def test_propagate_fan_divides_a_two_way_sender():
    # node 0 -> 1 and 0 -> 2, weight 1 each: out-degree 2, so each receives half.
    m = _incoming(3, [(0, 1, 1.0), (0, 2, 1.0)])
    assert m[1, 0] == pytest.approx(0.5) and m[2, 0] == pytest.approx(0.5)
    u = propagate(np.array([1.0, 0.0, 0.0]), m, spread=0.8, retention=0.5)
    # u0 = (1 - 0.5) * 1 = 0.5 ; u1 = u2 = 0.8 * (1 * 1 / 2) = 0.4
    np.testing.assert_allclose(u, [0.5, 0.4, 0.4])


def test_propagate_weighted_hand_computed():
    # 0 -> 1 (0.6), 0 -> 2 (0.2), 1 -> 2 (1.0); fan(0) = 2, fan(1) = 1
    m = _incoming(3, [(0, 1, 0.6), (0, 2, 0.2), (1, 2, 1.0)])
    a = np.array([1.0, 0.5, 0.0])
    u = propagate(a, m, spread=0.8, retention=0.5)
    # u0 = 0.5 * 1                         = 0.5
    # u1 = 0.5 * 0.5 + 0.8 * (0.6 * 1 / 2) = 0.25 + 0.24 = 0.49
    # u2 = 0 + 0.8 * (0.2 * 1 / 2 + 1.0 * 0.5 / 1) = 0.8 * 0.6 = 0.48
    np.testing.assert_allclose(u, [0.5, 0.49, 0.48])
    # without the fan effect node 0 sends its full weight: u1 = 0.25 + 0.8 * 0.6 = 0.73
    u_nofan = propagate(
        a, _incoming(3, [(0, 1, 0.6), (0, 2, 0.2), (1, 2, 1.0)], fan=False), 0.8, 0.5
    )
    assert u_nofan[1] == pytest.approx(0.73)


# -- inhibit --------------------------------------------------------------------------


def test_inhibit_hand_computed_top2():
    u = np.array([0.9, 0.5, 0.2, 0.0, 0.7])
    active = np.array([True, True, True, True, False])
    out = inhibit(u, top=2, beta=0.15, active=active)
    # the two strongest active nodes are 0.9 and 0.5 (0.7 is inactive: it does not compete)
    # node0: nobody is stronger              -> 0.9
    # node1: 0.9 - 0.5 = 0.4                 -> 0.5 - 0.15 * 0.4 = 0.44
    # node2: (0.9 - 0.2) + (0.5 - 0.2) = 1.0 -> 0.2 - 0.15 = 0.05
    # node3: 0.9 + 0.5 = 1.4                 -> max(0, 0 - 0.21) = 0
    # node4: inactive                        -> 0
    np.testing.assert_allclose(out, [0.9, 0.44, 0.05, 0.0, 0.0], atol=1e-12)


def test_inhibit_only_the_top_m_inhibit():
    u = np.array([0.9, 0.5, 0.2])
    active = np.ones(3, dtype=bool)
    # top=1: only 0.9 inhibits; 0.5 (stronger than 0.2 but outside the top 1) does not.
    out = inhibit(u, top=1, beta=0.15, active=active)
    # node1: 0.5 - 0.15 * 0.4 = 0.44 ; node2: 0.2 - 0.15 * 0.7 = 0.095
    np.testing.assert_allclose(out, [0.9, 0.44, 0.095])


def test_inhibit_weaker_nodes_never_inhibit_and_clip_at_zero():
    # many weak nodes around one strong node: the strong one keeps its value
    u = np.array([0.6, 0.1, 0.1, 0.1, 0.1, 0.1])
    out = inhibit(u, top=7, beta=0.15, active=np.ones(6, dtype=bool))
    assert out[0] == pytest.approx(0.6)
    # each weak node: 0.1 - 0.15 * (0.6 - 0.1) = 0.025 (equal peers do not inhibit)
    np.testing.assert_allclose(out[1:], 0.025)
    # with a strong beta every weaker node is clipped at exactly 0, never negative
    out = inhibit(u, top=7, beta=1.0, active=np.ones(6, dtype=bool))
    assert out[0] == pytest.approx(0.6)
    assert np.all(out[1:] == 0.0)


def test_inhibit_no_active_nodes():
    out = inhibit(np.array([0.3, 0.4]), top=7, beta=0.15, active=np.zeros(2, dtype=bool))
    assert np.all(out == 0.0)


# -- fire -----------------------------------------------------------------------------


def test_fire_sigmoid_values():
    u = np.array([0.5, 0.7, 0.1, 0.9, 0.0, -0.3])
    active = np.array([True, True, True, False, True, True])
    a = fire(u, gamma=5.0, theta=0.5, active=active)
    # u = theta -> 0.5 ; u = 0.7 -> 1/(1+e^-1) ; u = 0.1 -> 1/(1+e^2)
    assert a[0] == pytest.approx(0.5)
    assert a[1] == pytest.approx(1.0 / (1.0 + math.exp(-1.0)))
    assert a[1] == pytest.approx(0.7310585786)
    assert a[2] == pytest.approx(0.1192029220)
    # inactive (even with a high potential), zero and negative potentials stay silent
    assert a[3] == 0.0 and a[4] == 0.0 and a[5] == 0.0


# -- spread_activation ----------------------------------------------------------------


def test_spread_without_graph_returns_anchors_unchanged():
    a0 = np.array([0.3, 0.0, 0.7])
    a, history = spread_activation(a0, None, Dynamics())
    np.testing.assert_array_equal(a, [0.3, 0.0, 0.7])
    assert len(history) == 1
    np.testing.assert_array_equal(history[0], a0)


def _two_components() -> sp.csr_matrix:
    # component A: 0 <-> 1 ; component B: 2 <-> 3 ; weight 1, fan 1 each
    return _incoming(4, [(0, 1, 1.0), (1, 0, 1.0), (2, 3, 1.0), (3, 2, 1.0)])


def test_spread_first_round_hand_computed():
    a0 = np.array([0.8, 0.0, 0.0, 0.0])
    a, history = spread_activation(a0, _two_components(), Dynamics())
    assert len(history) == 4  # round 0 (anchors) + T = 3 rounds
    # round 1: incoming = [0, 0.8, 0, 0]; u = 0.5 * a0 + 0.8 * incoming = [0.4, 0.64, 0, 0]
    # inhibition (top 7, beta 0.15): node0 loses 0.15 * (0.64 - 0.4) = 0.036 -> 0.364
    # firing: sigmoid(5 (u - 0.5))
    expected = [_sigmoid(0.364), _sigmoid(0.64), 0.0, 0.0]
    np.testing.assert_allclose(history[1], expected, rtol=1e-9)
    # round 2 from the hand-computed round 1 values
    a1 = history[1]
    u = [0.5 * a1[0] + 0.8 * a1[1], 0.5 * a1[1] + 0.8 * a1[0]]
    hi, lo = max(u), min(u)
    u_inh = [x - 0.15 * (hi - x) if x == lo else x for x in u]
    np.testing.assert_allclose(history[2][:2], [_sigmoid(x) for x in u_inh], rtol=1e-9)


def test_unreached_component_stays_exactly_zero():
    a0 = np.array([0.8, 0.0, 0.0, 0.0])
    for dyn in (Dynamics(), Dynamics(iterations=5), Dynamics(inhibition=False)):
        a, history = spread_activation(a0, _two_components(), dyn)
        assert a[2] == 0.0 and a[3] == 0.0
        assert all(h[2] == 0.0 and h[3] == 0.0 for h in history)
        assert a[0] > 0 and a[1] > 0


def test_linear_path_does_one_step():
    a0 = np.array([0.8, 0.0, 0.0, 0.0])
    a, history = spread_activation(a0, _two_components(), Dynamics(nonlinear=False, iterations=3))
    assert len(history) == 2
    # one propagate step, no inhibition, no sigmoid: [0.5 * 0.8, 0.8 * 0.8, 0, 0]
    np.testing.assert_allclose(a, [0.4, 0.64, 0.0, 0.0])


def test_session_best_hand_computed():
    """Each memory gets its session's best score; no session (-1): its own score;
    a deleted memory (-inf) counts as 0 and lifts nothing."""
    from remem.engines.synapse.activation import session_best

    score = np.array([0.7, 0.4, 0.2, 0.5, 0.3, -np.inf, 0.6])
    session = np.array([0, 0, 1, 1, -1, 2, 2])
    assert session_best(score, session).tolist() == [0.7, 0.7, 0.5, 0.5, 0.3, 0.6, 0.6]
    lone = np.array([-np.inf, -np.inf])
    assert session_best(lone, np.array([0, -1])).tolist() == [0.0, 0.0]
    assert session_best(np.zeros(0), np.zeros(0, dtype=np.int64)).tolist() == []
