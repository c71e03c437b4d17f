"""``remem.Client`` and ``remem.AsyncClient``: ``Memory``'s methods over the HTTP API.

Each method is one line of each class (``search = _Blocking(calls.search)``): the
exchange written once in ``calls.py`` gives its signature, docstring and result
type, and the class only says how a request is sent (blocking, or awaited).
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from typing import Any, Generic, ParamSpec, TypeVar, overload

import httpx

from ..errors import InvalidInputError
from ..validation import check_count
from . import calls
from .exchange import Exchange, adrive, drive
from .failures import Retry
from .transport import AsyncSender, Sender, headers

P = ParamSpec("P")
R = TypeVar("R")

DEFAULT_TIMEOUT = httpx.Timeout(60.0, connect=5.0)
"""Seconds to connect (a dead host fails fast) and for the rest (an answer with a
local reader may take a while)."""


class _Blocking(Generic[P, R]):
    """An exchange as a blocking method of :class:`Client`."""

    def __init__(self, exchange: Callable[P, Exchange[R]]) -> None:
        self.exchange = exchange
        self.__doc__ = exchange.__doc__

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> _Blocking[P, R]: ...

    @overload
    def __get__(self, obj: Client, owner: type[Any]) -> Callable[P, R]: ...

    def __get__(self, obj: Client | None, owner: type[Any]) -> Any:
        if obj is None:
            return self
        exchange, send = self.exchange, obj._send

        @functools.wraps(exchange)
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            return drive(exchange(*args, **kwargs), send)

        return call


class _Awaited(Generic[P, R]):
    """An exchange as an awaitable method of :class:`AsyncClient`."""

    def __init__(self, exchange: Callable[P, Exchange[R]]) -> None:
        self.exchange = exchange
        self.__doc__ = exchange.__doc__

    @overload
    def __get__(self, obj: None, owner: type[Any]) -> _Awaited[P, R]: ...

    @overload
    def __get__(self, obj: AsyncClient, owner: type[Any]) -> Callable[P, Awaitable[R]]: ...

    def __get__(self, obj: AsyncClient | None, owner: type[Any]) -> Any:
        if obj is None:
            return self
        exchange, send = self.exchange, obj._send

        @functools.wraps(exchange)
        async def call(*args: P.args, **kwargs: P.kwargs) -> R:
            return await adrive(exchange(*args, **kwargs), send)

        return call


def _retry(retries: Any, max_retry_wait: Any) -> Retry:
    wait = max_retry_wait
    if isinstance(wait, bool) or not isinstance(wait, (int, float)) or not wait >= 0:
        raise InvalidInputError(f"max_retry_wait must be seconds, 0 or more, not {wait!r}")
    return Retry(retries=check_count(retries, "retries", zero=True), max_wait=float(wait))


class Client:
    """A remem server (``remem serve``) with ``Memory``'s methods.

    >>> with Client("http://localhost:8080", api_key="rmm_...") as mem:  # doctest: +SKIP
    ...     mem.add("I'm moving to Lisbon in May", user_id="ana")
    ...     mem.search("where is Ana moving?", user_id="ana", k=1)[0].text

    Arguments are checked here by the library's rules before anything is sent, and
    the server's error codes come back as the library's errors (a ``not_found`` as
    ``NotFoundError``...; a code without one, such as ``unauthorized``, as
    ``RemoteError``). A server that cannot be reached, or does not answer within
    ``timeout`` seconds, is a ``StoreError``. A 503 is tried again ``retries`` times
    after the wait its ``Retry-After`` asks for, when that is at most
    ``max_retry_wait`` seconds. Thread-safe: one client may serve every thread.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retries: int = 2,
        max_retry_wait: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        http = httpx.Client(base_url=self.base_url, headers=headers(api_key), timeout=timeout)
        self._send = Sender(http, _retry(retries, max_retry_wait))

    def close(self) -> None:
        """Close the connections (the server's memories are not touched)."""
        self._send.http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Client({self.base_url!r})"

    add = _Blocking(calls.add)
    add_many = _Blocking(calls.add_many)
    update = _Blocking(calls.update)
    history = _Blocking(calls.history)
    delete = _Blocking(calls.delete)
    delete_user = _Blocking(calls.delete_user)
    import_data = _Blocking(calls.import_data)
    import_table = _Blocking(calls.import_table)
    search = _Blocking(calls.search)
    recall = _Blocking(calls.recall)
    trace = _Blocking(calls.trace)
    answer = _Blocking(calls.answer)
    context = _Blocking(calls.context)
    get = _Blocking(calls.get)
    memories = _Blocking(calls.memories)
    count = _Blocking(calls.count)
    users = _Blocking(calls.users)
    short_term = _Blocking(calls.short_term)
    export_data = _Blocking(calls.export_data)
    export_table = _Blocking(calls.export_table)
    export_jsonl = _Blocking(calls.export_jsonl)
    import_jsonl = _Blocking(calls.import_jsonl)
    ping = _Blocking(calls.ping)


class AsyncClient:
    """:class:`Client` for asyncio code: the same methods, awaitable, over one
    ``httpx.AsyncClient`` (safe to share by every task of one event loop)."""

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        timeout: float | httpx.Timeout = DEFAULT_TIMEOUT,
        retries: int = 2,
        max_retry_wait: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        http = httpx.AsyncClient(base_url=self.base_url, headers=headers(api_key), timeout=timeout)
        self._send = AsyncSender(http, _retry(retries, max_retry_wait))

    async def close(self) -> None:
        """Close the connections (the server's memories are not touched)."""
        await self._send.http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def __repr__(self) -> str:
        return f"AsyncClient({self.base_url!r})"

    add = _Awaited(calls.add)
    add_many = _Awaited(calls.add_many)
    update = _Awaited(calls.update)
    history = _Awaited(calls.history)
    delete = _Awaited(calls.delete)
    delete_user = _Awaited(calls.delete_user)
    import_data = _Awaited(calls.import_data)
    import_table = _Awaited(calls.import_table)
    search = _Awaited(calls.search)
    recall = _Awaited(calls.recall)
    trace = _Awaited(calls.trace)
    answer = _Awaited(calls.answer)
    context = _Awaited(calls.context)
    get = _Awaited(calls.get)
    memories = _Awaited(calls.memories)
    count = _Awaited(calls.count)
    users = _Awaited(calls.users)
    short_term = _Awaited(calls.short_term)
    export_data = _Awaited(calls.export_data)
    export_table = _Awaited(calls.export_table)
    export_jsonl = _Awaited(calls.export_jsonl)
    import_jsonl = _Awaited(calls.import_jsonl)
    ping = _Awaited(calls.ping)


#: ``Memory``'s public names the clients leave out, and why (a test holds every other
#: public method of ``Memory`` to be a method of both clients)
LEFT_OUT = {
    "scrub": "no route: the server scrubs at its next write",
    "stats": "no route: the server's process sizes are its /metrics",
    "flush": "no route: the server flushes at shutdown",
    "consolidate": "no route",
    "warm_up": "no route: the server warms up at start",
    "attach": "a server-side hook: extensions live in the server's process",
    "close": "a client method of its own: closes the connections",
    "llm": "the server's reader: ask through answer()",
    "verdict_model": "the server's: not sent",
    "engine_info": "a property; GET /v1/engine gives the name and abilities",
    "engine_name": "an attribute of the server's Memory",
    "path": "an attribute of the server's Memory",
    "max_text_chars": "the server's setting: a text over it is TextTooLongError",
    "export_lines": "export_jsonl writes the route's lines to a file here",
    "user_ref": "the server's store scopes its own tables: extensions live in its process",
    "answer_each": "the server's readers are its own: ask through answer()",
}
