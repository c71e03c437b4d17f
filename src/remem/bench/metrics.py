"""Metrics shared by the benchmarks."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def evidence_recall(evidence: Sequence[str], retrieved: Sequence[str | None], k: int) -> float:
    """|evidence ∩ top-k| / |evidence| (evidence ids are unique; a retrieved item without
    an id, None, matches nothing)."""
    if not evidence:
        raise ValueError("evidence must not be empty")
    top = set(retrieved[:k])
    return sum(1 for e in evidence if e in top) / len(evidence)


def percentile(values: Iterable[float], q: float) -> float:
    arr = np.asarray(list(values), dtype=np.float64)
    return float(np.percentile(arr, q)) if arr.size else float("nan")


def mean(values: Iterable[float]) -> float:
    arr = np.asarray(list(values), dtype=np.float64)
    return float(arr.mean()) if arr.size else float("nan")
