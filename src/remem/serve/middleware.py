"""The HTTP API's ASGI middleware: the body cap, the last-resort 500, and the metrics.

Each is a plain ASGI class (or one ``http`` middleware function) rather than code in
the routes, because each must see a request before any route reads it, or a failure
after every route and handler has given up.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fastapi import Request

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
