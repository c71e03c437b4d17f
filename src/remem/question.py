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

from . import words
from .index.tokenize import identifier_tokens, tokenize, without_asking
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
    #: its tokens without the asking words ("what", "how many"), as the lexical
    #: index leaves them out (``index.tokenize.without_asking``)
    lexical: tuple[str, ...] = ()
    #: its content words as (token, key) (``words.word_key``), asking and personal
    #: words aside: what a sentence must share with it to speak of the same thing
    content: tuple[tuple[str, str], ...] = ()
    #: the keys of its content words, personal words aside (``words.content_keys``)
    keys: frozenset[str] = frozenset()
    #: the keys of all its words (what an answer restating it repeats)
    all_keys: frozenset[str] = frozenset()
    #: whether it speaks of the one asking ("I", "my")
    first_person: bool = False
    #: the things it says the user has ("my favourite film" -> "film";
    #: ``words.possessed``)
    possessed: tuple[str, ...] = ()
    #: the names in it (capitalised words inside a sentence, days and months aside)
    names: tuple[str, ...] = ()
    #: whether it is about time at all (a date, a duration, "ago")
    temporal: bool = False
    #: the kind of answer it wants (``words.ANSWER_TYPES``: "date", "number",
    #: "person", "place", "yes/no", "thing")
    answer_type: str = "thing"

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
    tokens = tuple(tokenize(text))
    return Question(
        text=text,
        now=now,
        window=time_window(text, clock),
        order=time_order(text),
        tokens=tokens,
        identifiers=tuple(identifier_tokens(text, names=names)) if identifiers else (),
        lexical=tuple(tokenize(without_asking(text))),
        content=_content(tokens),
        keys=frozenset(words.content_keys(text)),
        all_keys=frozenset(words.word_key(t) for t in tokens),
        first_person=bool(words.FIRST_PERSON.search(text)),
        possessed=tuple(words.possessed(text)),
        names=tuple(words.names(text)),
        temporal=words.is_temporal(text),
        answer_type=words.answer_type(text),
    )


def as_question(question: Question | str) -> Question:
    """A question as the stages read it: a :class:`Question` as it is, a str read now
    (at the current time; for callers outside the pipeline: tests, benchmarks)."""
    return question if isinstance(question, Question) else read_question(question, None)


def _content(tokens: tuple[str, ...]) -> tuple[tuple[str, str], ...]:
    out = []
    for t in tokens:
        k = words.word_key(t)
        if k not in words.ASKING and k in words.content_keys(t):
            out.append((t, k))
    return tuple(out)
