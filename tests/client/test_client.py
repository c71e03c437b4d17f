"""What only the HTTP clients meet: tenants kept apart by their keys, a bad key, a
dead or silent endpoint (a clear error, soon), the 503 retries after Retry-After,
and httpx missing. The shared methods are test_faces.py's."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import socket
import sys
import threading
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from remem import (
    AsyncClient,
    Client,
    ErasureIncompleteError,
    Memory,
    MissingDependencyError,
    NotFoundError,
    RemoteError,
    StoreError,
    Version,
)
from remem.client import calls, clients
from remem.serve.schema import MAX_PAGE

# -- tenants ----------------------------------------------------------------------------


def test_a_tenant_sees_only_its_own_memories(served):
    with Client(served.base, served.key()) as acme, Client(served.base, served.key()) as globex:
        mine = acme.add("I adopted a greyhound named Biscuit.", "bob")
        globex.add("I play the cello on Thursdays.", "bob")
        assert [h.text for h in globex.search("greyhound Biscuit", "bob")] == [
            "I play the cello on Thursdays."
        ]
        assert globex.get(mine, "bob") is None
        assert globex.delete(mine, "bob") is False
        with pytest.raises(NotFoundError):
            globex.update(mine, "bob", text="I adopted a cat.")
        with pytest.raises(NotFoundError):
            globex.history(mine, "bob")
        assert globex.count("bob") == 1 and globex.users() == ["bob"]
        assert globex.delete_user("bob") == 1
        assert acme.get(mine, "bob") is not None and acme.count("bob") == 1
        assert [v.text for v in acme.history(mine, "bob")] == [
            "I adopted a greyhound named Biscuit."
        ]


def test_a_tenants_users_are_stored_under_its_name(served):
    key = served.key("acme-stored")
    with Client(served.base, key) as client:
        client.add("a fact", "ana")
    with Memory(served.db, llm="none") as mem:
        assert "acme-stored:ana" in mem.users() and "ana" not in mem.users()


def test_a_bad_key_is_a_remote_error_naming_the_code(served):
    client = Client(served.base, api_key="rmm_000000000000_nope")
    with client, pytest.raises(RemoteError) as caught:
        client.users()
    assert (caught.value.status, caught.value.code) == (401, "unauthorized")
    with Client(served.base) as keyless, pytest.raises(RemoteError):
        keyless.add("a fact", "ana")


def test_a_missing_route_is_not_a_missing_memory(served):
    client = Client(served.base + "/not-remem", served.key())
    with client, pytest.raises(RemoteError) as caught:
        client.get("abc", "bob")
    assert caught.value.code == "no_route"
    assert not isinstance(caught.value, NotFoundError)


def test_one_async_client_serves_many_tasks_of_one_loop(served):
    async def run() -> None:
        async with AsyncClient(served.base, served.key()) as mem:
            ids = await asyncio.gather(*(mem.add(f"note {i} about tea", "bob") for i in range(20)))
            assert len(set(ids)) == 20
            found = await asyncio.gather(*(mem.search("tea", "bob", k=5) for _ in range(20)))
            assert all(len(hits) == 5 for hits in found)
            assert await mem.count("bob") == 20

    asyncio.run(run())


# -- dead and silent endpoints -----------------------------------------------------------


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens once the socket closes


def test_a_dead_endpoint_is_a_store_error_at_once():
    started = time.monotonic()
    client = Client(f"http://127.0.0.1:{_closed_port()}")
    with client, pytest.raises(StoreError, match="cannot reach the remem server"):
        client.search("anything", "bob")
    assert time.monotonic() - started < 5


def test_a_silent_endpoint_times_out_instead_of_hanging():
    with socket.socket() as listener:  # accepts connections (the backlog), never answers
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        base = f"http://127.0.0.1:{listener.getsockname()[1]}"
        started = time.monotonic()
        with Client(base, timeout=0.5) as client, pytest.raises(StoreError, match="ReadTimeout"):
            client.users()
    assert time.monotonic() - started < 5


def test_the_async_client_fails_alike_on_a_dead_endpoint():
    async def run() -> None:
        async with AsyncClient(f"http://127.0.0.1:{_closed_port()}") as client:
            await client.count("bob")

    with pytest.raises(StoreError, match="cannot reach"):
        asyncio.run(run())


# -- 503 and Retry-After ----------------------------------------------------------------


class Scripted:
    """A tiny real HTTP server answering each request with the next scripted
    (status, headers, body), recording when each came."""

    def __init__(self, script: list[tuple[int, dict[str, str], Any]]):
        self.script = list(script)
        self.seen: list[float] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                outer.seen.append(time.monotonic())
                status, headers, body = outer.script.pop(0)
                data = json.dumps(body).encode()
                self.send_response(status)
                for name, value in {"Content-Type": "application/json", **headers}.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            do_POST = do_DELETE = do_GET  # noqa: N815

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def scripted() -> Iterator[Any]:
    made: list[Scripted] = []

    def make(*script: tuple[int, dict[str, str], Any]) -> Scripted:
        made.append(Scripted(list(script)))
        return made[-1]

    yield make
    for server in made:
        server.close()


BUSY = {"error": {"code": "store_unavailable", "message": "the database is busy"}}
OK = {"users": ["ana"]}


def test_a_503_is_retried_after_its_retry_after(scripted):
    server = scripted((503, {"Retry-After": "1"}, BUSY), (200, {}, OK))
    with Client(server.base) as client:
        assert client.users() == ["ana"]
    assert len(server.seen) == 2 and server.seen[1] - server.seen[0] >= 0.95


def test_the_async_client_retries_alike(scripted):
    server = scripted((503, {"Retry-After": "0"}, BUSY), (503, {}, BUSY), (200, {}, OK))

    async def run() -> list[str]:
        async with AsyncClient(server.base) as client:
            return await client.users()

    assert asyncio.run(run()) == ["ana"] and len(server.seen) == 3


def test_retries_are_bounded_and_the_last_503_is_raised(scripted):
    server = scripted(*[(503, {"Retry-After": "0"}, BUSY)] * 3)
    with Client(server.base, retries=2) as client, pytest.raises(StoreError, match="busy"):
        client.users()
    assert len(server.seen) == 3


def test_a_wait_longer_than_allowed_is_not_waited(scripted):
    server = scripted((503, {"Retry-After": "120"}, BUSY))
    started = time.monotonic()
    with Client(server.base, max_retry_wait=5) as client, pytest.raises(StoreError):
        client.users()
    assert len(server.seen) == 1 and time.monotonic() - started < 5


def test_an_incomplete_erasure_is_retried_and_then_answers(scripted):
    pending = {"error": {"code": "erasure_incomplete", "message": "m", "deleted": True}}
    server = scripted((503, {}, pending), (200, {}, {"deleted": True}))
    with Client(server.base) as client:
        assert client.delete("abc", "bob") is True
    server = scripted(*[(503, {"Retry-After": "0"}, pending)] * 3)
    with Client(server.base) as client, pytest.raises(ErasureIncompleteError) as caught:
        client.delete("abc", "bob")
    assert caught.value.result is True


def test_other_failures_are_not_retried(scripted):
    server = scripted((500, {}, {"error": {"code": "internal", "message": "internal error"}}))
    with Client(server.base) as client, pytest.raises(RemoteError) as caught:
        client.users()
    assert caught.value.status == 500 and len(server.seen) == 1


def test_a_body_that_is_not_remems_is_a_remote_error(scripted):
    server = scripted((502, {}, "Bad Gateway"))
    client = Client(server.base, retries=0)
    with client, pytest.raises(RemoteError, match="without a remem error"):
        client.users()


# -- the surface -----------------------------------------------------------------------


def _public_methods(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


@pytest.mark.parametrize("cls", [Client, AsyncClient])
def test_every_method_of_memory_is_on_the_clients_with_its_signature(cls: type):
    missing = _public_methods(Memory) - _public_methods(cls) - set(clients.LEFT_OUT)
    assert not missing, f"add to remem/client (calls.py, clients.py) or LEFT_OUT: {missing}"
    for name in _public_methods(Memory) - set(clients.LEFT_OUT):
        want = list(inspect.signature(getattr(Memory, name)).parameters.values())[1:]
        have = list(inspect.signature(getattr(calls, name)).parameters.values())
        assert [(p.name, p.kind, p.default) for p in have] == [
            (p.name, p.kind, p.default) for p in want
        ], name


def test_a_version_comes_back_from_its_json():
    version = Version(
        version=2,
        text="I moved to Porto.",
        metadata={"tags": ["move"]},
        timestamp=datetime(2023, 5, 8, 15, 56, tzinfo=timezone(timedelta(hours=2))),
        changed=("text", "timestamp"),
        at=datetime(2024, 1, 2, 3, 4, 5, 678901, tzinfo=timezone.utc),
    )
    sent = json.loads(json.dumps(version.to_dict()))
    assert Version.from_dict({**sent, "from_a_newer_server": 1}) == version
    assert Version.from_dict(sent).timestamp.utcoffset() == timedelta(hours=2)


def test_a_page_is_the_servers_page():
    assert calls.PAGE == MAX_PAGE


def test_without_httpx_the_client_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "httpx", None)  # an import of it fails
    for name in [m for m in sys.modules if m == "remem.client" or m.startswith("remem.client.")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(MissingDependencyError, match=r"pip install 'remem\[client\]'"):
        importlib.import_module("remem.client")
