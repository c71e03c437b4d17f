"""Routes for a tenant's users as wholes: list them, erase one, export and import one."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Body, Query, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import StreamingResponse

from ..schema import SKIP_BLANK
from .deps import Tenant, UserQ
from .models import KEYED, AddedOut, ErasedOut, ImportedOut, UsersOut

router = APIRouter(tags=["users"])


@router.get("/v1/users", response_model=UsersOut, responses=KEYED)
def users(t: Tenant) -> dict[str, Any]:
    """This tenant's users."""
    return t.users()


@router.delete("/v1/users", response_model=ErasedOut, responses=KEYED)
def delete_user(t: Tenant, user_id: UserQ) -> dict[str, Any]:
    """Erase every memory and all derived state of the user."""
    return t.delete_user(user_id)


@router.get("/v1/export", responses=KEYED)
def export(t: Tenant, user_id: UserQ) -> dict[str, Any]:
    """The user's global memory table (the one-JSON-file shape of export_table)."""
    return t.export_table(user_id)


@router.post("/v1/import", status_code=201, response_model=AddedOut, responses=KEYED)
def import_table(
    t: Tenant,
    user_id: UserQ,
    table: Annotated[dict[str, Any], Body()],
    skip_blank: Annotated[bool, Query(description=SKIP_BLANK)] = False,
) -> dict[str, Any]:
    """Add every entry of an exported table to the user (all or nothing)."""
    return t.import_table(user_id, table, skip_blank)


NDJSON = "application/x-ndjson"
CHUNK = 1 << 16
"""Bytes of export lines sent per write of the streamed answer (not one per line)."""


@router.get(
    "/v1/export/jsonl",
    response_class=StreamingResponse,
    responses={**KEYED, 200: {"content": {NDJSON: {}}, "description": "the export, streamed"}},
)
def export_jsonl(
    t: Tenant,
    user_id: UserQ,
    vectors: Annotated[bool, Query(description="add each memory's vector")] = False,
) -> StreamingResponse:
    """The user's memories as versioned JSONL (``remem.transfer``), streamed as they
    are read: a header line, then one line per memory with its history."""
    return StreamingResponse(_chunked(t.export_lines(user_id, vectors)), media_type=NDJSON)


def _chunked(lines: Iterable[str]) -> Iterator[bytes]:
    part: list[bytes] = []
    size = 0
    for line in lines:
        part.append(line.encode("utf-8"))
        size += len(part[-1])
        if size >= CHUNK:
            yield b"".join(part)
            part, size = [], 0
    if part:
        yield b"".join(part)


@router.post(
    "/v1/import/jsonl",
    status_code=201,
    response_model=ImportedOut,
    responses=KEYED,
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {NDJSON: {"schema": {"type": "string"}}},
            "description": "a JSONL export (GET /v1/export/jsonl), header line first",
        }
    },
)
async def import_jsonl(
    t: Tenant,
    user_id: UserQ,
    request: Request,
    on_conflict: Annotated[
        Literal["error", "skip"],
        Query(description="a memory id the user has already: refuse, or leave the line out"),
    ] = "error",
) -> dict[str, Any]:
    """Add the memories of a JSONL export to the user, keeping ids, times and history
    (every line checked first: a bad one imports nothing). The body is capped as
    every body is (``--max-body-bytes``): a larger export goes in several requests,
    each starting with the header line, as ``Client.import_jsonl`` sends it."""
    body = await request.body()
    return await run_in_threadpool(t.import_jsonl, user_id, body, on_conflict)
