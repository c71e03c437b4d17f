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


def recall_any(relevant: Sequence[str], retrieved: Sequence[str | None], k: int) -> float:
    """1 when any relevant id is in the top-k (LongMemEval's recall_any@k)."""
    top = set(retrieved[:k])
    return float(any(r in top for r in relevant))


def recall_all(relevant: Sequence[str], retrieved: Sequence[str | None], k: int) -> float:
    """1 when every relevant id is in the top-k (LongMemEval's recall_all@k)."""
    top = set(retrieved[:k])
    return float(all(r in top for r in relevant))


def ndcg(relevant: Sequence[str], retrieved: Sequence[str | None], k: int) -> float:
    """NDCG@k with binary relevance: DCG of the ranking over the DCG of a perfect one."""
    wanted = set(relevant)
    if not wanted:
        raise ValueError("relevant must not be empty")
    dcg = sum(1.0 / np.log2(i + 2) for i, r in enumerate(retrieved[:k]) if r in wanted)
    ideal = sum(1.0 / np.log2(i + 2) for i in range(min(len(wanted), k)))
    return float(dcg / ideal)


def first_seen(items: Sequence[str | None]) -> list[str | None]:
    """The items in order of first appearance (turns ranked -> their sessions ranked)."""
    return list(dict.fromkeys(items))
