"""The HTTP API's ASGI middleware: the body cap, the last-resort 500, and the metrics.

Each is a plain ASGI class (or one ``http`` middleware function) rather than code in
the routes, because each must see a request before any route reads it, or a failure
after every route and handler has given up.
"""

from __future__ import annotations

import os
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import Request

from .. import env
from ..redact import frames
from .httperrors import error, log

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

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
        response = error(
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
                await error(500, "internal", "internal error")(scope, receive, send)


# -- metrics -----------------------------------------------------------------------------

_METHODS = frozenset({"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"})
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
#: prometheus_client's switch to its multiprocess mode: ``remem serve --workers N``
#: sets it (:func:`remem.serve.http.serve`) before the workers start
MULTIPROC_DIR = "PROMETHEUS_MULTIPROC_DIR"


class Metrics:
    """Request counts and latency histograms per route template, in Prometheus text,
    kept by prometheus_client.

    With one process they live in this object's own registry (each app counts from
    zero, with no set-up). When ``PROMETHEUS_MULTIPROC_DIR`` names a directory, as
    ``remem serve`` does for several workers, every worker writes its counts there
    and :meth:`render` merges all of them: whichever worker a scrape reaches, it
    reports the whole server. Each series keeps its worker's ``pid`` label, so a
    scraper sums them (``sum without (pid)``) or tells workers apart."""

    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Histogram

        self._registry = CollectorRegistry()
        self._requests = Counter(
            "remem_requests",
            "HTTP requests by route and status.",
            ["pid", "method", "route", "status"],
            registry=self._registry,
        )
        self._seconds = Histogram(
            "remem_request_seconds",
            "HTTP request latency by route.",
            ["pid", "method", "route"],
            buckets=_BUCKETS,
            registry=self._registry,
        )
        self._pid = str(os.getpid())
        self._shared = env.read(MULTIPROC_DIR) or None

    def observe(self, method: str, route: str, status: int, seconds: float) -> None:
        if method not in _METHODS:  # clients choose methods: keep the label set bounded
            method = "other"
        self._requests.labels(self._pid, method, route, str(status)).inc()
        self._seconds.labels(self._pid, method, route).observe(seconds)

    def render(self) -> str:
        from prometheus_client import CollectorRegistry, generate_latest

        registry = self._registry
        if self._shared:  # every worker's files, merged at each scrape
            from prometheus_client.multiprocess import MultiProcessCollector

            registry = CollectorRegistry()
            MultiProcessCollector(registry, path=self._shared)
        return generate_latest(registry).decode()


async def observe(request: Request, call_next: Callable[..., Awaitable[Any]]) -> Any:
    """Count the request and time it under its route template (never its path, which
    holds ids); a request no route matched is counted as ``unmatched``."""
    t0 = time.perf_counter()
    status = 500
    try:
        response = await call_next(request)
        status = response.status_code
        return response
    finally:
        route = request.scope.get("route")
        path = getattr(route, "path", None) or "unmatched"
        request.app.state.metrics.observe(request.method, path, status, time.perf_counter() - t0)
