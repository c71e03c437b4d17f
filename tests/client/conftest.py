"""One real ``remem serve`` process for the client tests (started as the load
benchmark starts it, ``remem_bench.load.start_server``), a fresh tenant and key per
test, and the four faces of ``Memory``'s methods the shared suite runs on."""

from __future__ import annotations

import asyncio
import itertools
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from remem import AsyncClient, AsyncMemory, Client, Memory
from remem.keys import KeyRing
from remem_bench.load import start_server, stop_server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Served:
    """The running server: its URL, and keys made on its database."""

    def __init__(self, base: str, db: Path):
        self.base = base
        self.db = db
        self._names = itertools.count()

    def key(self, tenant: str | None = None) -> str:
        """A key of a new tenant (or of ``tenant``), made as ``remem keys create``
        makes one: in the database the server reads its keys from."""
        name = tenant or f"t{next(self._names)}"
        with Memory(self.db, llm="none") as mem:
            return KeyRing.of(mem).create(name)[0]


@pytest.fixture(scope="session")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    where = tmp_path_factory.mktemp("served")
    db = where / "served.db"
    with Memory(db, llm="none"):
        pass  # the file made before the server starts, so key writes never race its creation
    with open(where / "server.log", "wb") as log:
        proc, base = start_server(
            str(db), workers=1, engine="hybrid", llm="none", port=free_port(), log=log
        )
    try:
        yield Served(base, db)
    finally:
        stop_server(proc)


class Synced:
    """An async object's methods called as sync ones, on one event loop in a thread
    of its own (an httpx.AsyncClient stays on the loop that first used it)."""

    def __init__(self, target: Any):
        self.target = target
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def __getattr__(self, name: str) -> Callable[..., Any]:
        method = getattr(self.target, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            future = asyncio.run_coroutine_threadsafe(method(*args, **kwargs), self.loop)
            return future.result(timeout=120)

        return call

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


FACES = ["memory", "async_memory", "client", "async_client"]


@pytest.fixture(params=FACES)
def face(request: pytest.FixtureRequest, open_memory: Callable[..., Memory]) -> Iterator[Any]:
    """``Memory``'s methods, called as sync ones, on a fresh memory (a new
    ``:memory:`` Memory, or a new tenant of the served database)."""
    kind = request.param
    if kind in ("memory", "async_memory"):
        mem = open_memory(":memory:", "hybrid")
        if kind == "memory":
            yield mem
            return
        synced = Synced(AsyncMemory.of(mem))
    else:
        served = request.getfixturevalue("served")
        if kind == "client":
            with Client(served.base, api_key=served.key()) as client:
                yield client
            return
        synced = Synced(AsyncClient(served.base, api_key=served.key()))
    try:
        yield synced
    finally:
        if kind == "async_client":
            synced.close()
        synced.stop()
