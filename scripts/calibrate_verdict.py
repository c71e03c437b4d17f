"""Fit the "not in memory" verdict's constants (src/remem/answer/verdict.py).

    PYTHONPATH=src python scripts/calibrate_verdict.py --data ../shared/data/locomo/locomo10.json

Recalls every question of LoCoMo's first five conversations (remem.bench.verdict's
CALIBRATION) with the hybrid and synapse engines at k=10 and, for each engine, fits
an L2-regularised logistic regression (Newton's method, numpy only) of category 5
(unanswerable) against the verdict's signals, and sets the threshold at the score
where those conversations' false refusal on categories 1-4 is 0.09 (a margin under
the 0.10 issue 19 allows, since the held-out half will differ). It prints the
constants to paste into verdict.py's CALIBRATED; `remem bench verdict` then reports
them on conversations 6-10, which play no part here.
"""

from __future__ import annotations

import argparse

import numpy as np

from remem.answer.verdict import FEATURES, judge
from remem.bench.verdict import CALIBRATION, refusal_rates, verdict_rows

L2 = 1e-2
FALSE_REFUSAL = 0.09


def fit(x: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Logistic regression on raw features (no scaling, so the constants apply as
    they are), L2 on the weights but not the bias."""
    z = np.c_[np.ones(len(x)), x]
    w = np.zeros(z.shape[1])
    reg = L2 * np.r_[0.0, np.ones(x.shape[1])]
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-z @ w))
        grad = z.T @ (p - y) / len(y) + reg * w
        hess = (z * (p * (1 - p))[:, None]).T @ z / len(y) + np.diag(reg)
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-10:
            break
    return float(w[0]), w[1:]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="path to locomo10.json")
    ap.add_argument("--engines", default="hybrid,synapse", help="comma-separated, pooled")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    engines = [e for e in args.engines.split(",") if e]
    print(f"{', '.join(CALIBRATION)}; k={args.k}")
    for engine in engines:
        rows = verdict_rows(args.data, engine, k=args.k, conversations=CALIBRATION)
        x = np.array([[r["signals"].get(f, 0.0) for f in FEATURES] for r in rows])
        y = np.array([float(r["category"] == 5) for r in rows])
        bias, weights = fit(x, y)
        scores = np.array(
            [judge(r["signals"], bias=bias, weights=weights, threshold=2.0).score for r in rows]
        )
        answerable = np.sort(scores[y == 0])[::-1]
        threshold = float(answerable[int(FALSE_REFUSAL * len(answerable))])
        for r, s in zip(rows, scores, strict=True):
            r["fitted"] = s > threshold
        print(f"# {engine}: {len(rows)} questions, {int(y.sum())} of category 5")
        ws = ", ".join(f"{w:.4f}" for w in weights)
        print(f'    "{engine}": ({bias:.4f}, ({ws}), {threshold:.4f}),')
        print(f"#   on the calibration half: {refusal_rates(rows, 'fitted')}")


if __name__ == "__main__":
    main()
