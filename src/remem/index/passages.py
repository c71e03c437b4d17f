"""Long memories as passages: every word of a memory reachable by the dense channel.

MiniLM reads at most 256 word pieces; an assistant's answer of 2,000 characters is
about 500, so embedding the memory whole leaves its second half invisible. A memory
longer than one window is cut into passages, each embedded on its own; a memory's
dense score is its best passage's, corrected for the chance gain of taking the best of
several (the evidence is usually one paragraph of a long answer, but a long answer has
more draws at matching anything), and its own vector, for everything that needs one
per memory (the graph's episode similarities, exports), is the normalised mean of its
passages'.

Cutting: the text is split into sentences (and a sentence longer than a window into
word runs), which are packed greedily into windows of at most ``max_pieces`` word
pieces; a passage repeats the last ``overlap`` sentences of the one before, so a fact
that straddles a boundary is whole in one of them. A memory that fits one window is
one passage: its vector is exactly what it was without passages.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np

from ..embed.base import Embedder, normalise
from ..errors import InvalidTypeError
from ..options import choice, number, resolve
from ..types import NewMemory, Passages, index_text

#: Sentence ends (., !, ?, a line break) followed by space; bullets and headings of
#: assistant answers end at their line break.
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\s*\n+\s*")
_WORD = re.compile(r"\S+\s*")


@dataclass(frozen=True)
class PassagePlan:
    """How memories are cut: windows of ``max_pieces`` word pieces sharing
    ``overlap`` sentences (see the module notes; measured in
    docs/notes/benchmark-history.md#passages-every-word-of-a-long-memory-searchable).
    ``Memory(passage_options=...)`` overrides the fields, each checked as declared."""

    max_pieces: int = number(200, low=0)
    """a window of at most this many word pieces, under MiniLM's 256 so the model reads
    all of it; shorter windows recalled about as well for many more passages to
    embed and keep
    (docs/notes/benchmark-history.md#passages-every-word-of-a-long-memory-searchable);
    0 embeds every memory whole (truncated by the model, as
    before passages)."""
    overlap: int = number(1, low=0)
    """the sentences a passage repeats from the one before, so a fact that straddles a
    boundary is whole in one of them: without it a long memory embeds a few percent
    fewer word pieces, but recall fell
    (docs/notes/benchmark-history.md#passages-every-word-of-a-long-memory-searchable)."""
    score: str = choice("corrected", "max", "corrected", "both", "mean")
    """how a memory's passages make its dense score: "corrected" (the default: its best
    passage's cosine minus what the best of that many draws gains by chance,
    sigma * sqrt(2 ln P) with sigma the spread of this query's cosines over the
    user's memories), "max" (its best passage, uncorrected), "both" (the better of
    that and the whole memory's vector) or "mean" (the whole memory's vector only, the
    mean of its passages'). In long assistant histories, where most evidence is a short user turn
    beside long assistant answers, the uncorrected best passage lets long answers
    crowd out the evidence; corrected, passages gain over no passages
    (docs/notes/benchmark-history.md#passages-every-word-of-a-long-memory-searchable)."""


def passage_plan(options: Mapping[str, Any] | None) -> PassagePlan | None:
    """``Memory(passage_options=...)`` checked: None for the defaults, ``{"max_pieces":
    0}`` to embed every memory whole (truncated by the model, as before passages)."""
    if options is None:
        return PassagePlan()
    if not isinstance(options, Mapping):
        raise InvalidTypeError("passage_options must be a mapping")
    plan = resolve(PassagePlan, options, "passage_options")
    return plan if plan.max_pieces else None


def split_passages(
    text: str,
    count: Callable[[str], int],
    plan: PassagePlan = PassagePlan(),
    starts: Sequence[int] | None = None,
) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of ``text``'s passages, in order; one span
    (the whole text) when it fits one window. ``count`` gives a text's word pieces;
    ``starts``, where given, is where each of ``text``'s pieces starts (from one
    tokenizer call), and a span's pieces are counted from it instead of tokenizing
    each sentence again: the same counts, since pieces never cross the whitespace
    that sentences and words are cut at."""
    if starts is None:
        pieces: Callable[[int, int], int] = lambda a, b: count(text[a:b])  # noqa: E731
    else:
        pieces = partial(_pieces_between, starts)
    if pieces(0, len(text)) <= plan.max_pieces:
        return [(0, len(text))]
    units = _units(text, pieces, plan.max_pieces)
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(units):
        j, used = i, 0
        while j < len(units) and (j == i or used + units[j][2] <= plan.max_pieces):
            used += units[j][2]
            j += 1
        spans.append((units[i][0], units[j - 1][1]))
        if j >= len(units):
            break
        # the next window starts ``overlap`` units back, but always moves forward
        i = max(i + 1, j - plan.overlap)
    return spans


def _pieces_between(starts: Sequence[int], a: int, b: int) -> int:
    """How many of the pieces starting at ``starts`` (ascending) start in ``[a, b)``."""
    return bisect_left(starts, b) - bisect_left(starts, a)


def _units(text: str, pieces: Callable[[int, int], int], limit: int) -> list[tuple[int, int, int]]:
    """(start, end, pieces) of the text's sentences; a sentence over ``limit`` pieces
    becomes runs of whole words within it."""
    out: list[tuple[int, int, int]] = []
    start = 0
    bounds = [m.span() for m in _SENTENCE.finditer(text)] + [(len(text), len(text))]
    for gap_start, gap_end in bounds:
        end = gap_start
        if end > start and text[start:end].strip():
            n = pieces(start, end)
            if n <= limit:
                out.append((start, end, n))
            else:
                out.extend(_word_runs(text, start, end, pieces, limit))
        start = gap_end
    return out


def _word_runs(
    text: str, start: int, end: int, pieces: Callable[[int, int], int], limit: int
) -> list[tuple[int, int, int]]:
    """Runs of whole words of ``text[start:end]`` within ``limit`` pieces each (a
    single word over the limit is a run of its own: the embedder truncates it)."""
    runs: list[tuple[int, int, int]] = []
    run_start, run_pieces, last_end = start, 0, start
    for m in _WORD.finditer(text, start, end):
        word_end = m.start() + len(m.group().rstrip())
        n = pieces(m.start(), word_end)
        if run_pieces and run_pieces + n > limit:
            runs.append((run_start, last_end, run_pieces))
            run_start, run_pieces = m.start(), 0
        run_pieces += n
        last_end = word_end
    if run_pieces:
        runs.append((run_start, last_end, run_pieces))
    return runs


def embed_memories(
    embedder: Embedder, memories: Sequence[NewMemory], plan: PassagePlan | None
) -> tuple[np.ndarray, list[Passages | None]]:
    """Each memory's vector and, for memories longer than one window, their passages
    (spans and vectors), with one ``embed`` call for everything so batches are planned
    across all texts. ``plan`` None (or an embedder that names no window) embeds each
    memory whole, as without passages."""
    limit = embedder.max_pieces
    if plan is None or limit is None:
        return embedder.embed([m.index_text for m in memories]), [None] * len(memories)
    texts: list[str] = []
    layout: list[tuple[int, tuple[tuple[int, int], ...] | None]] = []
    starts = embedder.piece_starts([m.text for m in memories])
    prefixes: dict[str, int] = {}  # a speaker's "Name: " in pieces
    for i, m in enumerate(memories):
        spans: list[tuple[int, int]] = [(0, len(m.text))]
        prefix = 0
        if m.speaker:
            if m.speaker not in prefixes:
                prefixes[m.speaker] = embedder.count_pieces(index_text("", m.speaker))
            prefix = prefixes[m.speaker]
        mine = None if starts is None else starts[i]
        whole = embedder.count_pieces(m.index_text) if mine is None else prefix + len(mine)
        if whole > limit:
            window = max(1, min(plan.max_pieces, limit) - prefix)
            spans = split_passages(
                m.text, embedder.count_pieces, PassagePlan(window, plan.overlap), mine
            )
        if len(spans) == 1:
            layout.append((len(texts), None))
            texts.append(m.index_text)
        else:
            layout.append((len(texts), tuple(spans)))
            texts.extend(index_text(m.text[a:b], m.speaker) for a, b in spans)
    vecs = embedder.embed(texts)
    out = np.empty((len(memories), vecs.shape[1]), dtype=np.float32)
    parts: list[Passages | None] = []
    for i, (start, spans_of) in enumerate(layout):
        if spans_of is None:
            out[i] = vecs[start]
            parts.append(None)
        else:
            pv = vecs[start : start + len(spans_of)]
            out[i] = normalise(pv.mean(axis=0, keepdims=True))[0]
            parts.append(Passages(spans_of, np.ascontiguousarray(pv, dtype=np.float32)))
    return out, parts
