"""Answers about time and change, graded by content (``data/time_check.json``).

Conversations written for remem (issue 36): dates said relative to the message
("on Saturday", "yesterday", "the 18th"), "last <weekday>" questions, what is true
now and what was true before, and things never said. Each question is asked through
the public API (``Memory.answer``) with the given reader, and graded by what the
answer says, never by word overlap:

* a date question is right when the answer writes the expected day ("11 May 2024",
  "May 11, 2024" or "2024-05-11"); the day the message was sent is a wrong answer;
* a value question is right when the answer holds one of the expected words and none
  of the stale ones (a "now" answer naming the old city is wrong);
* a never-said question is right only when refused.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from remem import Memory

DATA = Path(__file__).parent / "data" / "time_check.json"


def date_forms(day: date) -> list[str]:
    """How an answer may write ``day``: "8 March 2025", "March 8, 2025", "March 8
    2025", "2025-03-08" (the grader's own list, not the forms remem writes)."""
    month = day.strftime("%B")
    return [
        f"{day.day} {month} {day.year}",
        f"{month} {day.day}, {day.year}",
        f"{month} {day.day} {day.year}",
        day.isoformat(),
    ]


@dataclass(frozen=True)
class Checked:
    user_id: str
    kind: str
    question: str
    answer: str
    right: bool


def grade(question: dict[str, Any], answer: str, refused: bool) -> bool:
    """Whether ``answer`` says what ``question`` expects (module notes)."""
    if question["kind"] == "never":
        return refused
    if refused:
        return False
    low = answer.lower()
    if "date" in question:
        return any(f.lower() in low for f in date_forms(date.fromisoformat(question["date"])))
    held = any(w.lower() in low for w in question["answer"])
    return held and not any(w.lower() in low for w in question.get("stale", []))


def run_time_check(make: Callable[[str], Memory], path: str | Path = DATA) -> list[Checked]:
    """Every question of the file, each conversation in a fresh Memory from
    ``make(user_id)``."""
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    out: list[Checked] = []
    for conv in raw["conversations"]:
        user = conv["user_id"]
        with make(user) as mem:
            last = _fill(mem, user, conv["sessions"])
            for q in conv["questions"]:
                asked = datetime.fromisoformat(q["asked"]) if "asked" in q else last
                a = mem.answer(q["question"], user, k=5, now=asked)
                out.append(
                    Checked(user, q["kind"], q["question"], a.text, grade(q, a.text, a.refused))
                )
    return out


def _fill(mem: Memory, user: str, sessions: list[dict[str, Any]]) -> datetime:
    """Add the sessions' turns (a minute apart); returns a day after the last."""
    items = []
    when = datetime.min
    for s in sessions:
        start = datetime.fromisoformat(s["date"])
        for i, t in enumerate(s["turns"]):
            when = start + timedelta(minutes=i)
            items.append({"text": t["text"], "speaker": t["speaker"], "timestamp": when})
    mem.add_many(items, user)
    return when + timedelta(days=1)


def summary(rows: list[Checked]) -> dict[str, tuple[int, int]]:
    """Kind -> (right, asked)."""
    out: dict[str, tuple[int, int]] = {}
    for r in rows:
        right, asked = out.get(r.kind, (0, 0))
        out[r.kind] = (right + r.right, asked + 1)
    return out
