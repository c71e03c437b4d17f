"""Cases the answering tests share (tests/answer/, tests/test_cli_ask.py): the keys
of an :class:`remem.answer.Answer`, and the conversations and questions that both
the reader's and the settling rules' tests ask about."""

from __future__ import annotations

from datetime import timedelta

from remem import Memory

# one list of the Answer keys, pinned: a key added or lost is an API change
ANSWER_FIELDS = {
    "text",
    "evidence",
    "refused",
    "cache_hit",
    "context_tokens",
    "llm_calls",
    "latency_s",
    "prompt_tokens",
    "completion_tokens",
    "explanations",
    "timings",
    "draft",
    "source_id",
}

WHERE = "Where does Ana's sister live?"

# Caroline's grandma, Melanie's pottery class: a false premise asked of the wrong one
NECKLACE = [
    ("Caroline", "Thanks, Melanie! This necklace is a gift from my grandma in Sweden."),
    ("Melanie", "It's beautiful! I love the pottery class I joined last week."),
]

# Priya's cello teacher, named only in the reply to Remy's question: the typed
# reader's and ILSTMA's typed judge's tests both ask for her
CELLO = [
    ("Priya", "I finally started cello lessons this month, at the music school on Rua Nova."),
    ("Remy", "That's great! Who's teaching you?"),
    ("Priya", "Her name is Ines Duarte. She played with the Porto symphony for years."),
]


def asked(embedder, engine: str, user: str, talk, question: str, start, day: int):
    """``question``'s answer from a Memory of ``user`` holding ``talk`` (as
    :func:`remembered`), asked ``day`` days after ``start``."""
    with remembered(embedder, engine, user, talk, start) as mem:
        return mem.answer(question, user, now=start + timedelta(days=day))


def remembered(embedder, engine: str, user: str, talk, start) -> Memory:
    """A Memory of ``user`` holding ``talk``: (day offset, speaker, text), a minute
    apart from ``start``, one session a day."""
    mem = Memory(":memory:", engine=engine, embedder=embedder, llm="none")
    for i, (day, who, text) in enumerate(talk):
        when = start + timedelta(days=day, minutes=i)
        mem.add(text, user, speaker=who, timestamp=when, session_id=f"s{day}")
    return mem
