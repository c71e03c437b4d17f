"""Reading LoCoMo (``locomo10.json``) into memories and questions.

The data set is CC BY-NC 4.0 and is never shipped: callers pass its path. One turn
becomes one memory; an image turn carries its caption as ``[shares <caption>]``
(BLIP captions start with "a photo of"). Turn timestamps are the session's date
plus 30 s per turn, so order within a session survives. Evidence ids that name no
turn (a handful of malformed annotations) are dropped; a question of raw category
1-4 with no valid evidence left is not asked.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

_SESSION = re.compile(r"^session_(\d+)$")


@dataclass(frozen=True)
class Turn:
    dia_id: str
    speaker: str
    text: str
    session_id: str
    timestamp: datetime

    def as_item(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "speaker": self.speaker,
            "timestamp": self.timestamp,
            "session_id": self.session_id,
            "metadata": {"dia_id": self.dia_id},
        }


@dataclass(frozen=True)
class Question:
    question: str
    answer: str | None
    category: int
    evidence: tuple[str, ...]
    adversarial_answer: str | None = None


@dataclass
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    sessions: list[list[Turn]] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)

    @property
    def turns(self) -> list[Turn]:
        return [t for s in self.sessions for t in s]


def parse_session_date(text: str) -> datetime:
    """LoCoMo writes dates like "1:56 pm on 8 May, 2023"."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y")


def turn_text(raw: dict[str, Any]) -> str:
    text = str(raw.get("text", "")).strip()
    caption = raw.get("blip_caption")
    if caption:
        text = f"{text} [shares {caption}]".strip()
    return text


def load_locomo(path: str | Path) -> list[Conversation]:
    with open(path, encoding="utf-8") as fh:
        raw = json.load(fh)
    out = []
    for sample in raw:
        conv = sample["conversation"]
        c = Conversation(sample["sample_id"], (conv["speaker_a"], conv["speaker_b"]))
        numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION.match(k)))
        for n in numbers:
            start = parse_session_date(conv[f"session_{n}_date_time"])
            c.sessions.append(
                [
                    Turn(
                        dia_id=t["dia_id"],
                        speaker=t["speaker"],
                        text=turn_text(t),
                        session_id=f"session_{n}",
                        timestamp=start + timedelta(seconds=30 * i),
                    )
                    for i, t in enumerate(conv[f"session_{n}"])
                ]
            )
        known = {t.dia_id for t in c.turns}
        for qa in sample["qa"]:
            evidence = tuple(dict.fromkeys(e for e in qa.get("evidence", []) if e in known))
            answer = qa.get("answer")
            c.questions.append(
                Question(
                    question=qa["question"],
                    answer=None if answer is None else str(answer),
                    category=int(qa["category"]),
                    evidence=evidence,
                    adversarial_answer=qa.get("adversarial_answer"),
                )
            )
        out.append(c)
    return out


def first_turns(conv: Conversation, n: int) -> Conversation:
    """The conversation as it stood after its first ``n`` turns, with the questions
    whose evidence all lies in them (a short history: how soon does an engine help?).
    Category-5 questions, about things never said, stay."""
    if n < 1:
        raise ValueError(f"the number of turns must be positive, got {n}")
    sessions: list[list[Turn]] = []
    left = n
    for s in conv.sessions:
        if left <= 0:
            break
        sessions.append(s[:left])
        left -= len(sessions[-1])
    kept = {t.dia_id for s in sessions for t in s}
    questions = [
        q for q in conv.questions if q.category == 5 or (q.evidence and set(q.evidence) <= kept)
    ]
    return Conversation(conv.sample_id, conv.speakers, sessions, questions)


def retrieval_questions(conv: Conversation) -> list[Question]:
    """The questions the retrieval benchmark asks: raw categories 1-4 with valid evidence."""
    return [q for q in conv.questions if q.category in (1, 2, 3, 4) and q.evidence]


def adversarial_questions(conv: Conversation) -> list[Question]:
    """Raw category 5: questions about things never said (the gate should refuse)."""
    return [q for q in conv.questions if q.category == 5]
