"""Which concept each new label joins: the merge step of consolidation, batched.

Labels are merged in order, each into the most similar concept at cosine >=
the threshold, where "concept" includes those created by earlier labels of the same
batch. Done one label at a time, with the concept matrix grown by one row per new
concept, that is one matrix-vector product and one full copy per label: 6.5 s of a
10.6 s ``add_many`` of 500 long assistant turns (2,153 new labels), more than the
engine's whole graph work. Here each block of labels is compared with every earlier
concept in one matrix product and with the block's own labels in another, and only
the (cheap) choice runs label by label, so the result is the sequential one.
"""

from __future__ import annotations

import numpy as np

BLOCK = 512
"""choice: labels compared per matrix product; a block's own similarities take
BLOCK^2 floats (1 MB), and a consolidation of 5 chat turns has far fewer labels."""


def assign(
    existing: np.ndarray | None, vecs: np.ndarray, threshold: float, *, block: int = BLOCK
) -> tuple[list[int], np.ndarray]:
    """Map each row of ``vecs`` (unit vectors, in order) to a concept index.

    Indices below ``len(existing)`` are existing concepts; the others are concepts
    created by this call, numbered in order of creation. Returns the indices and
    the rows of ``vecs`` that created a concept (in that order). A tie goes to the
    older concept, as ``argmax`` over the grown matrix would have chosen.
    """
    vecs = np.asarray(vecs, dtype=np.float32)
    known = np.zeros((0, vecs.shape[1]), np.float32) if existing is None else existing
    known = np.asarray(known, dtype=np.float32)
    made_rows: list[int] = []
    out: list[int] = []
    for start in range(0, len(vecs), block):
        part = vecs[start : start + block]
        if len(known):
            sims = part @ known.T
            best = sims.argmax(axis=1)
            best_sim = sims[np.arange(len(part)), best]
        else:
            best = np.zeros(len(part), dtype=np.int64)
            best_sim = np.full(len(part), -np.inf, dtype=np.float32)
        within = part @ part.T
        made: list[int] = []  # positions in this block that created a concept
        base = len(known)
        for r in range(len(part)):
            sim, target = float(best_sim[r]), int(best[r])
            if made:
                row = within[r, made]
                j = int(row.argmax())
                if row[j] > sim:
                    sim, target = float(row[j]), base + j
            if sim >= threshold:
                out.append(target)
            else:
                out.append(base + len(made))
                made.append(r)
        if made:
            known = np.vstack([known, part[made]])
            made_rows.extend(start + r for r in made)
    return out, np.asarray(made_rows, dtype=np.int64)
