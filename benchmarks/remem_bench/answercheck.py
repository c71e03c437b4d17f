"""Whether the answer a user reads is right, graded by content (``data/answer_check.json``).

Two conversations written for issue 37 before any reader was run on them: a name in
the reply to a question, a name asked in the third person, a number, a time, a place,
an organisation, a thing, a day said relative to the message, a value that changed,
the party a person left, and four things never said. Every turn is added through the
public API and every question asked with ``Memory.answer``; an answer is graded by
what it says, never by word overlap:

* a date question is right only when the answer names the expected day, its day and
  month ("17 September", "September 17th, 2023", "2023-09-17"); a year it writes
  must be the right one, and the day the message was sent is wrong;
* a value question is right only when every expected word is in the answer (or one of
  the ``any`` alternatives is), as a whole word, and no ``stale`` word is;
* an answerable question refused is wrong; a never-said one is right only refused.

Apart from right and wrong, each answer that is not a refusal is read for *invented*
words: content words (alphabetic, three letters or more, function words aside) found
in no memory of the user, compared by :func:`remem_bench.words.key` so "moved" meets
"move" (the harness's own word rules, not remem's: a grader sharing code with what it
grades could not catch that code's bugs). Weekday and month names and words of
relative time are not counted (the time layer writes the days it resolved), nor are
digits.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from remem import Memory
from remem.embed import Embedder, create_embedder

from .words import MONTHS, PERSONAL, STOPWORDS, WEEKDAYS, key, tokens

DATA = Path(__file__).parent / "data" / "answer_check.json"

#: function words and an answer's framing ("she said", "named"): never invented
FUNCTION_WORDS = STOPWORDS | PERSONAL | frozenset(
    {
        "about", "after", "all", "also", "any", "before", "both", "can", "could", "during",
        "each", "from", "how", "just", "more", "most", "now", "only", "other", "over", "own",
        "same", "should", "some", "than", "too", "under", "very", "what", "when", "where",
        "which", "while", "who", "whom", "whose", "why", "would", "yet", "one", "two",
        "said", "says", "mentioned", "called", "named", "don", "didn", "doesn", "isn",
        "wasn", "aren", "weren", "hasn", "haven", "hadn", "won", "wouldn", "couldn",
        "shouldn", "himself", "herself", "themselves", "yes",
    }
)  # fmt: skip
#: what the time layer writes when it resolves a day ("Sunday 17 September 2023",
#: "last Sunday", "two days ago"): not invented
TIME_WORDS = frozenset(WEEKDAYS + MONTHS) | frozenset(
    {
        "ago", "last", "next", "this", "week", "weeks", "weekend", "day", "days", "month",
        "months", "year", "years", "today", "yesterday", "tomorrow", "morning", "afternoon",
        "evening", "night",
    }
)  # fmt: skip
_WORD = re.compile(r"[^\W\d_]+")


@dataclass(frozen=True)
class Checked:
    """One question asked and graded."""

    user_id: str
    kind: str
    question: str
    answer: str
    refused: bool
    right: bool
    expected: str
    invented: tuple[str, ...]


def has_word(word: str, text: str) -> bool:
    """Whether ``text`` holds ``word`` as a whole word (a plural or possessive too:
    "Halden's" holds "Halden", "17:58" does not hold "7:58"), case aside; a number
    also after a currency's letters ("R1,200" holds "1,200", "12,001" not "2,001")."""
    before = r"(?<![\d.,])" if word[:1].isdigit() else r"(?<!\w)"
    return re.search(rf"{before}{re.escape(word)}(?:'?s)?(?!\w)", text, re.I) is not None


def names_day(answer: str, day: date) -> bool:
    """Whether ``answer`` names ``day``: "8 March", "March 8th, 2025", "2025-03-08"."""
    if day.isoformat() in answer:
        return True
    n, month = rf"0?{day.day}(?:st|nd|rd|th)?", MONTHS[day.month - 1]
    year = r"(?:,?\s+(?P<year>\d{4}))?"
    for form in (rf"(?<!\d){n}\s+(?:of\s+)?{month}\b{year}", rf"\b{month}\s+{n}(?!\d){year}"):
        if any(m["year"] in (None, str(day.year)) for m in re.finditer(form, answer, re.I)):
            return True
    return False


def says_value(question: dict[str, Any], answer: str) -> bool:
    """Every expected word in ``answer`` (or one of the ``any`` alternatives) and no
    stale one."""
    expected = question.get("expected", [])
    held = bool(expected) and all(has_word(w, answer) for w in expected)
    held = held or any(has_word(w, answer) for w in question.get("any", []))
    return held and not any(has_word(w, answer) for w in question.get("stale", []))


def grade(question: dict[str, Any], answer: str, refused: bool) -> bool:
    """Whether ``answer`` is right for ``question`` (module notes)."""
    if question["kind"] == "never":
        return refused
    if refused:
        return False
    if "date" in question:
        return names_day(answer, date.fromisoformat(question["date"]))
    return says_value(question, answer)


def invented(answer: str, memories: Iterable[str]) -> list[str]:
    """The content words of ``answer`` that no memory holds (module notes), in order,
    each once."""
    return invented_from(answer, held_words(memories))


def held_words(memories: Iterable[str]) -> tuple[set[str], set[str]]:
    """The words of ``memories`` as tokens and as keys (``word_key``): what
    :func:`invented_from` checks an answer against, built once per user."""
    held: set[str] = set()
    for text in memories:
        held.update(tokens(text))
        held.update(_WORD.findall(text.lower()))  # as an answer's words are read
    return held, {key(t) for t in held}


def invented_from(answer: str, held: tuple[set[str], set[str]]) -> list[str]:
    """:func:`invented` against words already gathered by :func:`held_words`."""
    words, keys = held
    out: list[str] = []
    for w in _WORD.findall(answer.lower()):
        if len(w) < 3 or w in FUNCTION_WORDS or w in TIME_WORDS or w in out:
            continue
        if w not in words and key(w) not in keys:
            out.append(w)
    return out


def expected_text(question: dict[str, Any]) -> str:
    """What a right answer holds, as a report shows it."""
    if question["kind"] == "never":
        return "a refusal"
    if "date" in question:
        return question["date"]
    text = " + ".join(question.get("expected", []))
    if question.get("any"):
        text += (" or " if text else "") + " or ".join(question["any"])
    if question.get("stale"):
        text += ", not " + " or ".join(question["stale"])
    return text


def load(path: str | Path = DATA) -> list[dict[str, Any]]:
    """The check set's conversations."""
    conversations: list[dict[str, Any]] = json.loads(Path(path).read_text("utf-8"))["conversations"]
    return conversations


def check_conversation(mem: Memory, conv: dict[str, Any]) -> list[Checked]:
    """Add ``conv``'s turns to ``mem`` and ask each of its questions a day after the
    last session."""
    user = conv["user_id"]
    now = fill(mem, user, conv["sessions"])
    memories = [h.text for h in mem.memories(user)]
    out = []
    for q in conv["questions"]:
        a = mem.answer(q["question"], user, now=now)
        made_up = () if a.refused else tuple(invented(a.text, memories))
        right = grade(q, a.text, a.refused)
        out.append(
            Checked(
                user, q["kind"], q["question"], a.text, a.refused, right, expected_text(q), made_up
            )
        )
    return out


def fill(mem: Memory, user: str, sessions: list[dict[str, Any]]) -> datetime:
    """Add the sessions' turns (a minute apart); returns a day after the last."""
    items = []
    when = datetime.min
    for n, s in enumerate(sessions, 1):
        start = datetime.fromisoformat(s["date"])
        for i, t in enumerate(s["turns"]):
            when = start + timedelta(minutes=i)
            items.append(
                {
                    "text": t["text"],
                    "speaker": t["speaker"],
                    "timestamp": when,
                    "session_id": f"s{n}",
                }
            )
    mem.add_many(items, user)
    return when + timedelta(days=1)


def summary(rows: list[Checked]) -> dict[str, Any]:
    """One conversation's counts, its wrong answers and every row."""
    answerable = [r for r in rows if r.kind != "never"]
    never = [r for r in rows if r.kind == "never"]
    return {
        "right": sum(r.right for r in answerable),
        "answerable": len(answerable),
        "never_answered": sum(not r.refused for r in never),
        "never": len(never),
        "with_invented": sum(bool(r.invented) for r in rows),
        "not_refused": sum(not r.refused for r in rows),
        "wrong": [
            {"question": r.question, "answer": r.answer, "expected": r.expected}
            for r in rows
            if not r.right
        ],
        "rows": [asdict(r) for r in rows],
    }


def run_answer_check(
    engines: list[str],
    *,
    llm: str = "auto",
    path: str | Path = DATA,
    embedder: Embedder | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Every conversation in a fresh in-memory Memory per engine (one embedder for
    all), graded; per engine and conversation, :func:`summary`."""
    shared = embedder or create_embedder("minilm")
    result: dict[str, Any] = {"benchmark": "answer-check", "data": str(path), "llm": llm}
    result["engines"] = {}
    for engine in engines:
        per: dict[str, Any] = {}
        for conv in load(path):
            if progress:
                progress(f"{engine}: {conv['user_id']}")
            with Memory(":memory:", engine=engine, embedder=shared, llm=llm) as mem:
                per[conv["user_id"]] = summary(check_conversation(mem, conv))
                result["reader"] = mem.llm.name
        result["engines"][engine] = per
    return result


def tables(result: dict[str, Any]) -> list[tuple[str, list[str], list[list[str]]]]:
    """The counts per engine and conversation, then the wrong answers, then the
    answers with invented words."""
    counts, wrong, made_up = [], [], []
    for engine, per in result["engines"].items():
        for user, s in per.items():
            counts.append(
                [
                    engine,
                    user,
                    f"{s['right']} / {s['answerable']}",
                    f"{s['never_answered']} / {s['never']}",
                    f"{s['with_invented']} / {s['not_refused']}",
                ]
            )
            wrong += [[engine, user, w["question"], w["answer"], w["expected"]] for w in s["wrong"]]
            made_up += [
                [engine, user, r["question"], r["answer"], ", ".join(r["invented"])]
                for r in s["rows"]
                if r["invented"]
            ]
    reader = result.get("reader", result["llm"])
    return [
        (
            f"Answers graded by content (answer check, issue 37), reader {reader}",
            [
                "engine",
                "conversation",
                "right",
                "never-said answered",
                "answers with invented words",
            ],
            counts,
        ),
        ("Wrong answers", ["engine", "conversation", "question", "answer", "expected"], wrong),
        ("Invented words", ["engine", "conversation", "question", "answer", "invented"], made_up),
    ]
