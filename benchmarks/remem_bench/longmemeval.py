"""Reading LongMemEval (the official JSON: S, M and oracle files) into haystacks.

LongMemEval (Wu et al., ICLR 2025) asks about one user's long history with an
assistant: about 50 sessions per question in the S setting, assistant turns of
thousands of characters, facts that change, questions about *when*. Each question
comes with its own haystack (``haystack_sessions``, each session dated by
``haystack_dates``); the turns marked ``has_answer`` are the evidence.

The oracle file holds only each question's evidence sessions, which makes retrieval
trivial; :func:`pooled` builds realistic haystacks from it the way its README says:
a question's own sessions plus ``pool`` sessions drawn with a fixed seed from the
other questions, each keeping its own date, where only the question's own
``has_answer`` turns count as evidence. The S and M files already hold their
distractors and are read as they are.

One turn becomes one memory: the speaker is the role (``user`` / ``assistant``), the
timestamp the session's date plus 30 s per turn (order within a session survives),
the session id the haystack's, and ``metadata["turn"]`` = ``<session id>:<index>``,
the id evidence is matched on. Sessions are ingested in date order.
"""

from __future__ import annotations

import json
import random
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from remem import InvalidInputError

_DATE = re.compile(r"^(\d{4})/(\d{2})/(\d{2})(?: \(\w+\))? (\d{2}):(\d{2})$")
TURN_STEP = timedelta(seconds=30)


def parse_date(text: str) -> datetime:
    """LongMemEval's "2023/05/20 (Sat) 02:21" (naive: the data set gives no zone)."""
    m = _DATE.match(text.strip())
    if not m:
        raise InvalidInputError(f"not a LongMemEval date: {text!r}")
    y, mo, d, h, mi = (int(x) for x in m.groups())
    return datetime(y, mo, d, h, mi)


@dataclass(frozen=True)
class Turn:
    turn_id: str  # "<session id>:<index in the session>"
    role: str
    text: str
    session_id: str
    timestamp: datetime
    has_answer: bool = False

    def as_item(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "speaker": self.role,
            "timestamp": self.timestamp,
            "session_id": self.session_id,
            "metadata": {"turn": self.turn_id},
        }


@dataclass(frozen=True)
class Session:
    session_id: str
    date: datetime
    turns: tuple[Turn, ...]


@dataclass
class Question:
    """One question with its haystack (sessions in date order)."""

    question_id: str
    question_type: str
    question: str
    answer: str
    question_date: datetime
    sessions: list[Session] = field(default_factory=list)
    #: the question's own sessions (evidence lives only there)
    own_sessions: tuple[str, ...] = ()
    answer_session_ids: tuple[str, ...] = ()

    @property
    def abstention(self) -> bool:
        """The answer is not in the history (ids ending in ``_abs``)."""
        return self.question_id.endswith("_abs")

    @property
    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s.turns]

    @property
    def evidence(self) -> tuple[str, ...]:
        """The turns that hold the answer: ``has_answer`` turns of its own sessions."""
        own = set(self.own_sessions)
        return tuple(t.turn_id for t in self.turns if t.has_answer and t.session_id in own)

    @property
    def evidence_sessions(self) -> tuple[str, ...]:
        """Sessions holding evidence (LongMemEval's session-level relevance)."""
        found = {t.session_id for t in self.turns if t.turn_id in set(self.evidence)}
        listed = [s for s in self.answer_session_ids if s in found]
        return tuple(listed or sorted(found))


def _sessions(raw: dict[str, Any], *, mark: bool) -> list[Session]:
    """The question's haystack sessions; ``has_answer`` kept only when ``mark``."""
    out = []
    ids, dates, sessions = (
        raw["haystack_session_ids"],
        raw["haystack_dates"],
        raw["haystack_sessions"],
    )
    if not len(ids) == len(dates) == len(sessions):
        raise InvalidInputError(f"question {raw.get('question_id')!r}: haystack lengths differ")
    for sid, date, turns in zip(ids, dates, sessions, strict=True):
        start = parse_date(date)
        out.append(
            Session(
                str(sid),
                start,
                tuple(
                    Turn(
                        f"{sid}:{i}",
                        str(t.get("role", "user")),
                        str(t.get("content", "")),
                        str(sid),
                        start + i * TURN_STEP,
                        bool(t.get("has_answer")) and mark,
                    )
                    for i, t in enumerate(turns)
                    if str(t.get("content", "")).strip()
                ),
            )
        )
    return out


def load_longmemeval(path: str | Path) -> list[Question]:
    """Every question of an official LongMemEval file, its haystack as given."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(f"cannot read LongMemEval data from {str(path)!r}: {exc}") from None
    if not isinstance(data, list):
        raise InvalidInputError("LongMemEval data must be a JSON list of questions")
    out = []
    for raw in data:
        sessions = _sessions(raw, mark=True)
        out.append(
            Question(
                question_id=str(raw["question_id"]),
                question_type=str(raw["question_type"]),
                question=str(raw["question"]),
                answer=str(raw["answer"]),
                question_date=parse_date(str(raw["question_date"])),
                sessions=sorted(sessions, key=lambda s: (s.date, s.session_id)),
                own_sessions=tuple(s.session_id for s in sessions),
                answer_session_ids=tuple(str(s) for s in raw.get("answer_session_ids", ())),
            )
        )
    return out


def pooled(questions: list[Question], pool: int, seed: int = 0) -> list[Question]:
    """Each question's own sessions plus ``pool`` sessions of other questions, drawn
    with ``seed`` (the oracle file's realistic haystacks). A drawn session keeps its
    date and its turns, but none of its ``has_answer`` marks: only the question's own
    turns are evidence. A session id shared with the question's own is never drawn.
    Sessions dated before the question are drawn first (in the S and M files every
    session precedes its question; a history cannot hold what was said after the
    question was asked), later ones only when too few earlier ones exist."""
    if pool < 0:
        raise InvalidInputError(f"pool must not be negative, got {pool}")
    if pool == 0:
        return questions
    everything = [(q.question_id, s) for q in questions for s in q.sessions]
    out = []
    for i, q in enumerate(questions):
        rng = random.Random(f"{seed}:{i}:{q.question_id}")
        own = set(q.own_sessions)
        others = [
            s for owner, s in everything if owner != q.question_id and s.session_id not in own
        ]
        before = [s for s in others if s.date <= q.question_date]
        later = [s for s in others if s.date > q.question_date]
        seen: set[str] = set()
        drawn: list[Session] = []
        for group in (before, later):
            for s in rng.sample(group, len(group)):
                if len(drawn) >= pool:
                    break
                if s.session_id not in seen:
                    seen.add(s.session_id)
                    drawn.append(_unmarked(s))
        sessions = sorted([*q.sessions, *drawn], key=lambda s: (s.date, s.session_id))
        out.append(
            Question(
                q.question_id,
                q.question_type,
                q.question,
                q.answer,
                q.question_date,
                sessions,
                q.own_sessions,
                q.answer_session_ids,
            )
        )
    return out


def _unmarked(s: Session) -> Session:
    return Session(
        s.session_id,
        s.date,
        tuple(Turn(t.turn_id, t.role, t.text, t.session_id, t.timestamp, False) for t in s.turns),
    )


def spread(questions: list[Question], n: int | None) -> list[Question]:
    """``n`` questions spread evenly over the file (every type in proportion), or all."""
    if n is None or n >= len(questions):
        return questions
    if n <= 0:
        raise InvalidInputError(f"questions must be positive, got {n}")
    step = len(questions) / n
    return [questions[int(i * step)] for i in range(n)]


def is_oracle(questions: list[Question]) -> bool:
    """Whether the haystacks hold only evidence sessions (the oracle file): then
    retrieval is trivial until other sessions are pooled in."""
    return bool(questions) and all(
        {s.session_id for s in q.sessions} <= set(q.answer_session_ids) for q in questions
    )
