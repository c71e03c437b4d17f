"""A chat history long enough for the verdict's ``named`` model: it is used only on
histories at least as long as the smallest it was fitted on
(``remem.answer.verdict.NAMED_MIN_MEMORIES``); the tests that read it on a few turns
add this many turns of small talk first, none sharing a word with their questions."""

from __future__ import annotations

from datetime import datetime, timedelta

from remem import Memory
from remem.answer.verdict import NAMED_MIN_MEMORIES

#: small talk that shares no word with the tests' questions
_TALK = (
    "The bus was late again this morning.",
    "Did you see the sunset over the harbour yesterday?",
    "I finally fixed the squeaky kitchen door.",
    "The bakery on the corner sells lovely sourdough now.",
)


def long_history(mem: Memory, user: str, before: datetime) -> None:
    """Add :data:`NAMED_MIN_MEMORIES` turns of small talk between Melanie and
    Caroline to ``user``, a minute apart, ending a day ``before``."""
    start = before - timedelta(days=1, minutes=NAMED_MIN_MEMORIES)
    mem.add_many(
        [
            {
                "text": f"{_TALK[i % len(_TALK)]} (day {i})",
                "speaker": ("Melanie", "Caroline")[i % 2],
                "timestamp": start + timedelta(minutes=i),
            }
            for i in range(NAMED_MIN_MEMORIES)
        ],
        user,
    )
