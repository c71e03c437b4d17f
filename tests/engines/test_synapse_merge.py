"""The batched merge step chooses exactly what merging label by label chooses."""

from __future__ import annotations

import numpy as np
import pytest

from remem.engines.synapse.merge import assign


def sequential(existing: np.ndarray | None, vecs: np.ndarray, threshold: float) -> list[int]:
    """The reference: one label at a time, the matrix grown by each new concept."""
    matrix = existing
    out = []
    for vec in vecs:
        if matrix is not None and len(matrix):
            sims = matrix @ vec
            best = int(np.argmax(sims))
            if sims[best] >= threshold:
                out.append(best)
                continue
        out.append(0 if matrix is None else len(matrix))
        matrix = vec[None, :] if matrix is None else np.vstack([matrix, vec[None, :]])
    return out


def clustered(rng: np.random.Generator, n: int, centres: int, noise: float) -> np.ndarray:
    """Unit vectors around a few centres, so that some pairs pass the threshold."""
    c = rng.standard_normal((centres, 16))
    x = c[rng.integers(0, centres, n)] + noise * rng.standard_normal((n, 16))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("block", [1, 7, 512])
def test_batched_merge_equals_label_by_label(seed: int, block: int) -> None:
    rng = np.random.default_rng(seed)
    existing = clustered(rng, 20, 8, 0.3) if seed % 2 else None
    vecs = clustered(rng, 150, 12, 0.35)
    got, made = assign(existing, vecs, 0.92, block=block)
    want = sequential(existing, vecs, 0.92)
    assert got == want
    base = 0 if existing is None else len(existing)
    # the rows that created concepts are those mapped to a fresh index, in order
    fresh = [i for i, t in enumerate(want) if t >= base and t not in want[:i]]
    assert made.tolist() == fresh
    assert 0 < len(fresh) < len(vecs)  # the data has both merges and new concepts


def test_threshold_above_one_never_merges_and_zero_merges_into_the_first() -> None:
    vecs = clustered(np.random.default_rng(1), 30, 3, 0.2)
    apart, made = assign(None, vecs, 1.01)
    assert apart == list(range(30)) and made.tolist() == list(range(30))
    together, made = assign(None, np.abs(vecs), 0.0)  # nonnegative: every cosine >= 0
    assert together == [0] * 30 and made.tolist() == [0]
