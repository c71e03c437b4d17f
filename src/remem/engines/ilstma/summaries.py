"""Offline high-dimensional information (paper section 3.5): summaries and a profile.

The paper has the LLM summarise every group of 5 dialogues (keeping time, place,
people, events and repeated information), update an older summary with a newer one
by overlap, and distil the user's personality. Without an LLM remem does both
extractively, with the embeddings it already has (no extra embedding calls):

* a group's summary = its ``pieces`` most central dialogues (closest to the group's
  mean vector), each cut to its first sentence and stamped with date and speaker;
  its vector is the normalised mean of the group;
* the overlap update: a new group summary whose vector reaches ``merge`` cosine with
  the latest summary is merged into it - a piece near-duplicating an old one (cosine
  >= 0.9) overwrites it, the others are appended (at most ``max_pieces``, newest
  kept) - otherwise it starts a new summary;
* the profile: per speaker, the latest first-person statements of preference or
  habit ("I love ...", "my favourite ..."), near-duplicates overwritten by the newer.

These run offline; :class:`LLMSummariser` is the paper's LLM path (engine option
``summariser="llm"``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ...index.tokenize import sentences
from ...types import StoredMemory

_TRAIT = re.compile(
    # "into" and "like" only right after the subject (or an adverb): "I'm into jazz",
    # "I really like tea" - not "I ran into my teacher" or "I felt like a tourist".
    r"\b(?:i|i'm|i am|we|we're)\s+(?:(?:really|also|just|do|totally|so)\s+)?"
    r"(?:into|like|likes)\b"
    r"|\b(?:i|i'm|i am|i've|i have|i really|i always|i usually|my|we)\s+(?:\w+\s+){0,2}?"
    r"(?:love|loves|enjoy|prefer|hate|dislike|favou?rite|passion|passionate about|"
    r"fan of|hobby|hobbies|dream|afraid of|proud of|can't stand)\b",
    re.IGNORECASE,
)
MIN_TRAIT_WORDS = 5
DUPLICATE = 0.9


@dataclass
class Piece:
    text: str
    vec: np.ndarray
    seq: int
    memory_id: str = ""


@dataclass
class Summary:
    sid: int
    first_seq: int
    last_seq: int
    pieces: list[Piece] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(p.text for p in self.pieces)

    @property
    def vec(self) -> np.ndarray:
        return _unit(np.mean([p.vec for p in self.pieces], axis=0))


def first_sentence(text: str, max_words: int = 40) -> str:
    sentence = sentences(text.strip(), maxsplit=1)[0]
    words = sentence.split()
    return sentence if len(words) <= max_words else " ".join(words[:max_words]) + " ..."


def _stamp(m: StoredMemory) -> str:
    who = f"{m.speaker}: " if m.speaker else ""
    return f"[{m.timestamp:%Y-%m-%d}] {who}{first_sentence(m.text)}"


def _unit(v: np.ndarray) -> np.ndarray:
    n = float(np.linalg.norm(v))
    return (v / n).astype(np.float32) if n > 0 else v.astype(np.float32)


def summarise_group(group: list[StoredMemory], pieces: int) -> list[Piece]:
    """The group's most central dialogues, in conversation order."""
    vecs = np.stack([m.embedding for m in group]).astype(np.float32)  # type: ignore[misc]
    centre = _unit(vecs.mean(axis=0))
    best = sorted(np.argsort(-(vecs @ centre), kind="stable")[:pieces].tolist())
    return [Piece(_stamp(group[i]), vecs[i], group[i].seq, group[i].id) for i in best]


def merge(
    latest: Summary | None,
    new: list[Piece],
    sid: int,
    cfg_merge: float,
    max_pieces: int,
    span: tuple[int, int] | None = None,
) -> Summary:
    """The overlap update: the merged latest summary, or a new one (sid ``sid``).
    ``span`` is the group's first and last sequence number (default: the pieces')."""
    first, last = span or (new[0].seq, new[-1].seq)
    fresh = Summary(sid, first, last, list(new))
    if latest is None or float(latest.vec @ fresh.vec) < cfg_merge:
        return fresh
    pieces = list(latest.pieces)
    for piece in new:
        dup = next((i for i, p in enumerate(pieces) if float(p.vec @ piece.vec) >= DUPLICATE), None)
        if dup is None:
            pieces.append(piece)
        else:
            pieces[dup] = piece
    pieces = pieces[-max_pieces:]
    return Summary(latest.sid, min(latest.first_seq, first), max(latest.last_seq, last), pieces)


def traits(memories: list[StoredMemory]) -> list[tuple[str, Piece]]:
    """(speaker, trait) for every first-person statement of preference or habit."""
    out = []
    for m in memories:
        for sentence in sentences(m.text.strip()):
            if len(sentence.split()) >= MIN_TRAIT_WORDS and _TRAIT.search(sentence):
                out.append(
                    (
                        m.speaker or "user",
                        # the engine loads memories with their vectors
                        Piece(first_sentence(sentence, 30), m.embedding, m.seq, m.id),  # type: ignore[arg-type]
                    )
                )
                break
    return out


def update_profile(
    profile: dict[str, list[Piece]], found: list[tuple[str, Piece]], keep: int
) -> dict[str, list[Piece]]:
    for speaker, piece in found:
        mine = profile.setdefault(speaker, [])
        mine[:] = [p for p in mine if float(p.vec @ piece.vec) < DUPLICATE]
        mine.append(piece)
        del mine[:-keep]
    return profile


def render_profile(profile: dict[str, list[Piece]]) -> str:
    return " ".join(
        f"{speaker}: " + "; ".join(p.text for p in pieces)
        for speaker, pieces in sorted(profile.items())
        if pieces
    )


SUMMARY_SCHEMA: dict = {
    "type": "object",
    "properties": {"summary": {"type": "string", "maxLength": 1200}},
    "required": ["summary"],
}


class LLMSummariser:
    """The paper's summaries: the LLM summarises a group, and on the overlap update
    rewrites the latest summary with the new one (prompts ``summary`` and
    ``summary_update``). A summary is then one piece: the LLM's text with its own
    embedding. Failures raise :class:`remem.LLMError` for the engine to handle."""

    def __init__(self, llm, embed):
        self.llm = llm
        self.embed = embed  # text -> unit vector

    def _ask(self, task: str, **values: str) -> str:
        from ...llm import ask_json, prompts

        return ask_json(
            self.llm,
            prompts.render(task, **values),
            SUMMARY_SCHEMA,
            lambda v: " ".join(str(v["summary"]).split()),
            task=task,
            retries=1,
            max_tokens=200,
        )

    def summarise(
        self, latest: Summary | None, group: list[StoredMemory], sid: int, cfg_merge: float
    ) -> Summary:
        from ...errors import LLMError

        text = self._ask("summary", dialogues="\n".join(_stamp(m) for m in group))
        if not text:
            raise LLMError("the LLM returned an empty summary")
        piece = Piece(text, self.embed(text), group[-1].seq)  # no memory id: own vector
        fresh = Summary(sid, group[0].seq, group[-1].seq, [piece])
        if latest is None or float(latest.vec @ fresh.vec) < cfg_merge:
            return fresh
        merged = self._ask("summary_update", old=latest.text, new=text) or text
        piece = Piece(merged, self.embed(merged), group[-1].seq)
        return Summary(latest.sid, latest.first_seq, group[-1].seq, [piece])


TRAITS_SCHEMA: dict = {
    "type": "object",
    "properties": {"traits": {"type": "array", "items": {"type": "string", "maxLength": 200}}},
    "required": ["traits"],
}


def llm_traits(llm, embed, speaker: str, turns: list[StoredMemory], n: int) -> list[Piece]:
    """The paper's personality step for one speaker of one group: up to ``n`` traits
    from the LLM, each a piece with its own embedding (deduplicated by
    :func:`update_profile` like the offline traits). Raises LLMError on failure."""
    from ...llm import ask_json, prompts

    found = ask_json(
        llm,
        prompts.render(
            "personality", speaker=speaker, n=n, dialogues="\n".join(_stamp(m) for m in turns)
        ),
        TRAITS_SCHEMA,
        lambda v: [" ".join(str(t).split()) for t in v["traits"]],
        task="personality",
        retries=1,
        max_tokens=160,
    )
    return [Piece(t, embed(t), turns[-1].seq) for t in found[:n] if t]
