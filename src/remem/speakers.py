"""Who said it: the assistant's turns and the user's, and whom a question asks about.

An agent's memory holds two parties: the person (their own words: what they did,
own, like, plan) and the assistant (its replies, which restate the person's words at
length and add general advice). A question about the person's life is answered by
what the person said; the assistant's reply to it repeats the same words, is longer,
and outranks the source: most of what pushed the evidence out of SYNAPSE's top 5 in
long assistant histories were other turns of its own session, many of them the
assistant's replies
(docs/notes/benchmark-history.md#who-said-it-the-speaker-prior-issue-17-fourth-round).
A question that attributes words to the assistant ("the hostel
you recommended", "how many eggs did you say", "you mentioned ...") is answered by
the assistant's turns. A request to be reminded of something said ("Can you remind
me of the name of that store?") names neither, and neither is weighed.

The assistant is recognised by its speaker name as the integrations store it (the
chat role ``assistant``; also ``AI``, ``bot``, ``chatbot``, ``agent``, ``model``,
case-insensitive). A history whose speakers are people's names (a chat between
friends) has no assistant; there a question that names some of the people ("What activities does
Melanie partake in?") is about them, and the others are the party it is not about
(``named_weights``): the other person's replies share the question's words and topic
("Sam: Agree, Evan! Family is everything" for "Who was injured in Evan's family?")
but rarely hold the answer. A question naming none of them, or all, changes nothing.
SYNAPSE and hybrid weigh by it (hybrid only in a conversation between people:
``people_only``); the "not in memory" verdict reads their search without this prior
(``Found.unweighted``): those other turns hold what a question about something never
said borrows, and the verdict was fitted on rankings that keep them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np

ASSISTANT_NAMES = frozenset({"assistant", "ai", "bot", "chatbot", "agent", "model"})
"""choice: speaker names taken to be the assistant (compared case-insensitively):
the chat role the integrations store (``llamaindex``, ``langgraph``: the role is the
speaker) and the names companion data sets use (``AI``: the companion benchmark of
docs/benchmarks.md#retrieval-evidence-recall)."""

_PAST = (
    r"(?:(?!need\b|feed\b|seed\b|speed\b)\w+ed|"  # past tense, not "need" and its rhymes
    r"said|told|gave|made|wrote|sent|found|brought|taught|chose|came|put|"
    r"meant|built|drew|sang|read|shared|got|left|set|showed|shown|given|written)"
)
_ATTRIBUTED = re.compile(
    # "you recommended", "you once suggested", "you had mentioned", "you've told me";
    # "did you say/recommend ..."
    rf"\byou(?:'ve|\s+have|\s+had)?\s+(?:\w+\s+)?{_PAST}\b|\bdid\s+you\b",
    re.IGNORECASE,
)


OTHER_PARTY = "said by the party the question is not about (speaker prior)"
"""How a hit's explanation says the speaker prior weighed it."""

#: "can you remind me of ...": what follows, to the end of its sentence (``asks_reminder``)
_REMIND = re.compile(r"\bremind\s+me\b([^.?!]*)", re.IGNORECASE)
_FIRST_PERSON = re.compile(r"\b(?:i|my|mine|myself)\b", re.IGNORECASE)


NOBODY, PERSON, ASSISTANT = 0, 1, 2
"""The parties a memory's speaker can be (``party``): none given, a person, the
assistant."""


def party(speaker: str | None) -> int:
    if not speaker:
        return NOBODY
    return ASSISTANT if speaker.strip().lower() in ASSISTANT_NAMES else PERSON


def asks_assistant(question: str) -> bool:
    """Whether the question asks what the assistant said or did ("the list you
    provided", "did you say", "you mentioned"), rather than about the person's own
    life. "Can you remind me", "do you think", "could you suggest" ask the assistant
    to do something now and say nothing of who said the answer."""
    return bool(_ATTRIBUTED.search(question))


def asks_reminder(question: str) -> bool:
    """Whether the question asks to be reminded of something said, not of the
    person's own life ("Can you remind me of the name of that store?", "remind me
    what year the construction began"): it says nothing of who said it, the person
    or the assistant, so neither party is weighed down. A reminder of the person's
    own doings ("remind me where I keep my sneakers") is about their life."""
    return any(not _FIRST_PERSON.search(match.group(1)) for match in _REMIND.finditer(question))


def speaker_weights(
    parties: np.ndarray,
    question: str,
    factor: float,
    speakers: tuple[np.ndarray, np.ndarray] | None = None,
    names: dict[str, int] | None = None,
) -> np.ndarray | None:
    """Per memory of a history (``parties``: each one's ``party``), 1 or ``factor``: the party
    the question is not about - the assistant, unless the question asks what the
    assistant said, then the person - is weighed ``factor``. In a history of people
    only (no assistant turn), the people the question does not name are that party
    when it names some of them (``named_weights``; ``speakers`` and ``names``: each
    memory's speaker code and whether it asks, and the codes by name). None (no
    change) when there is no one to tell apart."""
    if factor >= 1.0:
        return None
    if not (parties == ASSISTANT).any():
        if speakers is None or not names:
            return None
        return named_weights(speakers, names, question, factor)
    if asks_assistant(question):
        return np.where(parties == PERSON, factor, 1.0)
    if asks_reminder(question):
        return None
    return np.where(parties == ASSISTANT, factor, 1.0)


def named_weights(
    speakers: tuple[np.ndarray, np.ndarray], names: dict[str, int], question: str, factor: float
) -> np.ndarray | None:
    """Per memory, 1 or ``factor``: in a conversation between people, a question that
    names some of its speakers ("What activities does Melanie partake in?") is about
    them, and what the others said is weighed ``factor``. The others' turns answer it
    rarely (4% of the evidence of questions naming one of two speakers, in a chat
    between friends, is the other's turn: docs/results/stop49/issue38-tried.md) but
    share its words and topic ("Sam: Agree, Evan! Family is everything"
    for "Who was injured in Evan's family?"). Their questions are spared: one put to
    the person asked about leads to that person's answer ("How's the bike holding
    up?" before "I gave up on it and bought a folding Brompton"), which the reader
    reads as its reply. ``speakers``: each memory's speaker code and whether it
    asks. A speaker is named by the first word of
    their name, as a whole word, in any case. None when the question names none of
    them, or all."""
    words = {w.lower() for w in re.findall(r"[\w'-]+", question)}
    words |= {w[:-2] for w in words if w.endswith("'s")}
    named = {code for name, code in names.items() if _first_word(name) in words}
    if not named or len(named) == len(names):
        return None
    codes, asks = speakers
    others = (codes >= 0) & ~np.isin(codes, list(named)) & ~asks
    return np.where(others, factor, 1.0)


def people_only(parties: np.ndarray, names: dict[str, int]) -> bool:
    """Whether a history (``parties``: each memory's ``party``; ``names``: its
    speakers' codes by name) is a conversation between people: speakers named, and
    no assistant among them. Only there does a question name whom it is about
    (``named_weights``) and a speaker's name say only who spoke (``without_speakers``)."""
    return bool(names) and not (parties == ASSISTANT).any()


def _first_word(name: str) -> str:
    parts = name.strip().lower().split()
    return parts[0] if parts else ""


def without_speakers(question: str, names: Iterable[str]) -> str:
    """``question`` without the first names of a conversation's speakers (and their
    possessive "'s"): the words the lexical channel should not match in a history of
    people. Every memory is indexed with its speaker's name (``index_text``), so in a
    conversation between two people a speaker's name matches half the history: as a
    lexical term it says only who spoke (which the speaker prior reads, above) and,
    through BM25's length normalisation, favours that speaker's shortest turns
    (docs/results/stop50/issue38-verdict-prior.md). Histories with an assistant keep
    every word."""
    for name in names:
        first = _first_word(name)
        if first:
            question = re.sub(rf"\b{re.escape(first)}(?:['’]s)?\b", " ", question, flags=re.I)
    return question
