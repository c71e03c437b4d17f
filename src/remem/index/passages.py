"""Long memories as passages: every word of a memory reachable by the dense channel.

MiniLM reads at most 256 word pieces; an assistant's answer of 2,000 characters is
about 500, so embedding the memory whole leaves its second half invisible. A memory
longer than one window is cut into passages, each embedded on its own; a memory's
dense score is its best passage's (the evidence is usually one paragraph of a long
answer), and its own vector, for everything that needs one per memory (the graph's
episode similarities, exports), is the normalised mean of its passages'.

Cutting: the text is split into sentences (and a sentence longer than a window into
word runs), which are packed greedily into windows of at most ``max_pieces`` word
pieces; a passage repeats the last ``overlap`` sentences of the one before, so a fact
that straddles a boundary is whole in one of them. A memory that fits one window is
one passage: its vector is exactly what it was without passages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

#: Sentence ends (., !, ?, a line break) followed by space; bullets and headings of
#: assistant answers end at their line break.
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\s*\n+\s*")
_WORD = re.compile(r"\S+\s*")


@dataclass(frozen=True)
class PassagePlan:
    """How memories are cut: windows of ``max_pieces`` word pieces sharing
    ``overlap`` sentences (see the module notes; measured in docs/benchmarks.md)."""

    max_pieces: int = 200
    overlap: int = 1


def split_passages(
    text: str, count: Callable[[str], int], plan: PassagePlan = PassagePlan()
) -> list[tuple[int, int]]:
    """Character spans ``[start, end)`` of ``text``'s passages, in order; one span
    (the whole text) when it fits one window. ``count`` gives a text's word pieces."""
    if count(text) <= plan.max_pieces:
        return [(0, len(text))]
    units = _units(text, count, plan.max_pieces)
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


def _units(text: str, count: Callable[[str], int], limit: int) -> list[tuple[int, int, int]]:
    """(start, end, pieces) of the text's sentences; a sentence over ``limit`` pieces
    becomes runs of whole words within it."""
    out: list[tuple[int, int, int]] = []
    start = 0
    bounds = [m.span() for m in _SENTENCE.finditer(text)] + [(len(text), len(text))]
    for gap_start, gap_end in bounds:
        end = gap_start
        if end > start and text[start:end].strip():
            n = count(text[start:end])
            if n <= limit:
                out.append((start, end, n))
            else:
                out.extend(_word_runs(text, start, end, count, limit))
        start = gap_end
    return out


def _word_runs(
    text: str, start: int, end: int, count: Callable[[str], int], limit: int
) -> list[tuple[int, int, int]]:
    """Runs of whole words of ``text[start:end]`` within ``limit`` pieces each (a
    single word over the limit is a run of its own: the embedder truncates it)."""
    runs: list[tuple[int, int, int]] = []
    run_start, run_pieces, last_end = start, 0, start
    for m in _WORD.finditer(text, start, end):
        n = count(m.group().strip())
        if run_pieces and run_pieces + n > limit:
            runs.append((run_start, last_end, run_pieces))
            run_start, run_pieces = m.start(), 0
        run_pieces += n
        last_end = m.start() + len(m.group().rstrip())
    if run_pieces:
        runs.append((run_start, last_end, run_pieces))
    return runs
