"""Spreading activation (propagate -> inhibit -> fire), as pure numpy functions.

Conventions: ``m`` is a sparse matrix whose row i holds the weights of the edges
*into* node i, already divided by the sender's fan (out-degree) when the fan effect
is on: ``(m @ a)[i] = sum_j w_ji * a_j / fan(j)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


def propagate(a: np.ndarray, m: sp.csr_matrix, spread: float, retention: float) -> np.ndarray:
    """u_i = (1 - delta) a_i + S * sum_j w_ji a_j / fan(j)."""
    return (1.0 - retention) * a + spread * (m @ a)


def inhibit(u: np.ndarray, top: int, beta: float, active: np.ndarray) -> np.ndarray:
    """Lateral inhibition: each node loses beta * sum of how far the stronger of the
    ``top`` strongest nodes exceed it; clipped at 0. Only ``active`` nodes compete."""
    out = np.zeros_like(u)
    idx = np.flatnonzero(active)
    if len(idx) == 0:
        return out
    vals = u[idx]
    strongest = np.sort(vals)[::-1][:top]
    excess = np.maximum(strongest[None, :] - vals[:, None], 0.0).sum(axis=1)
    out[idx] = np.maximum(0.0, vals - beta * excess)
    return out


def fire(u: np.ndarray, gamma: float, theta: float, active: np.ndarray) -> np.ndarray:
    """Sigmoid firing on active nodes with positive potential; everything else is 0."""
    out = np.zeros_like(u)
    on = active & (u > 0)
    out[on] = 1.0 / (1.0 + np.exp(-gamma * (u[on] - theta)))
    return out


@dataclass
class Dynamics:
    spread: float = 0.8
    retention: float = 0.5
    iterations: int = 3
    inhibition: bool = True
    inhibit_top: int = 7
    inhibit_beta: float = 0.15
    gamma: float = 5.0
    theta: float = 0.5
    nonlinear: bool = True


def spread_activation(
    a0: np.ndarray, m: sp.csr_matrix | None, dyn: Dynamics
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Run T rounds from the initial activation; returns the final activation and the
    activation after every round (round 0 = the anchors), for explanations."""
    history = [a0]
    a = a0
    reached = a0 > 0
    if m is None:
        return a, history
    rounds = dyn.iterations if dyn.nonlinear else 1
    for _ in range(rounds):
        incoming = m @ a
        reached = reached | (incoming > 0)
        u = (1.0 - dyn.retention) * a + dyn.spread * incoming
        if dyn.nonlinear:
            if dyn.inhibition:
                u = inhibit(u, dyn.inhibit_top, dyn.inhibit_beta, reached)
            a = fire(u, dyn.gamma, dyn.theta, reached)
        else:
            a = np.where(reached, u, 0.0)
        history.append(a)
    return a, history


def session_best(score: np.ndarray, session: np.ndarray) -> np.ndarray:
    """Each memory's session's best score: the evidence its session holds for the
    query. A memory of no session (``-1``) is its own context: its own score.
    Non-finite scores (deleted memories) count as 0 and support nothing."""
    own = np.where(np.isfinite(score), score, 0.0).astype(np.float64)
    out = own.copy()
    inside = session >= 0
    if inside.any():
        best = np.full(int(session[inside].max()) + 1, -np.inf)
        np.maximum.at(best, session[inside], own[inside])
        out[inside] = best[session[inside]]
    return out


def with_neighbours(own: np.ndarray, near: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """A memory's score raised toward its neighbours': ``own + max over neighbours
    of weight * max(0, neighbour - own)``; ``near`` holds one row of neighbour
    scores per weight (0 where there is none), ``weights`` one weight per row or one
    row of weights per row of ``near``."""
    w = weights[:, None] if weights.ndim == 1 else weights
    lift = w * np.maximum(near - own[None, :], 0.0)
    return own + (lift.max(axis=0) if len(lift) else 0.0)
