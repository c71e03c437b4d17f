"""What the typed reader reads and gives: a candidate answer (:class:`Span`), a
memory to read with what it inherits (:data:`Source`), and what it may ask of the
user's memories beyond the evidence (:class:`Around`). Apart from ``typed.py`` so the
readers' helper modules (``now.py``) share them without importing the reader."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..types import Hit

#: the turns said next after some memories: their ids -> the next turn of each
#: (``Recaller.next_turns``); the typed reader asks once per answer
Neighbours = Callable[[Sequence[Hit]], Mapping[str, Hit]]


#: how near in meaning some words come to each memory: (words, hits) -> id -> cosine
#: (``Recaller.nearness``)
Nearness = Callable[[str, Sequence[Hit]], Mapping[str, float]]


#: how rare some words are among the user's memories, 0 (in every one) to 1 (in
#: none): a candidate of rare words says more than "a lot" or "the photo"
#: (``Recaller.rarity``)
Rarity = Callable[[str], float]


#: how near in meaning some words come to each of some texts: (words, texts) ->
#: cosines in their order (``Recaller.similar``): the reader asks of the sentences it
#: reads, which no index holds
Similar = Callable[[str, Sequence[str]], Sequence[float]]


#: the question's own recall taken deeper: how many memories -> the best that many
#: (``Memory`` binds the question); what was left is often named only far down
Deeper = Callable[[int], Sequence[Hit]]


@dataclass(frozen=True)
class Around:
    """What the reader may ask of the user's memories beyond the evidence: the turns
    said next (:data:`Neighbours`), nearness in meaning (:data:`Nearness`) and the
    rarity of words (:data:`Rarity`); each optional, without it only the evidence's
    words count."""

    neighbours: Neighbours | None = None
    nearness: Nearness | None = None
    rarity: Rarity | None = None
    #: the turns said before some memories, as :data:`Neighbours` gives those after:
    #: what a follow-up that names nothing ("How much?") asks about
    before: Neighbours | None = None
    #: how near in meaning the question comes to each sentence read (:data:`Similar`)
    similar: Similar | None = None
    #: the question's recall to a greater depth (:data:`Deeper`)
    deeper: Deeper | None = None


#: nothing beyond the evidence: only its words count
ALONE = Around()


#: a memory to read, what it inherits of another's fit, and its rank
Source = tuple[Hit, float, int]


#: what :func:`typed_answer` gives when memory holds no premise of the question
NEVER: tuple[str, Any] = ("", None)


@dataclass(frozen=True)
class Span:
    """A candidate answer: its words, score, the memory it is from, and what it was
    scored by (:func:`remem.answer.rank.features`)."""

    text: str
    score: float
    hit: Hit
    features: Mapping[str, float] = field(default_factory=dict)
