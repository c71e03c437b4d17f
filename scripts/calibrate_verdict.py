"""Fit the "not in memory" verdict's model for any engine (src/remem/answer/verdict.py).

    PYTHONPATH=src python scripts/calibrate_verdict.py --data ../shared/data/locomo/locomo10.json \
        --lme ../shared/data/longmemeval/longmemeval_oracle_dev.json --engines synapse-paper

Two models per engine (any registered name: a built-in, a variant, or a third-party
engine registered by a module given with ``--import``; k=10), each an L2-regularised
logistic regression (Newton's method, numpy only) with its threshold at the score
where the calibration questions' false refusal is 0.09 (a margin under the 0.10 issue
19 allows, since the held-out half will differ):

- ``named``: every question naming one speaker in LoCoMo's first five conversations
  (remem_bench.verdict's CALIBRATION; ``--conversations`` for fewer), category 5
  (unanswerable) the positives;
- ``self`` (with ``--lme``): the first-person questions at even positions of a
  LongMemEval file (``--lme-questions`` for fewer), each asked on its own pooled
  history and, as never said, on another's (remem_bench.verdict.lme_verdict_rows), the
  never-said and abstention questions the positives, over ``coverage``, ``unseen`` and
  ``missed`` only. Without ``--lme`` the engine's present ``self`` model is kept.

For each engine it prints the model the engine gets now (what it declares, or the
default family) and the fitted one as JSON, the form ``Memory(engine=...,
verdict=...)`` and ``Engine.verdict`` accept (a mapping of ``named`` and ``self`` to
``[bias, [weights in the order of FEATURES], threshold]``); a built-in family's
constants go into verdict.py's CALIBRATED. `remem-bench verdict --lme FILE` reports
them on conversations 6-10 and the odd LongMemEval positions, which play no part here.
"""

from __future__ import annotations

import argparse
import importlib
import json
from collections.abc import Sequence

import numpy as np

from remem.answer.verdict import FEATURES, VerdictModel, regime
from remem.embed import create_embedder
from remem.embed.base import MemoEmbedder
from remem_bench.verdict import CALIBRATION, engine_verdict, lme_verdict_rows, verdict_rows

L2 = 1e-2
FALSE_REFUSAL = 0.09
#: what the self model reads (a first-person question names no speaker: no own/other)
SELF_FEATURES = ("coverage", "unseen", "missed")


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


def calibrate(
    x: np.ndarray, y: np.ndarray, used: Sequence[int]
) -> tuple[float, list[float], float, float]:
    """Bias, weights (0 for features not ``used``), threshold, and the positives'
    refusal at it, for features ``x`` and labels ``y`` (1: not in memory)."""
    bias, fitted = fit(x[:, list(used)], y)
    weights = [0.0] * x.shape[1]
    for j, w in zip(used, fitted, strict=True):
        weights[j] = float(w)
    scores = 1.0 / (1.0 + np.exp(-(bias + x @ np.array(weights))))
    answerable = np.sort(scores[y == 0])[::-1]
    threshold = float(answerable[int(FALSE_REFUSAL * len(answerable))])
    return bias, weights, threshold, float((scores[y == 1] > threshold).mean())


def _print(engine: str, model: str, fitted: tuple[float, list[float], float, float]) -> None:
    bias, weights, threshold, refused = fitted
    ws = ", ".join(f"{w:.4f}" for w in weights)
    print(f"    # {engine} {model}: positives refused {refused:.3f} at false refusal 0.09")
    print(f'    "{model}": ({bias:.4f}, ({ws}), {threshold:.4f}),')


def _rounded(fitted: tuple[float, list[float], float, float]) -> list[object]:
    bias, weights, threshold, _ = fitted
    return [round(bias, 4), [round(w, 4) for w in weights], round(threshold, 4)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", required=True, help="path to locomo10.json")
    ap.add_argument("--lme", default=None, help="a LongMemEval file, for the self model")
    ap.add_argument("--engines", default="hybrid,synapse", help="comma-separated names")
    ap.add_argument(
        "--import",
        dest="imports",
        action="append",
        default=[],
        help="a module to import first (one that registers a third-party engine)",
    )
    ap.add_argument(
        "--conversations",
        default=",".join(CALIBRATION),
        help="LoCoMo conversations to fit on (comma-separated; default: the first five)",
    )
    ap.add_argument("--lme-questions", type=int, default=None, help="fewer LongMemEval questions")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    for module in args.imports:
        importlib.import_module(module)
    engines = [e for e in args.engines.split(",") if e]
    conversations = [c for c in args.conversations.split(",") if c]
    embedder = MemoEmbedder(create_embedder("minilm"))
    print(f"{', '.join(conversations)}; k={args.k}")
    every = range(len(FEATURES))
    for engine in engines:
        now = engine_verdict(engine, embedder)
        print(f"# {engine}: now gets the {now.family!r} verdict model")
        print(f"#   {json.dumps(now.as_dict())}")
        rows = verdict_rows(
            args.data, engine, k=args.k, conversations=conversations, embedder=embedder
        )
        rows = [r for r in rows if regime(r["signals"]) == "named"]
        x = np.array([[r["signals"].get(f, 0.0) for f in FEATURES] for r in rows])
        y = np.array([float(r["category"] == 5) for r in rows])
        print(f"# named: {len(rows)} questions, {int(y.sum())} positives")
        named = calibrate(x, y, every)
        _print(engine, "named", named)
        fitted = {"named": _rounded(named), "self": now.as_dict()["self"]}
        if args.lme:
            lme = lme_verdict_rows(
                args.lme, engine, k=args.k, questions=args.lme_questions, embedder=embedder
            )
            lme = [r for r in lme if r["half"] == "calibration" and regime(r["signals"]) == "self"]
            x = np.array([[r["signals"].get(f, 0.0) for f in FEATURES] for r in lme])
            y = np.array([float(r["kind"] != "own") for r in lme])
            print(f"# self: {len(lme)} questions, {int(y.sum())} positives")
            own = calibrate(x, y, [FEATURES.index(f) for f in SELF_FEATURES])
            _print(engine, "self", own)
            fitted["self"] = _rounded(own)
        else:
            print(f"# self: not fitted (no --lme); kept from {now.family!r}")
        VerdictModel(fitted)  # checked as Memory will check it
        print(f"# {engine}: Memory(engine={engine!r}, verdict=<the JSON below>)")
        print(json.dumps(fitted))


if __name__ == "__main__":
    main()
