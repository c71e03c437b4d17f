"""ILSTMA's caching prefetch indicator (paper section 3.6.1), as pure functions.

Memory strength grows with the number of recalls along a sigmoid (Eq. 2):

    S(n) = beta + alpha / (1 + exp(xi * (n - mu)))

with beta = -13.5, alpha = 37, xi = -1.5, mu = 1 and n = recallTimes clipped to
[1, 5], so S(1) = 5.0, S(5) ~ 23.4 and S -> 23.5. Retention after t days without a
recall (Eq. 1, 3) is R = exp(-t / S). The prefetch score (Eq. 4) adds a spatial
term for the distance between an entry's index and the recalled dialogue's index.

Eq. 4 is printed as ``R + (pi / 2) * arctan(dis)``, but the text says the term maps
the distance into (0, 1) and that nearby dialogues (spatial locality) must score
higher; the printed term grows with distance up to pi^2 / 4. ``spatial="intent"``
(the default) implements the stated intent, ``1 - (2 / pi) * arctan(dis)``: 1 at
the recalled dialogue itself, falling towards 0 with distance, so Score is in
(0, 2] as the paper says. ``spatial="printed"`` keeps the formula as printed, so
the benchmark can compare the two.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

BETA = -13.5
ALPHA = 37.0
XI = -1.5
MU = 1.0
RECALL_RANGE = (1, 5)
SPATIAL_FORMS = ("intent", "printed")


def strength(
    recall_times: float | np.ndarray,
    *,
    beta: float = BETA,
    alpha: float = ALPHA,
    xi: float = XI,
    mu: float = MU,
    recall_range: tuple[int, int] = RECALL_RANGE,
) -> float | np.ndarray:
    """Memory strength S (Eq. 2); recallTimes is clipped to the paper's range."""
    n = np.clip(recall_times, *recall_range)
    return beta + alpha / (1.0 + np.exp(xi * (n - mu)))


def retention(
    days: float | np.ndarray, recall_times: float | np.ndarray, **params: Any
) -> float | np.ndarray:
    """R = exp(-t / S) (Eq. 1 and 3): t in whole days since the last recall."""
    return np.exp(-np.maximum(days, 0) / strength(recall_times, **params))


def spatial(dis: float | np.ndarray, form: str = "intent") -> float | np.ndarray:
    """The spatial-locality term of Eq. 4 for an index distance ``dis`` >= 0."""
    d = np.abs(dis)
    if form == "intent":
        return 1.0 - (2.0 / math.pi) * np.arctan(d)
    if form == "printed":
        return (math.pi / 2.0) * np.arctan(d)
    raise ValueError(f"spatial form must be one of {SPATIAL_FORMS}, not {form!r}")


def prefetch_score(
    days: float | np.ndarray,
    recall_times: float | np.ndarray,
    dis: float | np.ndarray,
    form: str = "intent",
    **params: float,
) -> float | np.ndarray:
    """Score = R(timeInterval, recallTimes) + spatial(dis) (Eq. 4)."""
    return retention(days, recall_times, **params) + spatial(dis, form)
