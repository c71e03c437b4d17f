"""``remem serve``: the HTTP API, a thin face over :class:`~remem.serve.tenant.TenantMemory`.

Choices, and why:

* Every route but ``/v1/health`` and ``/metrics`` needs an API key
  (``Authorization: Bearer rmm_...`` or ``X-API-Key``), and the key's tenant scopes
  every user id of the request (see ``keys.py``). Another tenant's user, and another
  user's memory, look exactly like missing ones: 404 for a memory, empty results
  for a search.
* User ids travel in the body or the query string, never in the path: a user id may
  hold any character, and a ``/`` in a path segment would change the route.
* Errors are JSON ``{"error": {"code", "message"}}`` with stable codes a client can
  switch on; the message of an unexpected failure never carries internals.
* Bodies are JSON sent as ``Content-Type: application/json``: any other type, or
  none, is 415 ``unsupported_media_type``. An object that names a key twice is 422
  ``duplicate_key``: parsers disagree on which of the two counts.
* Request bodies are capped (``max_body_bytes``, default 8 MiB: ``MAX_BODY_BYTES`` in
  :mod:`remem.serve.settings`) before they are read
  into memory: the cap is checked on ``Content-Length`` and again on the bytes
  actually received, so a chunked body cannot slip past it.
* Keys never reach a log: they travel only in headers, and neither the access log
  nor the error handlers print headers. A key in the query string is refused (400
  ``key_in_url``, on every route), and the access log leaves query strings out
  (:mod:`remem.serve.accesslog`): they hold user ids, and whatever a client put there.
* No docs page: FastAPI's ``/docs`` and ``/redoc`` load their scripts from a CDN,
  and nothing remem serves may reach another host. ``/openapi.json`` is the schema.
* Metrics are kept per worker process in Prometheus text format (``/metrics``); with
  several workers a scraper sees one worker per scrape, which the ``pid`` label makes
  visible. No tenant or user appears in a metric label.
* Handlers are plain functions run in the server's thread pool: the library is
  thread-safe and its work (SQLite, ONNX, llama.cpp) releases the GIL.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from contextlib import asynccontextmanager, suppress
from typing import Annotated, Any

from fastapi import Body, Depends, FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse, PlainTextResponse
from fastapi.security import APIKeyHeader, HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from .._version import __version__
from ..errors import (
    EmbedderError,
    ErasureIncompleteError,
    InvalidInputError,
    InvalidTypeError,
    LLMError,
    NotFoundError,
    RememError,
    StoreError,
    TextTooLongError,
    UnknownComponentError,
)
from ..keys import KEY_SHAPED, KeyRing
from ..memory import Memory
from ..redact import failure, frames
from ..validation import MAX_COUNT
from .accesslog import hide_queries
from .page import add_page, check_loopback, keyless_guard
from .schema import (
    MAX_PAGE,
    SKIP_BLANK,
    AddManyRequest,
    AddRequest,
    AnswerRequest,
    QueryRequest,
    TraceRequest,
    memory_items,
)
from .settings import MAX_BODY_BYTES, Settings
from .tenant import TenantMemory

# the module was remem.server: the logger keeps that name, which logging set-ups know
log = logging.getLogger("remem.server")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


# -- responses (documented in the OpenAPI schema; the returned dicts are checked) ---------


class HitOut(BaseModel):
    id: str
    text: str
    score: float
    speaker: str | None
    timestamp: str = Field(description="ISO 8601, as stored")
    session_id: str | None
    metadata: dict[str, Any]


class IdOut(BaseModel):
    id: str


class AddedOut(BaseModel):
    ids: list[str] = Field(description="the new memories' ids, in the order given")
    skipped: list[int] = Field(
        description="positions of the items left out as blank (skip_blank); else empty"
    )


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


def _errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    return {status: {"model": ErrorOut} for status in statuses}


_KEYED = _errors(400, 401, 413, 415, 422, 503)


# -- errors ------------------------------------------------------------------------------

_ERRORS: list[tuple[type[BaseException], int, str]] = [
    (TextTooLongError, 422, "text_too_long"),
    (InvalidTypeError, 422, "invalid_type"),
    (InvalidInputError, 422, "invalid_input"),
    (UnknownComponentError, 422, "invalid_input"),
    (NotFoundError, 404, "not_found"),
    (LLMError, 503, "llm_unavailable"),
    (EmbedderError, 503, "embedder_unavailable"),
    # the rows are deleted, their bytes not yet (``deleted``: what the call did)
    (ErasureIncompleteError, 503, "erasure_incomplete"),
    (StoreError, 503, "store_unavailable"),
]


class Refused(Exception):
    """A request refused as sent, before any work: its status and stable code."""

    def __init__(self, status: int, code: str, message: str):
        super().__init__(message)
        self.status = status
        self.code = code


def _refused(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Refused)
    return _error(exc.status, exc.code, str(exc))


def _error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    body: dict[str, Any] = {"error": {"code": code, "message": message, **extra}}
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body, status_code=status, headers=headers)


def _remem_error(_: Request, exc: Exception) -> JSONResponse:
    for kind, status, code in _ERRORS:
        if isinstance(exc, kind):
            if status >= 500:  # the message (for the client) may quote memories
                log.warning("%s: %s", code, failure(exc))
            extra = {"deleted": exc.result} if isinstance(exc, ErasureIncompleteError) else {}
            return _error(status, code, str(exc), **extra)
    log.error("unexpected remem error: %s", frames(exc))
    return _error(500, "internal", "internal error")


def _media_type(request: Request) -> str:
    """The request's Content-Type without its parameters, lower case ("" when none)."""
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def _has_body(request: Request) -> bool:
    length = request.headers.get("content-length", "0").strip()
    return "transfer-encoding" in request.headers or (length.isdigit() and int(length) > 0)


def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    kind = _media_type(request)
    # FastAPI reads a body as JSON only when it is sent as JSON; any other body
    # (form data, or a body with no type at all, as some clients send raw bytes)
    # reaches validation unread, which is a media type problem, not a field problem
    if (
        kind != "application/json"
        and (kind or _has_body(request))
        and any(tuple(e.get("loc", ())) == ("body",) for e in exc.errors())
    ):
        sent = f"not {kind}" if kind else "and this request named no Content-Type"
        return _error(
            415,
            "unsupported_media_type",
            f"the body must be JSON sent as Content-Type: application/json, {sent}",
        )
    problems = []
    for e in exc.errors():
        if e.get("type") in ("json_invalid", "json_type"):
            return _error(400, "malformed_json", "the request body is not valid JSON")
        where = ".".join(str(p) for p in e.get("loc", ()))
        problems.append({"field": where, "problem": str(e.get("msg", ""))})
    text = "; ".join(f"{p['field']}: {p['problem']}" for p in problems) or "invalid request"
    return _error(422, "invalid_request", text, fields=problems)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    codes = {401: "unauthorized", 404: "no_route", 405: "method_not_allowed"}
    code = codes.get(exc.status_code, "http_error")
    if exc.status_code == 400 and "parsing the body" in str(exc.detail):
        code = "malformed_json"  # e.g. JSON nested deeper than the parser allows
    response = _error(exc.status_code, code, str(exc.detail))
    for name, value in (exc.headers or {}).items():
        response.headers.setdefault(name, value)
    if exc.status_code == 405:
        # Starlette names only the first route's methods; a path may have several
        allowed = {
            m
            for route in request.app.routes
            if getattr(route, "path_regex", None) is not None
            and route.path_regex.match(request.url.path)
            for m in getattr(route, "methods", None) or ()
        }
        if allowed:
            response.headers["Allow"] = ", ".join(sorted(allowed))
    return response


def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    """Starlette's last resort, for a failure outside :class:`ContainErrors` (in the
    CORS middleware): the same answer and log line."""
    log.error("unexpected error: %s", frames(exc))
    return _error(500, "internal", "internal error")


# -- JSON bodies --------------------------------------------------------------------------


def _sent_as_json(request: Request) -> bool:
    """What FastAPI parses as JSON: application/json and application/*+json."""
    main, _, sub = _media_type(request).partition("/")
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


async def _unique_keys(request: Request) -> None:
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


# -- body size cap -----------------------------------------------------------------------


class BodyLimit:
    """Refuse bodies above ``limit`` bytes with 413: at once on ``Content-Length``,
    otherwise while receiving, before the app has read any of it. The body is read
    here (at most ``limit`` bytes held) and replayed to the app, so a chunked body
    over the cap never reaches a handler, which would report it as a parse error."""

    def __init__(self, app: Callable[..., Awaitable[None]], limit: int):
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length":
                try:
                    too_big = int(value) > self.limit
                except ValueError:
                    too_big = False
                if too_big:
                    await self._refuse(scope, receive, send)
                    return
        chunks: list[bytes] = []
        seen = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":  # the client went away
                return
            chunk = message.get("body", b"")
            seen += len(chunk)
            if seen > self.limit:
                await self._refuse(scope, receive, send)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": False}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        response = _error(
            413, "body_too_large", f"the request body is larger than {self.limit} bytes"
        )
        await response(scope, receive, send)


# -- unexpected errors -------------------------------------------------------------------


class ContainErrors:
    """Answer an exception no handler maps with the 500 ``internal`` error here, and
    log it once, by its frames without its message (:func:`remem.redact.frames`).

    Starlette's outermost middleware would send the same 500 through the
    ``Exception`` handler and then raise the exception again, for the server to see:
    uvicorn then logs it a second time, message and all ("Exception in ASGI
    application": the message may quote a memory), and closes the connection, so
    the client's next request on it fails with a reset. Ended here, the request is
    an ordinary 500 on a connection that stays open. (A failure after the response
    began cannot become a 500: it is logged the same way, and uvicorn closes that
    connection, its answer being incomplete.)"""

    def __init__(self, app: Callable[..., Awaitable[None]]):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def watch(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watch)
        except Exception as exc:  # anything a handler maps never gets here
            log.error("unexpected error: %s", frames(exc))
            if not started:
                await _error(500, "internal", "internal error")(scope, receive, send)


# -- metrics -----------------------------------------------------------------------------

_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    """Request counts and latency histograms per route template, in Prometheus text."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._count: dict[tuple[str, str, int], int] = {}
        self._hist: dict[tuple[str, str], list[float]] = {}  # buckets..., sum, count

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        if method not in _METHODS:  # clients choose methods: keep the label set bounded
            method = "other"
        with self._lock:
            key = (method, route, status)
            self._count[key] = self._count.get(key, 0) + 1
            h = self._hist.setdefault((method, route), [0.0] * (len(_BUCKETS) + 2))
            for i, bound in enumerate(_BUCKETS):
                if seconds <= bound:
                    h[i] += 1
            h[-2] += seconds
            h[-1] += 1

    def render(self) -> str:
        pid = os.getpid()
        lines = [
            "# HELP remem_requests_total HTTP requests by route and status.",
            "# TYPE remem_requests_total counter",
        ]
        with self._lock:
            for (method, route, status), n in sorted(self._count.items()):
                lines.append(
                    f'remem_requests_total{{pid="{pid}",method="{method}",route="{route}",'
                    f'status="{status}"}} {n}'
                )
            lines += [
                "# HELP remem_request_seconds HTTP request latency by route.",
                "# TYPE remem_request_seconds histogram",
            ]
            for (method, route), h in sorted(self._hist.items()):
                labels = f'pid="{pid}",method="{method}",route="{route}"'
                for bound, count in zip(_BUCKETS, h, strict=False):
                    lines.append(f'remem_request_seconds_bucket{{{labels},le="{bound}"}} {count:g}')
                lines.append(f'remem_request_seconds_bucket{{{labels},le="+Inf"}} {h[-1]:g}')
                lines.append(f"remem_request_seconds_sum{{{labels}}} {h[-2]:.6f}")
                lines.append(f"remem_request_seconds_count{{{labels}}} {h[-1]:g}")
        return "\n".join(lines) + "\n"


# -- the application ---------------------------------------------------------------------

_bearer = HTTPBearer(auto_error=False, description="an API key from `remem keys create`")
_header_key = APIKeyHeader(name="X-API-Key", auto_error=False)


def _tenant(
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


async def _no_key_in_url(request: Request) -> None:  # async: no thread hop per request
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


Tenant = Annotated[TenantMemory, Depends(_tenant)]
UserQ = Annotated[str, Query(min_length=1, max_length=256, description="the user's id")]


def create_app(
    mem: Memory,
    *,
    max_body_bytes: int = MAX_BODY_BYTES,
    cors_origins: list[str] | None = None,
    key_cache_s: float = 0.0,
    metrics: bool = True,
    close_memory: bool = False,
    keyless: bool = False,
) -> FastAPI:
    """The API over ``mem``, with the explorer page at ``/ui``. The caller owns ``mem``
    unless ``close_memory``: then the app closes it when the server shuts down, which
    writes ILSTMA's buffered recall counts (a clean shutdown loses nothing).
    ``keyless`` (``remem ui`` only): no API keys and no tenants, every user as
    stored, answered only to requests addressed to loopback (see ``page.py``)."""

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            if close_memory:
                mem.close()

    hide_queries()  # uvicorn's access log, when uvicorn serves this app
    keyring = KeyRing.of(mem, cache_s=key_cache_s)
    stats = Metrics()
    app = FastAPI(
        lifespan=lifespan,
        dependencies=[Depends(_no_key_in_url), Depends(_unique_keys)],
        # no /docs or /redoc: FastAPI's pages load Swagger UI and ReDoc from a CDN,
        # and remem promises to work offline; a page is not worth a dependency that
        # ships their assets. The schema stays at /openapi.json for any viewer.
        docs_url=None,
        redoc_url=None,
        title="remem",
        version=__version__,
        description="Long-term memory for LLM agents. Every /v1 route but /v1/health "
        "needs an API key; the key's tenant scopes every user id.",
    )
    app.state.memory = mem
    app.state.keyring = keyring
    app.state.metrics = stats
    app.state.keyless = keyless

    app.add_middleware(BodyLimit, limit=max_body_bytes)

    @app.middleware("http")
    async def _observe(request: Request, call_next: Callable[..., Awaitable[Any]]) -> Any:
        t0 = time.perf_counter()
        status = 500
        try:
            response = await call_next(request)
            status = response.status_code
            return response
        finally:
            route = request.scope.get("route")
            path = getattr(route, "path", None) or "unmatched"
            stats.observe(request.method, path, status, time.perf_counter() - t0)

    # around the metrics (an exception passing them is counted as a 500) and the body
    # cap, inside CORS (which heads the 500 it sends)
    app.add_middleware(ContainErrors)

    @app.get("/v1/health", tags=["ops"], response_model=HealthOut, responses=_errors(503))
    def health() -> dict[str, Any]:
        """Liveness and store reachability (no key needed)."""
        mem.ping()
        return {"status": "ok", "version": __version__, "engine": mem.engine_name}

    # load balancers check with HEAD: the same answer, its body dropped by the server
    # (a route of its own, out of the schema: one operation, one operation id)
    app.head("/v1/health", include_in_schema=False)(health)

    if metrics:

        @app.get("/metrics", tags=["ops"], response_class=PlainTextResponse)
        def prometheus() -> str:
            """Prometheus text exposition of this worker's request metrics."""
            return stats.render()

    @app.post(
        "/v1/memories", status_code=201, tags=["memories"], response_model=IdOut, responses=_KEYED
    )
    def add(body: AddRequest, t: Tenant) -> dict[str, Any]:
        """Store one memory; returns its id."""
        fields = body.model_dump(exclude={"user_id", "text"}, exclude_none=True)
        return t.add(body.user_id, body.text, **fields)

    @app.post(
        "/v1/memories/batch",
        status_code=201,
        tags=["memories"],
        response_model=AddedOut,
        responses=_KEYED,
    )
    def add_many(body: AddManyRequest, t: Tenant) -> dict[str, Any]:
        """Store many memories in one transaction (all or none); ids in order."""
        return t.add_many(body.user_id, memory_items(body.items), body.skip_blank)

    @app.get("/v1/memories", tags=["memories"], response_model=MemoriesOut, responses=_KEYED)
    def list_memories(
        t: Tenant,
        user_id: UserQ,
        limit: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 100,
        offset: Annotated[int, Query(ge=0, le=MAX_COUNT)] = 0,
    ) -> dict[str, Any]:
        """The user's memories in insertion order, a page at a time."""
        return t.memories(user_id, limit, offset)

    @app.get(
        "/v1/memories/{memory_id}",
        tags=["memories"],
        response_model=HitOut,
        responses={**_KEYED, **_errors(404)},
    )
    def get(memory_id: str, t: Tenant, user_id: UserQ) -> dict[str, Any]:
        """One memory by id; 404 when this user has no such memory."""
        hit = t.get(user_id, memory_id)
        if hit is None:
            raise NotFoundError(f"user has no memory {memory_id!r}")
        return hit

    @app.delete(
        "/v1/memories/{memory_id}",
        tags=["memories"],
        response_model=DeletedOut,
        responses={**_KEYED, **_errors(404)},
    )
    def delete(memory_id: str, t: Tenant, user_id: UserQ) -> dict[str, Any]:
        """Delete one memory; 404 when this user has no such memory."""
        out = t.delete(user_id, memory_id)
        if not out["deleted"]:
            raise NotFoundError(f"user has no memory {memory_id!r}")
        return out

    @app.get("/v1/users", tags=["users"], response_model=UsersOut, responses=_KEYED)
    def users(t: Tenant) -> dict[str, Any]:
        """This tenant's users."""
        return t.users()

    @app.delete("/v1/users", tags=["users"], response_model=ErasedOut, responses=_KEYED)
    def delete_user(t: Tenant, user_id: UserQ) -> dict[str, Any]:
        """Erase every memory and all derived state of the user."""
        return t.delete_user(user_id)

    @app.post("/v1/search", tags=["retrieval"], response_model=SearchOut, responses=_KEYED)
    def search(body: QueryRequest, t: Tenant) -> dict[str, Any]:
        """The user's k most relevant memories, best first."""
        return t.search(body.user_id, body.query, body.k, body.now)

    @app.post("/v1/recall", tags=["retrieval"], response_model=RecallOut, responses=_KEYED)
    def recall(body: QueryRequest, t: Tenant) -> dict[str, Any]:
        """Search plus the engine's confidence, refusal verdict and explanations."""
        return t.recall(body.user_id, body.query, body.k, body.now)

    @app.post("/v1/trace", tags=["retrieval"], response_model=TraceOut, responses=_KEYED)
    def trace(body: TraceRequest, t: Tenant) -> dict[str, Any]:
        """The recall, plus the part of the engine's graph the query activated
        (SYNAPSE): the most activated episodes and concepts and the edges that
        carried activation between them."""
        return t.trace(body.user_id, body.query, body.k, body.now, body.limit)

    @app.get("/v1/short-term", tags=["retrieval"], responses=_KEYED)
    def short_term(t: Tenant, user_id: UserQ) -> dict[str, Any]:
        """The user's short-term memory (ILSTMA): its five segments, their estimated
        tokens, the questions seen and the cache; 422 for an engine without one."""
        return t.short_term(user_id)

    @app.get("/v1/engine", tags=["ops"], response_model=EngineOut, responses=_KEYED)
    def engine(t: Tenant) -> dict[str, Any]:
        """The engine's name and what it can do beyond ranking."""
        return t.engine()

    @app.post("/v1/answer", tags=["retrieval"], response_model=AnswerOut, responses=_KEYED)
    def answer(body: AnswerRequest, t: Tenant) -> dict[str, Any]:
        """Answer from the user's memory or refuse ("Not mentioned in the conversation")."""
        return t.answer(body.user_id, body.question, body.k, body.now)

    @app.get("/v1/export", tags=["users"], responses=_KEYED)
    def export(t: Tenant, user_id: UserQ) -> dict[str, Any]:
        """The user's global memory table (the one-JSON-file shape of export_table)."""
        return t.export_table(user_id)

    @app.post(
        "/v1/import", status_code=201, tags=["users"], response_model=AddedOut, responses=_KEYED
    )
    def import_table(
        t: Tenant,
        user_id: UserQ,
        table: Annotated[dict[str, Any], Body()],
        skip_blank: Annotated[bool, Query(description=SKIP_BLANK)] = False,
    ) -> dict[str, Any]:
        """Add every entry of an exported table to the user (all or nothing)."""
        return t.import_table(user_id, table, skip_blank)

    add_page(app, at_root=keyless)

    app.add_exception_handler(RememError, _remem_error)
    app.add_exception_handler(Refused, _refused)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
    if cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=cors_origins,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "X-API-Key", "Content-Type"],
        )
    return app


# -- running it --------------------------------------------------------------------------


def app_from_env() -> FastAPI:
    """The uvicorn factory each worker process calls (``--workers N``): its settings
    are :meth:`Settings.from_env`'s, the variables :func:`serve` set from its own
    (:meth:`Settings.to_env`); the Memory closes with the app."""
    settings = Settings.from_env(http=True)
    return create_app(
        settings.open_memory(),
        max_body_bytes=settings.max_body_bytes,
        cors_origins=list(settings.cors_origins),
        key_cache_s=settings.key_cache_s,
        close_memory=True,
    )


def serve(settings: Settings) -> None:
    """Run uvicorn with ``settings.workers`` processes, each building its app with
    :func:`app_from_env`; ``pool_size`` caps each worker's PostgreSQL connections."""
    import uvicorn

    os.environ.update(settings.to_env())
    uvicorn.run(
        "remem.serve.http:app_from_env",
        factory=True,
        host=settings.host,
        port=settings.port,
        workers=settings.workers,
        log_level=settings.log_level,
    )


def serve_local(db: str, engine: str, host: str, port: int) -> None:
    """``remem ui``: the API and its page for one person on this machine, without
    keys, on loopback only, in one process over an existing database."""
    import uvicorn

    check_loopback(host)
    mem = Memory(db, engine=engine, llm="none", store_options={"create": False})
    try:
        mem.warm_up()
        app = create_app(mem, keyless=True, metrics=False, close_memory=True)
    except BaseException:
        mem.close()
        raise
    shown = f"[{host}]" if ":" in host else host
    print(f"remem ui: http://{shown}:{port}/ui/ (Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
