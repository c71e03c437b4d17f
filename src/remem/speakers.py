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
the assistant's turns.

The assistant is recognised by its speaker name as the integrations store it (the
chat role ``assistant``; also ``AI``, ``bot``, ``chatbot``, ``agent``, ``model``,
case-insensitive); a history whose speakers are people's names (a chat between
friends) has no assistant, and nothing here changes its ranking.
"""

from __future__ import annotations

import re

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


def speaker_weights(parties: np.ndarray, question: str, factor: float) -> np.ndarray | None:
    """Per memory of a history (``parties``: each one's ``party``), 1 or ``factor``: the party
    the question is not about - the assistant, unless the question asks what the
    assistant said, then the person - is weighed ``factor``. None (no change) when
    the history holds no assistant turn: then there is no one to tell apart."""
    if factor >= 1.0 or not (parties == ASSISTANT).any():
        return None
    other = PERSON if asks_assistant(question) else ASSISTANT
    return np.where(parties == other, factor, 1.0)
