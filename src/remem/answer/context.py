"""The block of memory an agent puts into its next LLM call (``Memory.context``).

One recall, written as prompt-ready text within a token budget:

- where the engine keeps a short-term memory (ILSTMA), its summary, profile and
  recent turns come first, each under a short heading, together at most half the
  budget (as the reader's notes);
- then the relevant memories, best first, each as the reader sees it
  (``[10 Jun 2023] Ana: I moved to Porto``, :func:`~remem.answer.reader.format_memory`);
  a memory the time stage found superseded (``Hit.superseded_by``) says so in its
  brackets and the newer memory is kept beside it (fetched when the recall did not
  rank it), marked ``latest``.

What fits is chosen by :func:`~remem.answer.reader.fit_lines`, the reader's own
fitting, with :func:`remem.tokens.estimate_tokens` (about four characters a token):
the block is for the agent's model, whose tokenizer remem does not know, and no
model is loaded to make it. The block never exceeds the budget by that count: the
whole is clipped once more at the end in case line breaks and headings added up. A
user with nothing recalled gets an empty string, so a caller can write
``if block: messages.insert(0, ...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..tokens import clip_tokens, estimate_tokens
from ..types import Hit, Recall
from .reader import fit_lines, versions

#: the heading above the memories, and the ILSTMA segments' headings, in order
MEMORIES = "Relevant memories (most relevant first):"
SEGMENTS = (("summary", "Summary:"), ("personality", "Profile:"), ("history", "Recent turns:"))
#: how a superseded memory's brackets say so: ``[10 Jan 2023, superseded by ...]``
SUPERSEDED = "superseded by a later memory"


def segment_notes(segments: Mapping[str, Any]) -> list[str]:
    """The short-term memory's summary, profile and recent turns (oldest first), each
    a heading and its text; the empty ones left out."""
    out = []
    for key, heading in SEGMENTS:
        value = segments.get(key)
        if isinstance(value, list):
            value = "\n".join(f"- {turn}" for turn in value if turn)
        if value:
            out.append(f"{heading}\n{value}")
    return out


def with_newer(hits: Sequence[Hit], fetch: Callable[[list[str]], list[Hit]]) -> list[Hit]:
    """``hits`` with the memory that superseded each superseded one placed just
    before it, when the recall did not rank it (``fetch`` reads them by id)."""
    have = {h.id for h in hits}
    missing = list(dict.fromkeys(h.superseded_by for h in hits if h.superseded_by))
    newer = {h.id: h for h in fetch([i for i in missing if i not in have])}
    out: list[Hit] = []
    for h in hits:
        extra = newer.pop(h.superseded_by, None) if h.superseded_by else None
        out += [extra, h] if extra is not None else [h]
    return out


def marks(hits: Sequence[Hit], explanations: Mapping[str, str]) -> dict[str, str]:
    """Hit id -> its version note: the reader's ``latest``/``earlier`` for restated
    facts, and, where the time stage knows one fact superseded, that."""
    out = versions(explanations)
    for h in hits:
        if h.superseded_by:
            out[h.id] = SUPERSEDED
            out.setdefault(h.superseded_by, "latest")
    return out


def build_context(
    recall: Recall,
    max_tokens: int,
    fetch: Callable[[list[str]], list[Hit]],
    count: Callable[[str], int] = estimate_tokens,
) -> str:
    """The block for ``recall`` within ``max_tokens`` by ``count`` (module notes);
    "" when it holds no memory and no segment."""
    hits = with_newer(recall.hits, fetch)
    notes = segment_notes(recall.segments)
    if not hits and not notes:
        return ""
    heading = count(MEMORIES) + 1 if hits else 0
    if max_tokens < 4 * heading:  # a tight budget goes to memories, not to the heading
        heading = 0
    room = max_tokens - heading
    lines, kept = fit_lines(hits, notes, marks(hits, recall.explanations), room, count)
    if kept:
        lines += [MEMORIES] if heading else []
        lines += [line for _, line in kept]
    return clip_tokens("\n".join(lines), max_tokens, count)
