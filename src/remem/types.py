"""Plain data types shared by every layer."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import Any

import numpy as np


class Added(list[str]):
    """The new ids of ``add_many`` and of a table import, in order: a plain list of
    str, which also says which items were left out as blank (``skipped``: their
    positions in the input, ascending; empty unless ``skip_blank=True`` skipped some).
    A list, so code written before ``skip_blank`` keeps working."""

    def __init__(self, ids: Iterable[str] = (), skipped: Iterable[int] = ()):
        super().__init__(ids)
        self.skipped: list[int] = list(skipped)


@dataclass(frozen=True)
class Hit:
    """One retrieved memory, best first in a result list.

    ``metadata`` is returned exactly as it was stored (a JSON round trip of what the
    caller passed); ``score`` is engine-specific and only comparable within one result.
    """

    id: str
    text: str
    score: float
    speaker: str | None
    timestamp: datetime
    session_id: str | None
    metadata: dict[str, Any] = field(default_factory=dict)
    #: the times the memory's words talk about, read when it was added
    #: (``remem.time.stored``): each ``start`` and ``end`` (ISO 8601, ``[start, end)``
    #: in the zone it was said in), ``granularity`` (day, week, month, year, span) and
    #: the ``words`` it came from ("last weekend"), in the order the text names them
    event_times: tuple[dict[str, str], ...] = ()
    #: the id of the memory that set the same fact of the same person to a newer value
    #: ("I moved to Porto" supersedes "I live in Lisbon"; ``time/current.py``), when
    #: the time stage knows one; None otherwise. Superseded memories are never hidden.
    superseded_by: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every field by name, in the order declared, a datetime as its
        ISO 8601 string. The one serialisation of a hit: ``remem ... --json``, the HTTP
        API and the MCP tools all send this, and the HTTP schema (``HitOut`` in
        ``serve/routes/models.py``) is derived from the same fields, so a field added
        here reaches every face without a second edit."""
        return {f.name: _json_ready(getattr(self, f.name)) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Hit:
        """The inverse of :meth:`to_dict`, for what a client reads from the HTTP API
        (``remem.Client``). Keys it does not know are ignored and fields the data
        lacks keep their defaults, so a client and a server of different versions
        still understand each other's hits."""
        known = _known_fields(cls, data)
        known["timestamp"] = datetime.fromisoformat(known["timestamp"])
        known["event_times"] = tuple(known.get("event_times", ()))
        return cls(**known)


def _known_fields(cls: type, data: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of ``data`` that name a field of the dataclass ``cls``."""
    return {f.name: data[f.name] for f in fields(cls) if f.name in data}


def _json_ready(value: Any) -> Any:
    """A field's value as JSON carries it: a datetime as ISO 8601, the rest as is."""
    return value.isoformat() if isinstance(value, datetime) else value


@dataclass(frozen=True)
class Recall:
    """The result of :meth:`remem.Memory.recall`: hits plus why and how sure.

    ``confidence`` is the engine's certainty that memory holds an answer (for SYNAPSE
    the top hit's activation); ``refuse`` is the confidence gate's verdict ("that is
    not in memory"; on every engine when nothing is recalled, since no evidence can
    hold an answer); ``explanations`` maps a hit id to how it was reached (its anchor
    or the edge path from one); ``concepts`` are the most activated semantic nodes.
    """

    hits: list[Hit]
    confidence: float
    refuse: bool
    concepts: list[tuple[str, float]] = field(default_factory=list)
    explanations: dict[str, str] = field(default_factory=dict)
    #: ILSTMA: whether the short-term cache answered (None: the engine has no cache)
    cache_hit: bool | None = None
    #: ILSTMA: the short-term memory's five segments as they stood for this question
    segments: dict[str, Any] = field(default_factory=dict)
    #: seconds spent per step (for example judge_s, embed_s, retrieve_s, total_s)
    timings: dict[str, float] = field(default_factory=dict)
    #: engine-specific facts for inspection (ILSTMA on a miss: the ids it recalled,
    #: ``recalled``, and its global retriever's ranking, ``ranking``)
    details: dict[str, Any] = field(default_factory=dict)
    #: the calibrated "not in memory" verdict (``remem.answer.verdict``): the
    #: probability that the hits do not hold the answer, read from the evidence itself
    #: (who it is about, how much of the question it covers, words never seen)
    absent: float = 0.0
    #: ``absent`` above its calibrated threshold; ``Memory.answer`` then refuses
    not_in_memory: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as the servers and ``remem recall --json`` give it (without the
        short-term segments and details, an engine's internal state)."""
        return {
            "hits": [h.to_dict() for h in self.hits],
            "confidence": self.confidence,
            "refuse": self.refuse,
            "concepts": [[c, s] for c, s in self.concepts],
            "explanations": self.explanations,
            "cache_hit": self.cache_hit,
            "timings": self.timings,
            "absent": self.absent,
            "not_in_memory": self.not_in_memory,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Recall:
        """The inverse of :meth:`to_dict` (as :meth:`Hit.from_dict`); ``segments`` and
        ``details``, which JSON does not carry, stay empty."""
        known = _known_fields(cls, data)
        known["hits"] = [Hit.from_dict(h) for h in known.get("hits", ())]
        known["concepts"] = [(str(c), float(s)) for c, s in known.get("concepts", ())]
        return cls(**known)


@dataclass(frozen=True)
class Trace:
    """The result of :meth:`remem.Memory.trace`: a recall and the part of the engine's
    graph the query activated (SYNAPSE; ``graph`` is False for an engine without one).

    ``nodes`` are dicts: ``id`` (a memory id, or ``c:<n>`` for a concept), ``kind``
    (``episode`` or ``concept``), ``label`` (the memory's text, or the concept's
    words), ``activation`` (after the last round, as the ranking used it), ``anchor``
    (the channels that seeded it: ``bm25``, ``dense``, ``bm25+dense``, ``concept``;
    "" when activation reached it), ``rank`` (its place among the hits, from 1, or
    None) and, for episodes, ``speaker``, ``timestamp``, ``session_id``. ``edges`` are
    dicts ``source``, ``target``, ``weight`` (the edge's own) and ``carried`` (the most
    it passed on in one round: weight over the sender's fan times its activation)."""

    recall: Recall
    graph: bool
    nodes: list[dict[str, Any]] = field(default_factory=list)
    edges: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "recall": self.recall.to_dict(),
            "graph": self.graph,
            "nodes": self.nodes,
            "edges": self.edges,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Trace:
        """The inverse of :meth:`to_dict` (as :meth:`Hit.from_dict`)."""
        known = _known_fields(cls, data)
        known["recall"] = Recall.from_dict(known["recall"])
        return cls(**known)


@dataclass(frozen=True)
class Version:
    """One version of a memory, as ``Memory.history`` lists them (oldest first).

    Version 1 is the memory as added; each ``Memory.update`` that changed something
    makes the next. ``changed`` names the fields this version changed from the one
    before (``text``, ``metadata``, ``timestamp``; empty for version 1); ``at`` is
    when this version was written (UTC), ``timestamp`` when it says it was said."""

    version: int
    text: str
    metadata: dict[str, Any]
    timestamp: datetime
    changed: tuple[str, ...]
    at: datetime

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as :meth:`Hit.to_dict` (every face sends this)."""
        out = {f.name: _json_ready(getattr(self, f.name)) for f in fields(self)}
        out["changed"] = list(self.changed)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Version:
        """The inverse of :meth:`to_dict` (as :meth:`Hit.from_dict`)."""
        known = _known_fields(cls, data)
        known["timestamp"] = datetime.fromisoformat(known["timestamp"])
        known["at"] = datetime.fromisoformat(known["at"])
        known["changed"] = tuple(known.get("changed", ()))
        return cls(**known)


@dataclass(frozen=True)
class NewMemory:
    """A validated memory on its way into the store (no id or sequence number yet)."""

    text: str
    speaker: str | None
    timestamp: datetime
    session_id: str | None
    metadata: dict[str, Any]

    @property
    def index_text(self) -> str:
        """What engines embed and index: questions name people, so the speaker is part of it."""
        return index_text(self.text, self.speaker)


@dataclass(frozen=True)
class Passages:
    """A long memory's passages (``index/passages.py``): character spans of its text,
    and their vectors when read with embeddings. A memory without passages is one."""

    spans: tuple[tuple[int, int], ...]
    vectors: np.ndarray | None = None


@dataclass(frozen=True)
class StoredMemory:
    """A memory as the store holds it. ``seq`` is the per-user insertion order."""

    id: str
    user_id: str
    seq: int
    text: str
    speaker: str | None
    timestamp: datetime
    session_id: str | None
    metadata: dict[str, Any]
    embedding: np.ndarray | None = None
    #: set when the memory is longer than one passage (its embedding is then their mean)
    passages: Passages | None = None

    @property
    def index_text(self) -> str:
        return index_text(self.text, self.speaker)

    def to_hit(self, score: float, event_times: tuple[dict[str, str], ...] = ()) -> Hit:
        return Hit(
            id=self.id,
            text=self.text,
            score=float(score),
            speaker=self.speaker,
            timestamp=self.timestamp,
            session_id=self.session_id,
            metadata=self.metadata,
            event_times=event_times,
        )


def index_text(text: str, speaker: str | None) -> str:
    return f"{speaker}: {text}" if speaker else text
