"""The HTTP API's response models: documented in the OpenAPI schema, and each route's
returned dict is checked against its model, so the schema cannot drift from what the
server sends."""

from __future__ import annotations

from dataclasses import fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, get_type_hints

from pydantic import BaseModel, Field, create_model

from ...types import Hit


def _hit_model() -> type[BaseModel]:
    """The HTTP face of :class:`remem.types.Hit`, derived from its fields so that a
    field added to Hit is documented and checked here without a second edit: each
    field as ``Hit.to_dict`` sends it (a datetime as its ISO 8601 string), all
    required, since ``to_dict`` always sends every one."""
    hints = get_type_hints(Hit)
    spec: dict[str, Any] = {}
    for f in fields(Hit):
        kind = hints[f.name]
        if kind is datetime:
            spec[f.name] = (str, Field(description="ISO 8601, as stored"))
        else:
            spec[f.name] = (kind, ...)
    return create_model("HitOut", __module__=__name__, **spec)


if TYPE_CHECKING:  # the type checker sees a class; the server the derived model

    class HitOut(BaseModel): ...

else:
    HitOut = _hit_model()


class IdOut(BaseModel):
    id: str


class AddedOut(BaseModel):
    ids: list[str] = Field(description="the new memories' ids, in the order given")
    skipped: list[int] = Field(
        description="positions of the items left out as blank (skip_blank); else empty"
    )


class ImportedOut(BaseModel):
    imported: int = Field(description="how many memories were added")


class VersionOut(BaseModel):
    """One version of a memory (:class:`remem.types.Version`, as its ``to_dict``)."""

    version: int = Field(description="1 for the memory as added, then one per update")
    text: str
    metadata: dict[str, Any]
    timestamp: str = Field(description="when it says it was said, ISO 8601")
    changed: list[str] = Field(description="the fields this version changed; [] for 1")
    at: str = Field(description="when this version was written, ISO 8601 (UTC)")


class HistoryOut(BaseModel):
    versions: list[VersionOut] = Field(description="oldest first; the last is the memory now")


class DeletedOut(BaseModel):
    deleted: bool


class ErasedOut(BaseModel):
    deleted: int = Field(description="memories removed")


class MemoriesOut(BaseModel):
    count: int = Field(description="the user's memories in all")
    memories: list[HitOut]


class UsersOut(BaseModel):
    users: list[str]


class SearchOut(BaseModel):
    hits: list[HitOut]


class RecallOut(BaseModel):
    hits: list[HitOut]
    confidence: float
    refuse: bool
    concepts: list[tuple[str, float]]
    explanations: dict[str, str]
    cache_hit: bool | None
    timings: dict[str, float]
    #: the "not in memory" verdict (probability) and its call
    absent: float
    not_in_memory: bool


class ContextOut(BaseModel):
    context: str = Field(description='The block, "" when nothing is recalled.')


class AnswerOut(BaseModel):
    text: str
    refused: bool
    cache_hit: bool | None
    context_tokens: int
    llm_calls: int
    latency_s: float
    prompt_tokens: int
    completion_tokens: int
    evidence: list[HitOut]
    explanations: dict[str, str]
    timings: dict[str, float]
    draft: str


class TraceNodeOut(BaseModel):
    id: str = Field(description="a memory id, or c:<n> for a concept")
    kind: str = Field(description="episode or concept")
    label: str = Field(description="the memory's text, or the concept's words")
    activation: float
    anchor: str = Field(description='the channels that seeded it; "" when reached')
    rank: int | None = Field(description="its place among the hits, from 1")
    speaker: str | None = None
    timestamp: str | None = None
    session_id: str | None = None


class TraceEdgeOut(BaseModel):
    source: str
    target: str
    weight: float
    carried: float = Field(description="the most activation it passed on in one round")


class TraceOut(BaseModel):
    recall: RecallOut
    graph: bool = Field(description="whether the engine has a graph (SYNAPSE)")
    nodes: list[TraceNodeOut]
    edges: list[TraceEdgeOut]


class EngineOut(BaseModel):
    name: str
    gate: bool = Field(description="a confidence gate that can refuse")
    flow: bool = Field(description="a per-question flow with state")
    short_term: bool = Field(description="a short-term memory (GET /v1/short-term)")


class HealthOut(BaseModel):
    status: str
    version: str
    engine: str


class ErrorBody(BaseModel):
    code: str = Field(description="stable: switch on this, not on the message")
    message: str


class ErrorOut(BaseModel):
    error: ErrorBody


def error_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` entry documenting these statuses as :class:`ErrorOut`."""
    return {status: {"model": ErrorOut} for status in statuses}


#: what any keyed route may answer besides its success
KEYED = error_responses(400, 401, 413, 415, 422, 503)
