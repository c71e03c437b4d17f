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

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from functools import cached_property

from . import words
from .index.tokenize import identifier_tokens, tokenize, without_asking
from .time.anchors import Anchored, find_anchored
from .time.window import TimeWindow, time_order, time_window

#: a "when" question in the past tense: the verb after "when" ("When did", "When was")
_ASKS_PAST = re.compile(
    r"\W*(?:when|(?:(?:on|in)\s+)?(?:what|which)\s+(?:day|date|year|month))\s+"
    r"(?:did|was|were|had)\b",
    re.I,
)
#: a run of capitalised words after "the": a thing's name ("the Valencia Marathon")
_THE_NAME = re.compile(r"\bthe\s+((?:[A-Z][\w'-]*\s*)+)")


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
    #: the tokens written like identifiers (codes, numbers, rare names), for the
    #: exact-identifier stage; empty when that stage is off
    identifiers: tuple[str, ...]

    # What the later stages read (the verdict, the reader) is read on first use, once
    # per question: a search that reaches no reader never pays for it.

    @cached_property
    def tokens(self) -> tuple[str, ...]:
        """Its words as the lexical index tokenizes them."""
        return tuple(tokenize(self.text))

    @cached_property
    def lexical(self) -> tuple[str, ...]:
        """Its tokens without the asking words ("what", "how many"), as the lexical
        index leaves them out (``index.tokenize.without_asking``)."""
        return tuple(tokenize(without_asking(self.text)))

    @cached_property
    def content(self) -> tuple[tuple[str, str], ...]:
        """Its content words as (token, key) (``words.word_key``), asking and personal
        words aside: what a sentence must share with it to speak of the same thing."""
        out = []
        for t in self.tokens:
            k = words.word_key(t)
            if k not in words.ASKING and k in words.content_keys(t):
                out.append((t, k))
        return tuple(out)

    @cached_property
    def keys(self) -> frozenset[str]:
        """The keys of its content words, personal words aside (``words.content_keys``)."""
        return frozenset(words.content_keys(self.text))

    @cached_property
    def all_keys(self) -> frozenset[str]:
        """The keys of all its words (what an answer restating it repeats)."""
        return frozenset(words.word_key(t) for t in self.tokens)

    @cached_property
    def first_person(self) -> bool:
        """Whether it speaks of the one asking ("I", "my")."""
        return bool(words.FIRST_PERSON.search(self.text))

    @cached_property
    def possessed(self) -> tuple[str, ...]:
        """The things it says the user has ("my favourite film" -> "film";
        ``words.possessed``)."""
        return tuple(words.possessed(self.text))

    @cached_property
    def names(self) -> tuple[str, ...]:
        """The names in it (capitalised words inside a sentence, days and months aside)."""
        return tuple(words.names(self.text))

    @cached_property
    def topic_keys(self) -> frozenset[str]:
        """The keys of its content words other than the asking words and its names:
        what it asks about the people and places it names ("start" of "When did Priya
        start at Brightwater?"). A name after "the" is the thing asked about ("When did
        Omar run the Valencia Marathon?": the marathon, not a 28 km run) and stays."""
        things = {w for m in _THE_NAME.finditer(self.text) for w in m.group(1).split()}
        named = [n for n in self.names if n not in things]
        return self.keys - words.ASKING - frozenset(words.content_keys(" ".join(named)))

    @cached_property
    def temporal(self) -> bool:
        """Whether it is about time at all (a date, a duration, "ago")."""
        return words.is_temporal(self.text)

    @cached_property
    def asks_past(self) -> bool:
        """Whether it asks when something already happened ("When did Callum get back
        from Iceland?", "When was the party?"): its answer cannot lie after the moment
        it is asked."""
        return bool(_ASKS_PAST.match(self.text))

    @cached_property
    def answer_type(self) -> str:
        """The kind of answer it wants (``words.ANSWER_TYPES``: "date", "number",
        "person", "place", "yes/no", "thing")."""
        return words.answer_type(self.text)

    @cached_property
    def anchored(self) -> Anchored | None:
        """Its two-step time ("two days after the wedding", ``time/anchors.py``): read
        here, resolved by the time stage on the memories its search finds."""
        return find_anchored(self.text)

    @property
    def names_time(self) -> bool:
        """Whether it names a time, one-step or anchored on an event (the time stage
        then reorders a deeper list)."""
        return self.window is not None or self.anchored is not None


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
        identifiers=tuple(identifier_tokens(text, names=names)) if identifiers else (),
    )


def as_question(question: Question | str) -> Question:
    """A question as the stages read it: a :class:`Question` as it is, a str read now
    (at the current time; for callers outside the pipeline: tests, benchmarks)."""
    return question if isinstance(question, Question) else read_question(question, None)
