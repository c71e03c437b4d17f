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
* Metrics are Prometheus text (``/metrics``), kept by prometheus_client. With several
  workers each writes its counts to a directory :func:`serve` makes (and removes at
  exit), and every scrape, whichever worker answers it, merges them all: the
  server's totals, each worker's series under its ``pid`` label. No tenant or user
  appears in a metric label.
* Handlers are plain functions run in the server's thread pool: the library is
  thread-safe and its work (SQLite, ONNX, llama.cpp) releases the GIL.

The app is assembled here from parts, each in its own module: the routers per area
(``routes/``), the error answers (``httperrors.py``) and the middleware
(``middleware.py``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.middleware.base import BaseHTTPMiddleware

from .. import env
from .._version import __version__
from ..keys import KeyRing
from ..memory import Memory
from .accesslog import hide_queries
from .httperrors import add_error_handlers
from .middleware import MULTIPROC_DIR, BodyLimit, ContainErrors, Metrics, observe
from .page import add_page, check_loopback
from .routes import memories, ops, retrieval, users
from .routes.deps import no_key_in_url, unique_keys
from .settings import MAX_BODY_BYTES, Settings


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
    app = FastAPI(
        lifespan=lifespan,
        dependencies=[Depends(no_key_in_url), Depends(unique_keys)],
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
    app.state.keyring = KeyRing.of(mem, cache_s=key_cache_s)
    app.state.metrics = Metrics()
    app.state.keyless = keyless
    _add_middleware(app, max_body_bytes)
    routers = [ops.router, *([ops.metrics_router] if metrics else [])]
    routers += [memories.router, users.router, retrieval.router]
    for router in routers:
        app.include_router(router)
    add_page(app, at_root=keyless)
    # every route, one entry each, for the Allow header of a 405 (httperrors.py):
    # since FastAPI 0.137 app.routes holds an included router as one lazy entry
    app.state.routes = [*app.routes, *(route for r in routers for route in r.routes)]
    add_error_handlers(app)
    if cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=cors_origins,
            allow_methods=["GET", "POST", "DELETE"],
            allow_headers=["Authorization", "X-API-Key", "Content-Type"],
        )
    return app


def _add_middleware(app: FastAPI, max_body_bytes: int) -> None:
    """The body cap innermost, then the metrics, then :class:`ContainErrors` around
    both (an exception passing the metrics is counted as a 500); CORS, added last,
    goes outside them all and heads the 500 ContainErrors sends."""
    app.add_middleware(BodyLimit, limit=max_body_bytes)
    app.add_middleware(BaseHTTPMiddleware, dispatch=observe)
    app.add_middleware(ContainErrors)


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
    :func:`app_from_env`; ``pool_size`` caps each worker's PostgreSQL connections.

    With more than one worker the metrics are shared through a fresh directory
    (prometheus_client's multiprocess mode, :class:`~remem.serve.middleware.Metrics`),
    named to the workers in ``PROMETHEUS_MULTIPROC_DIR`` before they start and
    removed when the server stops: counts from an earlier run must not be added to
    this one's. A directory the operator named there already is used as it is, and
    left in place."""
    import uvicorn

    os.environ.update(settings.to_env())
    made = None
    if settings.workers > 1 and not env.read(MULTIPROC_DIR):
        made = tempfile.mkdtemp(prefix="remem-metrics-")
        os.environ.update({MULTIPROC_DIR: made})
    try:
        uvicorn.run(
            "remem.serve.http:app_from_env",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=settings.workers,
            log_level=settings.log_level,
        )
    finally:
        if made is not None:
            os.environ.pop(MULTIPROC_DIR, None)
            shutil.rmtree(made, ignore_errors=True)


def serve_local(db: str, engine: str, host: str, port: int, key: str | None = None) -> None:
    """``remem ui``: the API and its page for one person on this machine, without
    keys, on loopback only, in one process over an existing database (``key``: an
    encrypted one's)."""
    import uvicorn

    check_loopback(host)
    mem = Memory(db, engine=engine, llm="none", store_options={"create": False}, key=key)
    try:
        mem.warm_up()
        app = create_app(mem, keyless=True, metrics=False, close_memory=True)
    except BaseException:
        mem.close()
        raise
    shown = f"[{host}]" if ":" in host else host
    print(f"remem ui: http://{shown}:{port}/ui/ (Ctrl-C stops it)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
