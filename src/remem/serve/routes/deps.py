"""What the HTTP routes depend on: the request's tenant (from its API key), and the
checks every request passes before any route runs (no key in the URL, no JSON object
naming a key twice).

Dependencies rather than middleware: FastAPI documents them in the schema (the two
key headers), and they run after routing, when the route's body has been parsed.
"""

from __future__ import annotations

import json
from contextlib import suppress
from typing import Annotated, Any

from fastapi import Depends, Query, Request
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from starlette.exceptions import HTTPException as StarletteHTTPException

from ...keys import KEY_SHAPED
from ..httperrors import Refused, media_type
from ..page import keyless_guard
from ..tenant import TenantMemory

_bearer = HTTPBearer(auto_error=False, description="an API key from `remem keys create`")
_header_key = APIKeyHeader(name="X-API-Key", auto_error=False)


def tenant(
    request: Request,
    bearer: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
    header: Annotated[str | None, Depends(_header_key)],
) -> TenantMemory:
    """The request's tenant view, from its API key; 401 for anything but a live key."""
    if request.app.state.keyless:  # remem ui: one person on this machine
        if not keyless_guard(request):
            raise Refused(
                403, "not_loopback", "this keyless server answers requests to loopback only"
            )
        return TenantMemory(request.app.state.memory)
    key = bearer.credentials if bearer is not None else header
    name = request.app.state.keyring.verify(key) if key else None
    if name is None:
        raise StarletteHTTPException(401, "a valid API key is required")
    return TenantMemory(request.app.state.memory, name)


_KEY_PARAMS = frozenset(
    {"apikey", "key", "token", "accesstoken", "auth", "authorization", "bearer", "xapikey"}
)
"""Query parameters that carry keys in other APIs (``?api_key=``, ``?access_token=``),
compared without case, ``_`` or ``-``."""


async def no_key_in_url(request: Request) -> None:  # async: no thread hop per request
    """Refuse a request whose query string carries a key, whether or not its headers
    carry a good one: a URL is written to access logs, proxies' logs and browser
    histories, so a key there is a key leaked, and answering 401 would only invite
    the next guess of a parameter name. The message says where keys go."""
    for name, value in request.query_params.multi_items():
        plain = name.lower().replace("_", "").replace("-", "")
        if plain in _KEY_PARAMS or KEY_SHAPED.search(name) or KEY_SHAPED.search(value):
            raise Refused(
                400,
                "key_in_url",
                "API keys go in a header, never in the URL (URLs are logged): "
                "'Authorization: Bearer rmm_...' or 'X-API-Key: rmm_...'. A real key "
                "sent in a URL should be revoked (remem keys revoke) and replaced.",
            )


Tenant = Annotated[TenantMemory, Depends(tenant)]
UserQ = Annotated[str, Query(min_length=1, max_length=256, description="the user's id")]


def _sent_as_json(request: Request) -> bool:
    """What FastAPI parses as JSON: application/json and application/*+json."""
    main, _, sub = media_type(request).partition("/")
    return main == "application" and (sub == "json" or sub.endswith("+json"))


def _each_key_once(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise Refused(
                422,
                "duplicate_key",
                f"the JSON body names {key!r} twice in one object; send each key once",
            )
        out[key] = value
    return out


async def unique_keys(request: Request) -> None:
    """Refuse a JSON body in which one object holds a key twice. Parsers disagree on
    which of the two counts (Python's json and pydantic take the last, others the
    first), so a proxy, a log or a client-side check may have seen the other value
    than the one that would be stored. A route that takes a body has parsed it
    already (and answered malformed JSON with 400); this second parse only looks for
    repeated keys, and a body no route reads is left alone however broken."""
    route = request.scope.get("route")
    if getattr(route, "body_field", None) is None:
        return
    if not _sent_as_json(request):
        return
    body = await request.body()
    if body:
        with suppress(ValueError, RecursionError):  # answered by FastAPI already
            json.loads(body, object_pairs_hook=_each_key_once)
