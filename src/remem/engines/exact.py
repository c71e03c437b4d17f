"""Exact identifiers first: the memory that holds the question's identifier ranks first.

A lookup by identifier ("order A035X", "+1 415 555 0134", "ZX-9931", an email, a
rare name) has one right answer, and every engine can miss it among look-alikes:
three hundred "Order A0NNX: a note about ..." memories are near-identical to the
embedder, and a graph or a fusion of rankings blurs the one BM25 term that tells them
apart (``scripts/exact_identifiers.py``: SYNAPSE put the code's memory first in 22%
of lookups, hybrid the phone number's in 3%). This stage runs after every engine's
ranking and the time stage (``recall/pipeline.py``), so it applies to all engines alike:

* the question's identifiers are its tokens *written* like one
  (``index.tokenize.identifier_tokens``: a digit in a code or a long number, a
  capital inside a word, an email's parts, a capitalised name mid-sentence) -- never
  its ordinary words, so "how many fitness classes do I attend?" is never decided by
  one rare word in an unrelated memory;
* that are rare *for this user*: held by at least one and at most ``max_holders`` of
  their memories (the document frequency in the user's BM25 index). A speaker's
  name, a year they mention all the time or the "example" of three hundred emails
  names nothing in particular, and the engine's own ranking weighs it as BM25 does;
* (optionally, ``min_share``) that carry a share of the question's IDF weight;
* the memories holding them verbatim go first, those holding more of the question's
  identifier weight (the sum of the tokens' IDF) before the others, in the engine's
  order among equals (memories it did not return, newest first, after those it
  did); the rest follow in the engine's order, cut at k.

Limits: an identifier is matched by the words BM25 reads (two characters or more),
so "kalomi.5@example.com" and "kalomi.7@example.com" tie; a name that starts the
question ("Xiomara said ...") is not told from any other capitalised first word.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import InvalidTypeError
from ..index.cache import UserIndex
from ..options import number, resolve, switch
from ..question import Question
from .base import Scored


@dataclass(frozen=True)
class ExactConfig:
    """Every constant of the stage, with why (override: ``Memory(exact_options=...)``)."""

    lift: bool = switch(True)
    """whether memories holding the question's rare identifiers verbatim go first."""
    max_holders: int = number(5, low=1)
    """choice: an identifier counts when at most this many of the user's memories hold
    it, and at most this many memories move. One order, number or code is mentioned a
    handful of times (placed, shipped, late, refunded); a token more memories hold is
    a word this user uses, and lifting all of them would replace the engine's ranking
    instead of correcting it; at k >= 10 the engine keeps at least half the results.
    Not tuned; with it no data set's recall drops
    (docs/notes/benchmark-history.md#exact-identifiers-issue-34-finding-3)."""
    min_share: float = number(0.0, low=0, high=1)
    """choice: the rare identifiers must carry at least this share of the question's
    weight (the IDF of its words that any memory holds, asking words aside; the idiom
    of the time stage's ``same_subject_share``) for the question to count as a lookup
    of them. 0 (the default): any rare identifier lifts. 0.5 keeps a question that
    names one on the way ("the trail you recommended near Zaragoza?") for the engine,
    where the reply that answers it may not repeat the name; but measured, it costs
    more than it saves: the evidence mostly does hold the identifier a question
    names, and 0.5 gave up recall against 0
    (docs/notes/benchmark-history.md#exact-identifiers-issue-34-finding-3)."""
    names: bool = switch(True)
    """whether a capitalised word that does not start a sentence ("what did Xiomara
    say?") counts as an identifier, as a name (rare ones only, like any identifier;
    month and weekday names are never names here: the time stage reads them)."""

    @classmethod
    def from_options(cls, options: Mapping[str, Any] | None) -> ExactConfig:
        """``Memory(exact_options=...)`` checked: None for the defaults."""
        if options is None:
            return cls()
        if not isinstance(options, Mapping):
            raise InvalidTypeError("exact_options must be a mapping")
        return resolve(cls, options, "exact_options")


def rare_identifiers(idx: UserIndex, question: Question, cfg: ExactConfig) -> dict[str, float]:
    """The question's identifiers rare for this user, with their IDF; none unless they
    carry ``min_share`` of the question's weight (module notes). The identifiers are
    the ones ``read_question`` found (none when the stage is off)."""
    if not cfg.lift:
        return {}
    bm25 = idx.bm25
    rare = {t: bm25.idf(t) for t in question.identifiers if 0 < bm25.df(t) <= cfg.max_holders}
    words = {t for t in question.lexical if bm25.df(t) > 0} | set(rare)
    total = sum(bm25.idf(t) for t in words)
    return rare if rare and sum(rare.values()) >= cfg.min_share * total else {}


def lift_exact(
    hits: Sequence[Scored], idx: UserIndex, question: Question, k: int, cfg: ExactConfig
) -> list[Scored]:
    """``hits`` (best first) with the memories holding the question's rare identifiers
    first (module notes; at most ``max_holders`` of them), cut to ``k``. A lifted
    memory the engine did not return scores as its best hit; ``note`` names what it
    holds."""
    rare = rare_identifiers(idx, question, cfg)
    held: dict[int, list[str]] = {}
    for token in rare:
        for p in idx.bm25.holders(token).tolist():
            held.setdefault(p, []).append(token)
    if not held or k < 1:
        return list(hits[:k])
    rank = {h.id: i for i, h in enumerate(hits)}

    def order(p: int) -> tuple[float, int, int]:
        return (-sum(rare[t] for t in held[p]), rank.get(idx.ids[p], len(hits)), -p)

    top = max((h.score for h in hits), default=1.0)
    by_id = {h.id: h for h in hits}
    lifted = []
    for p in sorted(held, key=order)[: min(k, cfg.max_holders)]:
        memory_id = idx.ids[p]
        hit = by_id.get(memory_id)
        if hit is None:
            hit = _scored(memory_id, top)
        said = "holds " + ", ".join(f'"{t}"' for t in held[p])
        lifted.append(hit.noted(said))
    moved = {h.id for h in lifted}
    return (lifted + [h for h in hits if h.id not in moved])[:k]


def _scored(memory_id: str, score: float) -> Scored:
    return Scored(memory_id, score, "exact identifier")
