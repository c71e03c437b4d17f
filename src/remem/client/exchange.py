"""A client method as one description of its HTTP exchange, run by a sync or an
async transport alike.

Each method of ``remem.Client`` is written once (``calls.py``) as a generator: it
checks its arguments, yields the :class:`Request` it needs, receives the decoded
JSON answer, and returns the result (a method that pages yields several). The sync
``Client`` and the ``AsyncClient`` differ only in how they send a request (``drive``
and ``adrive`` below, over ``transport.py``), so no method is written twice.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

R = TypeVar("R")


@dataclass(frozen=True)
class Request:
    """One HTTP request of a method: ``body`` is JSON (None: no body; ``content``:
    raw bytes instead), ``params`` the query string. ``missing``: a 404 ``not_found``
    answers None instead of raising (``get`` and ``delete`` return None and False for
    a missing memory, as ``Memory`` does)."""

    method: str
    path: str
    params: Mapping[str, Any] | None = None
    body: Any = None
    missing: bool = False
    #: a body sent as these bytes, of ``content_type``, instead of ``body`` as JSON
    content: bytes | None = None
    content_type: str = "application/json"
    #: the answer of a success returned as text (an export's lines), not decoded JSON
    raw: bool = False


#: a method's exchange: yields requests, is sent their decoded answers, returns R
Exchange = Generator[Request, Any, R]


def drive(exchange: Exchange[R], send: Callable[[Request], Any]) -> R:
    """Run an exchange to its result, sending each request with ``send``."""
    try:
        request = next(exchange)
        while True:
            request = exchange.send(send(request))
    except StopIteration as done:
        return done.value


async def adrive(exchange: Exchange[R], send: Callable[[Request], Awaitable[Any]]) -> R:
    """:func:`drive` with an awaitable ``send``."""
    try:
        request = next(exchange)
        while True:
            request = exchange.send(await send(request))
    except StopIteration as done:
        return done.value
