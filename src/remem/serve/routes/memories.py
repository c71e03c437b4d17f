"""Routes for one user's memories: add one or many, list them, read, update (and read
the versions of) or delete one."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, Query

from ...errors import InvalidFilterError, NotFoundError
from ...validation import MAX_COUNT
from ..schema import MAX_PAGE, AddManyRequest, AddRequest, UpdateBody, memory_items
from .deps import Tenant, UserQ
from .models import (
    KEYED,
    AddedOut,
    DeletedOut,
    HistoryOut,
    HitOut,
    IdOut,
    MemoriesOut,
    error_responses,
)

router = APIRouter(tags=["memories"])


@router.post("/v1/memories", status_code=201, response_model=IdOut, responses=KEYED)
def add(body: AddRequest, t: Tenant) -> dict[str, Any]:
    """Store one memory; returns its id."""
    fields = body.model_dump(exclude={"user_id", "text"}, exclude_none=True)
    return t.add(body.user_id, body.text, **fields)


@router.post("/v1/memories/batch", status_code=201, response_model=AddedOut, responses=KEYED)
def add_many(body: AddManyRequest, t: Tenant) -> dict[str, Any]:
    """Store many memories in one transaction (all or none); ids in order."""
    return t.add_many(body.user_id, memory_items(body.items), body.skip_blank)


@router.get("/v1/memories", response_model=MemoriesOut, responses=KEYED)
def list_memories(
    t: Tenant,
    user_id: UserQ,
    limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
    offset: Annotated[int, Query(ge=0, le=MAX_COUNT)] = 0,
    filters: Annotated[
        str | None,
        Query(description="Hard filters as a JSON object (the keys of /v1/search's filters)"),
    ] = None,
) -> dict[str, Any]:
    """The user's memories in insertion order, a page at a time; with ``filters``
    only those that pass (``count`` stays the user's total)."""
    return t.memories(user_id, limit, offset, _json_filters(filters))


def _json_filters(raw: str | None) -> Any:
    """The ``filters`` query parameter decoded (the library checks what it holds)."""
    if raw is None:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        raise InvalidFilterError("filters must be a JSON object") from None


@router.get(
    "/v1/memories/{memory_id}", response_model=HitOut, responses={**KEYED, **error_responses(404)}
)
def get(memory_id: str, t: Tenant, user_id: UserQ) -> dict[str, Any]:
    """One memory by id; 404 when this user has no such memory."""
    hit = t.get(user_id, memory_id)
    if hit is None:
        raise NotFoundError(f"user has no memory {memory_id!r}")
    return hit


@router.patch(
    "/v1/memories/{memory_id}",
    response_model=HitOut,
    responses={**KEYED, **error_responses(404)},
)
def update(memory_id: str, body: UpdateBody, t: Tenant) -> dict[str, Any]:
    """Change one memory's text, metadata or time (fields left out are kept); the
    memory as it now is. 404 when this user has no such memory."""
    fields = body.model_dump(exclude={"user_id"}, exclude_none=True)
    return t.update(body.user_id, memory_id, **fields)


@router.get(
    "/v1/memories/{memory_id}/history",
    response_model=HistoryOut,
    responses={**KEYED, **error_responses(404)},
)
def history(memory_id: str, t: Tenant, user_id: UserQ) -> dict[str, Any]:
    """One memory's versions, oldest first; 404 when this user has no such memory."""
    return t.history(user_id, memory_id)


@router.delete(
    "/v1/memories/{memory_id}",
    response_model=DeletedOut,
    responses={**KEYED, **error_responses(404)},
)
def delete(memory_id: str, t: Tenant, user_id: UserQ) -> dict[str, Any]:
    """Delete one memory; 404 when this user has no such memory."""
    out = t.delete(user_id, memory_id)
    if not out["deleted"]:
        raise NotFoundError(f"user has no memory {memory_id!r}")
    return out
