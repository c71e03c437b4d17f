"""The question-window development set: the time a question asks about.

Each line of ``remem_bench/data/question_windows.jsonl`` is a question in conversational
English, the moment it is asked (``now``) and the window it names, labelled by hand
(``expected``: ``start``, ``end`` and ``granularity``, or null when it names no time:
"what time do I usually wake up?", "what did May say?"). A two-step line ("what did
I do two days after the wedding?") also carries the user's ``memories`` (text and
when each was said) that its anchor is found among.

Two measures, because readers differ in what they promise: **exact** (the interval
itself, and its granularity when the reader gives one) and **covers** (the reader's
window holds the whole expected interval and is at most ``_LOOSE`` times its length
plus two weeks: a loose window around the right time, which is what the old padded
windows gave). A line with no expected window is right under both only when the
reader gives none.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data"
QUESTIONS = DATA / "question_windows.jsonl"
#: a covering window may be this many times the expected one, plus two weeks
_LOOSE = 3.0


@dataclass(frozen=True)
class QCase:
    text: str
    now: datetime
    family: str
    #: (start, end, granularity), or None: the question names no time
    expected: tuple[datetime, datetime, str] | None
    #: (text, said at) of the memories a two-step question's anchor is found among
    memories: tuple[tuple[str, datetime], ...] = ()


#: (start, end, granularity or None) of the window a reader gives, or None
Got = tuple[datetime, datetime, str | None] | None
Reader = Callable[[QCase], Got]


def load(path: str | Path = QUESTIONS) -> list[QCase]:
    cases = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        e = row["expected"]
        expected = (
            None
            if e is None
            else (
                datetime.fromisoformat(e["start"]),
                datetime.fromisoformat(e["end"]),
                e["granularity"],
            )
        )
        memories = tuple(
            (m["text"], datetime.fromisoformat(m["said_at"])) for m in row.get("memories", ())
        )
        now = datetime.fromisoformat(row["now"])
        cases.append(QCase(row["text"], now, row.get("family", "other"), expected, memories))
    return cases


def _exact(case: QCase, got: Got) -> bool:
    if case.expected is None or got is None:
        return case.expected is None and got is None
    start, end, gran = case.expected
    return (got[0], got[1]) == (start, end) and got[2] in (None, gran)


def _covers(case: QCase, got: Got) -> bool:
    if case.expected is None or got is None:
        return case.expected is None and got is None
    start, end, _ = case.expected
    wide = (end - start) * _LOOSE + timedelta(days=14)
    return got[0] <= start and got[1] >= end and got[1] - got[0] <= wide


def score(cases: list[QCase], read: Reader) -> dict[str, Any]:
    """Exact and covering lines overall and per family, windows given to questions
    naming no time (false) and none given where one was named (missed), the misses."""
    fams: dict[str, list[int]] = {}
    false = missed = 0
    misses = []
    for case in cases:
        error: str | None = None
        try:
            got = read(case)
        except Exception as e:  # noqa: BLE001 - a reader's crash is a result
            got, error = None, repr(e)
        ex, cov = _exact(case, got), _covers(case, got)
        f = fams.setdefault(case.family, [0, 0, 0])
        f[0], f[1], f[2] = f[0] + ex, f[1] + cov, f[2] + 1
        false += case.expected is None and got is not None
        missed += case.expected is not None and got is None
        if not ex:
            misses.append(_miss(case, got, error))
    n = len(cases)
    exact = sum(v[0] for v in fams.values())
    covers = sum(v[1] for v in fams.values())
    return {
        "lines": n,
        "exact": exact,
        "covers": covers,
        "false_windows": false,
        "missed_windows": missed,
        "families": {
            k: {"exact": v[0], "covers": v[1], "lines": v[2]} for k, v in sorted(fams.items())
        },
        "misses": misses,
    }


def _day(t: datetime) -> str:
    return t.isoformat()[:16] if (t.hour, t.minute) != (0, 0) else t.date().isoformat()


def _miss(case: QCase, got: Got, error: str | None) -> dict[str, Any]:
    e = case.expected
    return {
        "family": case.family,
        "text": case.text,
        "now": case.now.isoformat(),
        "expected": "-" if e is None else f"{_day(e[0])}..{_day(e[1])} {e[2]}",
        "got": error or ("-" if got is None else f"{_day(got[0])}..{_day(got[1])} {got[2] or ''}"),
    }


def tables(name: str, result: dict[str, Any]) -> list[Any]:
    """(title, header, rows) tables: the families, then the misses."""
    rows = [
        (fam, f"{v['exact']}/{v['lines']}", f"{v['covers']}/{v['lines']}")
        for fam, v in result["families"].items()
    ]
    n = result["lines"]
    rows.append(("all", f"{result['exact']}/{n}", f"{result['covers']}/{n}"))
    out: list[Any] = [(f"question windows: {name}", ["family", "exact", "covers"], rows)]
    summary = [
        ("windows given where none was named", str(result["false_windows"])),
        ("no window where one was named", str(result["missed_windows"])),
    ]
    out.append((f"{name}: errors", ["measure", "lines"], summary))
    if result["misses"]:
        miss_rows = [(m["text"], m["now"][:16], m["expected"], m["got"]) for m in result["misses"]]
        out.append((f"{name}: not exact", ["question", "now", "expected", "got"], miss_rows))
    return out


def question_reader(case: QCase) -> Got:
    """remem's reading: ``time.window.question_window``, a two-step line's anchor
    found among its memories (read by ``event_times``, as at ingest)."""
    from remem.time.events import event_times
    from remem.time.window import question_window

    memories = [(text, said, event_times(text, said)) for text, said in case.memories]
    w = question_window(case.text, case.now, memories)
    return None if w is None else (w.start, w.end, w.granularity)
