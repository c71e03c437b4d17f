"""The HTTP API's error answers: one JSON shape, ``{"error": {"code", "message"}}``,
with stable codes a client can switch on, and the handlers that map every failure to it.

Kept apart from the routes so a route only raises (a :class:`~remem.errors.RememError`
or :class:`Refused`) and never builds an error response itself: the codes, the
statuses and what reaches the log are decided here once. The message of an
unexpected failure never carries internals; its frames go to the log.
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..errors import (
    EmbedderError,
    ErasureIncompleteError,
    InvalidFilterError,
    InvalidInputError,
    InvalidTypeError,
    LLMError,
    NotFoundError,
    RememError,
    StoreError,
    TextTooLongError,
    UnknownComponentError,
)
from ..redact import failure, frames

# the module was remem.server: the logger keeps that name, which logging set-ups know
log = logging.getLogger("remem.server")

_ERRORS: list[tuple[type[BaseException], int, str]] = [
    (TextTooLongError, 422, "text_too_long"),
    (InvalidFilterError, 422, "invalid_filter"),
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


def error(status: int, code: str, message: str, **extra: Any) -> JSONResponse:
    """The one error shape; a 401 names its scheme, as RFC 9110 asks."""
    body: dict[str, Any] = {"error": {"code": code, "message": message, **extra}}
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return JSONResponse(body, status_code=status, headers=headers)


def media_type(request: Request) -> str:
    """The request's Content-Type without its parameters, lower case ("" when none)."""
    return request.headers.get("content-type", "").split(";")[0].strip().lower()


def _refused(_: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Refused)
    return error(exc.status, exc.code, str(exc))


def _remem_error(_: Request, exc: Exception) -> JSONResponse:
    for kind, status, code in _ERRORS:
        if isinstance(exc, kind):
            if status >= 500:  # the message (for the client) may quote memories
                log.warning("%s: %s", code, failure(exc))
            extra = {"deleted": exc.result} if isinstance(exc, ErasureIncompleteError) else {}
            return error(status, code, str(exc), **extra)
    log.error("unexpected remem error: %s", frames(exc))
    return error(500, "internal", "internal error")


def _has_body(request: Request) -> bool:
    length = request.headers.get("content-length", "0").strip()
    return "transfer-encoding" in request.headers or (length.isdigit() and int(length) > 0)


def _validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    kind = media_type(request)
    # FastAPI reads a body as JSON only when it is sent as JSON; any other body
    # (form data, or a body with no type at all, as some clients send raw bytes)
    # reaches validation unread, which is a media type problem, not a field problem
    if (
        kind != "application/json"
        and (kind or _has_body(request))
        and any(tuple(e.get("loc", ())) == ("body",) for e in exc.errors())
    ):
        sent = f"not {kind}" if kind else "and this request named no Content-Type"
        return error(
            415,
            "unsupported_media_type",
            f"the body must be JSON sent as Content-Type: application/json, {sent}",
        )
    problems = []
    for e in exc.errors():
        if e.get("type") in ("json_invalid", "json_type"):
            return error(400, "malformed_json", "the request body is not valid JSON")
        where = ".".join(str(p) for p in e.get("loc", ()))
        problems.append({"field": where, "problem": str(e.get("msg", ""))})
    text = "; ".join(f"{p['field']}: {p['problem']}" for p in problems) or "invalid request"
    return error(422, "invalid_request", text, fields=problems)


def _http_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    codes = {401: "unauthorized", 404: "no_route", 405: "method_not_allowed"}
    code = codes.get(exc.status_code, "http_error")
    if exc.status_code == 400 and "parsing the body" in str(exc.detail):
        code = "malformed_json"  # e.g. JSON nested deeper than the parser allows
    response = error(exc.status_code, code, str(exc.detail))
    for name, value in (exc.headers or {}).items():
        response.headers.setdefault(name, value)
    if exc.status_code == 405:
        # Starlette names only the first route's methods; a path may have several
        allowed = {
            m
            for route in request.app.state.routes
            if getattr(route, "path_regex", None) is not None
            and route.path_regex.match(request.url.path)
            for m in getattr(route, "methods", None) or ()
        }
        if allowed:
            response.headers["Allow"] = ", ".join(sorted(allowed))
    return response


def _unexpected(_: Request, exc: Exception) -> JSONResponse:
    """Starlette's last resort, for a failure outside ``ContainErrors`` (in the CORS
    middleware): the same answer and log line."""
    log.error("unexpected error: %s", frames(exc))
    return error(500, "internal", "internal error")


def add_error_handlers(app: FastAPI) -> None:
    """Map every failure a request can meet to the one error shape."""
    app.add_exception_handler(RememError, _remem_error)
    app.add_exception_handler(Refused, _refused)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
