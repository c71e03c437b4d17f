"""Routes for a tenant's users as wholes: list them, erase one, export and import one."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Body, Query

from ..schema import SKIP_BLANK
from .deps import Tenant, UserQ
from .models import KEYED, AddedOut, ErasedOut, UsersOut

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
