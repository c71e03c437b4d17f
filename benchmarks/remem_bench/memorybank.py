"""Reading MemoryBank (SiliconFriend's English eval data) as a second retrieval set.

MemoryBank (MIT, Zhong et al. 2023) holds 15 simulated users chatting with an AI
companion over 10 days, and 100 probing questions without answers. remem ships the
evidence for them (``data/memorybank_evidence_en.json``): for each question the
dialogue pairs that answer it, written by reading every user's history. One pair is
a user message and the reply; each becomes a memory (speaker: the user's name or
"AI") carrying the pair id ``DATE:INDEX`` as its ``dia_id``, so a retrieved memory
of either side finds its pair. The data itself is never shipped: callers pass its
path. Questions are category 0 (the data has no categories); the one question
whose evidence is absent from the history is not asked.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from importlib import resources
from pathlib import Path

from .locomo import Conversation, Question, Turn

LABELS = "memorybank_evidence_en.json"


def load_memorybank(path: str | Path, labels: str | Path | None = None) -> list[Conversation]:
    with open(path, encoding="utf-8") as fh:
        raw = json.load(fh)
    if labels is None:
        text = (resources.files("remem_bench") / "data" / LABELS).read_text("utf-8")
    else:
        text = Path(labels).read_text("utf-8")
    by_user: dict[str, list[dict]] = {}
    for q in json.loads(text)["questions"]:
        by_user.setdefault(q["user"], []).append(q)
    out = []
    for key, record in raw.items():
        name = key.strip()
        conv = Conversation(name, (name, "AI"))
        for date in sorted(record.get("history", {})):
            start = datetime.strptime(date, "%Y-%m-%d").replace(hour=9)
            session = []
            for i, pair in enumerate(record["history"][date]):
                t = start + timedelta(minutes=2 * i)
                for j, (speaker, text) in enumerate(
                    ((name, pair.get("query", "")), ("AI", pair.get("response", "")))
                ):
                    if str(text).strip():
                        session.append(
                            Turn(
                                f"{date}:{i}",
                                speaker,
                                str(text).strip(),
                                date,
                                t + j * timedelta(minutes=1),
                            )
                        )
            if session:
                conv.sessions.append(session)
        known = {t.dia_id for t in conv.turns}
        for q in by_user.get(name, []):
            evidence = tuple(e for e in q["evidence"] if e in known)
            conv.questions.append(Question(q["question"], q.get("answer"), 0, evidence))
        out.append(conv)
    return out


def probing_questions(conv: Conversation) -> list[Question]:
    return [q for q in conv.questions if q.evidence]
