"""What remem's log lines may say about a failure: never a memory's text, a prompt, a
model's reply or a key, at any level.

An exception raised around an LLM or embedder call can carry any of those in its
message: a parse error quotes the reply (which quotes the memories), an endpoint's
error body echoes the request (issue 18: a failed summary call printed a PIN code to
stderr). So a log line names a failure by :func:`failure`: the exception's type and
its ``log_detail`` (a content-free summary some errors carry: an HTTP status, "no
valid JSON after 3 tries"), never its message.

``REMEM_LOG_CONTENT=1`` is the one explicit switch that adds the messages back (and
full tracebacks), for debugging on data one may read; its name says what it does.

The bottom layer: it imports only ``env``, so any module may log through it.
"""

from __future__ import annotations

import traceback

from . import env

CONTENT_SWITCH = "REMEM_LOG_CONTENT"


def content_logged() -> bool:
    """Whether ``REMEM_LOG_CONTENT=1`` asks for the messages in the logs (read at each
    call, so a process can switch it for one debugging session)."""
    return env.read(CONTENT_SWITCH).strip().lower() in ("1", "true", "yes", "on")


def failure(exc: BaseException) -> str:
    """How a log line names ``exc``: ``LLMError (HTTP 400)`` by default; with
    ``REMEM_LOG_CONTENT=1`` also its message, which may quote memories."""
    name = type(exc).__name__
    if content_logged():
        return f"{name}: {exc}"
    detail = getattr(exc, "log_detail", "")
    return f"{name} ({detail})" if isinstance(detail, str) and detail else name


def frames(exc: BaseException) -> str:
    """Where ``exc`` was raised (the traceback's file, line and code of each frame)
    without its message: what ``log.exception`` would print, minus the content. With
    ``REMEM_LOG_CONTENT=1`` the whole traceback, message and chain included."""
    if content_logged():
        return "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return "".join(traceback.format_tb(exc.__traceback__)) + failure(exc)
