"""A question, read once: what every stage after the engine reads of it.

A question passes through several stages (the engine's ranking, the time stage, the
exact-identifier stage, the "not in memory" verdict, the reader). Each used to read
the raw text again in its own way; :func:`read_question` reads it once, at the
pipeline's entrance (``recall/pipeline.py``), into a :class:`Question` that the stages
are handed. Reading the clock is part of that: a question asked with ``now=None``
names its days from one reading of the clock, so two stages can never disagree about
what "yesterday" was.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone

from .index.tokenize import identifier_tokens, tokenize
from .timeexpr import TimeWindow, time_order, time_window


@dataclass(frozen=True)
class Question:
    """What a question says, as the stages read it."""

    #: the question as asked (already validated)
    text: str
    #: the moment it is asked as the caller gave it (None: not given; an engine with
    #: its own clock, ILSTMA's days since recall, then uses its own)
    now: datetime | None
    #: the time it names, relative to the moment it is asked (None: it names none)
    window: TimeWindow | None
    #: its order word: "newest" ("now", "currently"), "oldest" ("initially"), or None
    order: str | None
    #: its words as the lexical index tokenizes them
    tokens: tuple[str, ...]
    #: the tokens written like identifiers (codes, numbers, rare names), for the
    #: exact-identifier stage; empty when that stage is off
    identifiers: tuple[str, ...]

    @property
    def names_time(self) -> bool:
        """Whether it names a time (the time stage then reorders a deeper list)."""
        return self.window is not None


def read_question(
    text: str, now: datetime | None, *, identifiers: bool = True, names: bool = True
) -> Question:
    """Read ``text`` once. ``now`` is the moment it is asked (None: the clock, read
    here once). ``identifiers``: whether to collect its identifier-like tokens
    (``names``: capitalised words inside a sentence count as names)."""
    clock = now if now is not None else datetime.now(timezone.utc)
    return Question(
        text=text,
        now=now,
        window=time_window(text, clock),
        order=time_order(text),
        tokens=tuple(tokenize(text)),
        identifiers=tuple(identifier_tokens(text, names=names)) if identifiers else (),
    )
