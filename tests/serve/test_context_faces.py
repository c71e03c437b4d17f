"""``Memory.context`` on the servers: ``POST /v1/context`` (the HTTP API's rules,
tenants kept apart) and the MCP tool ``memory_context``. The client faces run the
shared suite (tests/client/test_faces.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from remem import Memory
from remem.keys import KeyRing
from remem.serve.http import create_app
from remem.tokens import estimate_tokens

MOVES = [
    {"text": "I live in Lisbon", "speaker": "Ana", "timestamp": "2023-01-10T12:00:00+00:00"},
    {"text": "My dog is called Rex", "speaker": "Ana", "timestamp": "2023-03-10T12:00:00+00:00"},
    {"text": "I moved to Porto", "speaker": "Ana", "timestamp": "2023-06-10T12:00:00+00:00"},
]
QUESTION = "Where do I live now?"


@pytest.fixture
def api(open_memory, tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str], Memory]]:
    mem = open_memory(tmp_path / "c.db", "hybrid")
    key, _ = KeyRing.of(mem).create("acme")
    headers = {"Authorization": f"Bearer {key}"}
    with TestClient(create_app(mem), raise_server_exceptions=False) as client:
        r = client.post(
            "/v1/memories/batch", json={"user_id": "ana", "items": MOVES}, headers=headers
        )
        assert r.status_code == 201
        yield client, headers, mem


def test_http_context_gives_the_block(api):
    client, headers, _ = api
    r = client.post(
        "/v1/context", json={"user_id": "ana", "query": QUESTION, "k": 3}, headers=headers
    )
    assert r.status_code == 200, r.text
    lines = r.json()["context"].splitlines()
    assert "[10 June 2023, latest] Ana: I moved to Porto" in lines
    assert "[10 January 2023, superseded by a later memory] Ana: I live in Lisbon" in lines
    body = {"user_id": "ana", "query": QUESTION, "max_tokens": 9}
    short = client.post("/v1/context", json=body, headers=headers).json()["context"]
    assert short and estimate_tokens(short) <= 9
    nobody = {"user_id": "nobody", "query": QUESTION}
    assert client.post("/v1/context", json=nobody, headers=headers).json() == {"context": ""}


def test_http_context_keeps_tenants_apart(api):
    client, headers, mem = api
    other, _ = KeyRing.of(mem).create("other")
    theirs = {"Authorization": f"Bearer {other}"}
    body = {"user_id": "ana", "query": QUESTION, "max_tokens": 5000}
    assert client.post("/v1/context", json=body, headers=theirs).json() == {"context": ""}
    assert "Porto" in client.post("/v1/context", json=body, headers=headers).json()["context"]


@pytest.mark.parametrize(
    "body",
    [
        {"user_id": "ana", "query": ""},
        {"user_id": "ana", "query": "   "},
        {"user_id": "", "query": QUESTION},
        {"user_id": "ana", "query": QUESTION, "max_tokens": 0},
        {"user_id": "ana", "query": QUESTION, "max_tokens": "100"},
        {"user_id": "ana", "query": QUESTION, "max_tokens": 1.5},
        {"user_id": "ana", "query": QUESTION, "k": 0},
        {"user_id": "ana", "query": QUESTION, "filters": {"nope": 1}},
        {"user_id": "ana", "question": QUESTION},
    ],
)
def test_http_context_refuses_bad_input(api, body):
    client, headers, _ = api
    r = client.post("/v1/context", json=body, headers=headers)
    assert r.status_code in (400, 422), r.text


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_memory_context(api):
    pytest.importorskip("mcp")
    from mcp import Client

    from remem.serve.mcp import create_server

    _, _, mem = api
    mem.add_many(MOVES, user_id="u")  # the MCP server here has no tenant: its own "u"
    async with Client(create_server(mem, log_level="CRITICAL")) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert {"max_tokens", "filters"} <= set(tools["memory_context"].input_schema["properties"])
        done = await c.call_tool("memory_context", {"user_id": "u", "query": QUESTION, "k": 3})
        assert not done.is_error
        block: Any = done.structured_content["context"]
        assert "superseded by a later memory" in block and "Porto" in block
        empty = await c.call_tool("memory_context", {"user_id": "x", "query": QUESTION})
        assert empty.structured_content == {"context": ""}
        for bad in ({"query": ""}, {"query": QUESTION, "max_tokens": 0}):
            failed = await c.call_tool("memory_context", {"user_id": "u", **bad})
            assert failed.is_error
