"""The spread of an end-to-end QA result over repeated runs.

Greedy decoding repeats exactly (a rerun gives the same drafts), so the spread over
reruns of the benchmark's default run is zero, and says nothing about how much a
result owes to one particular decoding. Runs that sample the reader's replies
(``--answer-option temperature=T --llm-seed S``, one seed per run) do: the same
questions, the same memories, only the reader's draws differ. This module sets such
runs side by side: each run's F1 over categories 1-4, refusals and paired engine
differences, then their mean, standard deviation and range, and how often the
reader's draft was the same in every run.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from remem import InvalidInputError

from .qa import _keyed, paired_differences, read_rows, summarise

METRICS = ("f1_1to4", "cat5_refusal", "false_refusal")


def _stats(values: list[float]) -> dict[str, float]:
    return {
        "mean": statistics.fmean(values),
        "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
        "min": min(values),
        "max": max(values),
    }


def spread_runs(paths: Sequence[str | Path]) -> dict[str, Any]:
    """Runs of the same questions (saved ``--jsonl`` rows) side by side. They must
    hold the same engines and questions: a spread over different question sets would
    mix sampling noise with which questions were asked."""
    if len(paths) < 2:
        raise InvalidInputError("a spread needs at least two runs")
    runs: list[dict[str, Any]] = []
    keys: set[tuple] | None = None
    drafts: dict[tuple, set[str | None]] = {}
    for path in paths:
        rows = read_rows(path)
        if not rows:
            raise InvalidInputError(f"{path}: no rows")
        mine = dict(_keyed(rows))
        if keys is None:
            keys = set(mine)
        elif set(mine) != keys:
            raise InvalidInputError(
                f"{path} does not hold the same (engine, question) rows as {paths[0]}: "
                "a spread compares runs of the same questions"
            )
        for k, r in mine.items():
            drafts.setdefault(k, set()).add(r.get("draft"))
        engines = list(dict.fromkeys(r["engine"] for r in rows))
        runs.append(
            {
                "run": str(path),
                "engines": summarise(rows, engines),
                "paired": paired_differences(rows, engines),
            }
        )
    engines = list(runs[0]["engines"])
    summary = {
        name: {m: _stats([r["engines"][name][m] for r in runs]) for m in METRICS}
        for name in engines
    }
    paired = {}
    for name, p in runs[0]["paired"].items():
        diffs = [r["paired"][name]["diff"] for r in runs]
        paired[name] = {
            "minus": p["minus"],
            **_stats(diffs),
            "runs_better": sum(d > 0 for d in diffs),
            "runs_worse": sum(d < 0 for d in diffs),
        }
    same = {
        name: sum(len(v) == 1 for k, v in drafts.items() if k[0] == name)
        / max(1, sum(k[0] == name for k in drafts))
        for name in engines
    }
    return {
        "benchmark": "locomo-qa-spread",
        "runs": runs,
        "summary": summary,
        "paired": paired,
        "identical_drafts_share": same,
        "questions": {name: runs[0]["engines"][name]["questions"] for name in engines},
    }
