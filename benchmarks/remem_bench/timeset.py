"""The time-expression development set: loading it and scoring an extractor on it.

Each line of ``remem_bench/data/time_expressions.jsonl`` (and of the held-out
``time_expressions_heldout.jsonl``, written before the rules were tuned) is a
conversational sentence, the moment it was said and the intervals it names, labelled
by hand. A line counts as exact when the extractor gives the same intervals in the
same order (and the same granularities, when it gives any); precision and recall
count the intervals themselves. ``remem-bench time`` and
``scripts/time_extractors.py`` (which compares libraries) share this scoring.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
DEV = DATA / "time_expressions.jsonl"
HELDOUT = DATA / "time_expressions_heldout.jsonl"
#: labelled from the written conventions by a hand that had not read the rules
INDEPENDENT = DATA / "time_expressions_independent.jsonl"


@dataclass(frozen=True)
class Case:
    text: str
    said_at: datetime
    family: str
    expected: list[dict[str, Any]]


@dataclass(frozen=True)
class Guess:
    """One interval an extractor found; ``granularity``/``words`` None when it does
    not say."""

    start: datetime
    end: datetime
    granularity: str | None = None
    words: str | None = None


Extractor = Callable[[str, datetime], Iterable[Guess]]


def load(path: str | Path) -> list[Case]:
    cases = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            said = datetime.fromisoformat(row["said_at"])
            cases.append(Case(row["text"], said, row.get("family", "other"), row["expected"]))
    return cases


def _exact(case: Case, got: list[Guess]) -> bool:
    if len(got) != len(case.expected):
        return False
    for g, e in zip(got, case.expected, strict=True):
        if (g.start, g.end) != (
            datetime.fromisoformat(e["start"]),
            datetime.fromisoformat(e["end"]),
        ):
            return False
        if g.granularity is not None and g.granularity != e["granularity"]:
            return False
    return True


def score(cases: list[Case], extract: Extractor) -> dict[str, Any]:
    """Exact lines overall and per family, interval precision/recall, the misses and
    the mean time per line (an extractor that raises scores nothing on that line)."""
    per_family: dict[str, list[int]] = {}
    tp = n_got = n_expected = 0
    misses = []
    seconds = 0.0
    for case in cases[:1]:  # imports and compiled patterns are not what is timed
        with suppress(Exception):
            list(extract(case.text, case.said_at))
    for case in cases:
        t0 = time.perf_counter()
        error: str | None = None
        try:
            got = list(extract(case.text, case.said_at))
        except Exception as e:  # noqa: BLE001 - a candidate's crash is a result
            got, error = [], repr(e)
        seconds += time.perf_counter() - t0
        ok = _exact(case, got)
        fam = per_family.setdefault(case.family, [0, 0])
        fam[0] += ok
        fam[1] += 1
        want = Counter((e["start"], e["end"]) for e in _normal(case.expected))
        have = Counter((g.start.isoformat(), g.end.isoformat()) for g in got)
        tp += sum((want & have).values())
        n_got += len(got)
        n_expected += len(case.expected)
        if not ok:
            misses.append(_miss(case, got, error))
    exact = sum(f[0] for f in per_family.values())
    return {
        "lines": len(cases),
        "exact": exact,
        "accuracy": exact / len(cases) if cases else 0.0,
        "precision": tp / n_got if n_got else 0.0,
        "recall": tp / n_expected if n_expected else 1.0,
        "families": {k: {"exact": v[0], "lines": v[1]} for k, v in sorted(per_family.items())},
        "us_per_line": 1e6 * seconds / len(cases) if cases else 0.0,
        "misses": misses,
    }


def _normal(expected: list[dict[str, Any]]) -> list[dict[str, str]]:
    return [
        {
            "start": datetime.fromisoformat(e["start"]).isoformat(),
            "end": datetime.fromisoformat(e["end"]).isoformat(),
        }
        for e in expected
    ]


def _miss(case: Case, got: list[Guess], error: str | None) -> dict[str, Any]:
    return {
        "family": case.family,
        "text": case.text,
        "said_at": case.said_at.isoformat(),
        "expected": [
            f"{e['words']}: {e['start'][:10]}..{e['end'][:10]} {e['granularity']}"
            for e in case.expected
        ],
        "got": [f"{g.words}: {g.start.date()}..{g.end.date()} {g.granularity}" for g in got],
        "error": error,
    }


def remem_extractor(text: str, said_at: datetime) -> list[Guess]:
    """remem's own ``event_times``."""
    from remem.time.events import event_times

    return [Guess(e.start, e.end, e.granularity, e.words) for e in event_times(text, said_at)]


def tables(name: str, result: dict[str, Any]) -> list[Any]:
    """(title, header, rows) tables: the families, then the misses."""
    fams = [
        (fam, f"{v['exact']}/{v['lines']}", f"{100 * v['exact'] / v['lines']:.1f}")
        for fam, v in result["families"].items()
    ]
    fams.append(("all", f"{result['exact']}/{result['lines']}", f"{100 * result['accuracy']:.1f}"))
    out: list[Any] = [(f"time expressions: {name} (exact lines)", ["family", "exact", "%"], fams)]
    summary = [
        ("interval precision", f"{result['precision']:.3f}"),
        ("interval recall", f"{result['recall']:.3f}"),
        ("µs per line", f"{result['us_per_line']:.1f}"),
    ]
    out.append((f"{name}: intervals", ["measure", "value"], summary))
    if result["misses"]:
        rows = [
            (
                m["text"],
                m["said_at"][:16],
                "; ".join(m["expected"]) or "-",
                "; ".join(m["got"]) or "-",
            )
            for m in result["misses"]
        ]
        out.append((f"{name}: misses", ["text", "said at", "expected", "got"], rows))
    return out
