"""One validation for both faces: a call the HTTP API refuses, the MCP tools refuse too
(unknown fields, strict types, k and page sizes capped), and nothing is stored.

The HTTP side is the real app (FastAPI's TestClient), the MCP side the SDK's own client
against the real server object; both over the same real SQLite file.
"""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

mcp = pytest.importorskip("mcp")

from mcp import Client  # noqa: E402

from remem.keys import KeyRing  # noqa: E402
from remem.serve.http import create_app  # noqa: E402
from remem.serve.mcp import create_server  # noqa: E402
from remem.serve.schema import MAX_K, MAX_PAGE  # noqa: E402
from remem.validation import MAX_COUNT  # noqa: E402

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


#: (MCP tool, HTTP route, arguments): every one is refused by both faces
BOTH = [
    ("add_memory", "/v1/memories", {"user_id": "bob", "text": "hello", "tenant": "t2"}),
    ("add_memory", "/v1/memories", {"user_id": "bob", "text": "hello", "bogus": 1}),
    ("add_memory", "/v1/memories", {"user_id": "bob", "text": 5}),
    ("add_memory", "/v1/memories", {"user_id": 5, "text": "hello"}),
    ("add_memory", "/v1/memories", {"user_id": "bob", "text": "hello", "speaker": 1}),
    ("add_memory", "/v1/memories", {"user_id": "bob", "text": "hi", "timestamp": 1683554160}),
    ("add_memory", "/v1/memories", {"user_id": "bob", "text": "hello", "metadata": []}),
    ("add_memories", "/v1/memories/batch", {"user_id": "bob", "items": [{"text": "x", "y": 1}]}),
    ("add_memories", "/v1/memories/batch", {"user_id": "bob", "items": [5]}),
    ("add_memories", "/v1/memories/batch", {"user_id": "bob", "items": ["x"], "tenant": "t2"}),
    ("search_memory", "/v1/search", {"user_id": "bob", "query": "q", "bogus": 1}),
    ("search_memory", "/v1/search", {"user_id": "bob", "query": "q", "k": "5"}),
    ("search_memory", "/v1/search", {"user_id": "bob", "query": "q", "k": 5.0}),
    ("search_memory", "/v1/search", {"user_id": "bob", "query": "q", "k": True}),
    ("search_memory", "/v1/search", {"user_id": "bob", "query": "q", "k": 0}),
    ("search_memory", "/v1/search", {"user_id": "bob", "query": "q", "k": MAX_K + 1}),
    ("search_memory", "/v1/search", {"user_id": "bob", "query": "q", "k": 10**9}),
    ("search_memory", "/v1/search", {"user_id": "bob", "query": "q", "k": 10**20}),
    ("search_memory", "/v1/search", {"user_id": "bob", "query": "q", "now": 1683554160}),
    ("recall_memory", "/v1/recall", {"user_id": "bob", "query": "q", "k": 10**9}),
    ("recall_memory", "/v1/recall", {"user_id": "bob", "question": "q"}),
    ("answer_question", "/v1/answer", {"user_id": "bob", "question": "q", "k": "10"}),
    ("answer_question", "/v1/answer", {"user_id": "bob", "question": "q", "k": 10**9}),
    ("answer_question", "/v1/answer", {"user_id": "bob", "query": "q"}),
]

#: tools whose HTTP twin takes query parameters (text by nature): the same bounds
MCP_ONLY = [
    ("list_memories", {"user_id": "bob", "limit": "5"}),
    ("list_memories", {"user_id": "bob", "limit": MAX_PAGE + 1}),
    ("list_memories", {"user_id": "bob", "offset": MAX_COUNT + 1}),
    ("list_memories", {"user_id": "bob", "offset": 10**20}),
    ("list_memories", {"user_id": "bob", "tenant": "t2"}),
    ("get_memory", {"user_id": "bob", "memory_id": "m", "tenant": "t2"}),
    ("forget", {"user_id": "bob", "memory_id": 5}),
    ("forget_user", {"user_id": "bob", "tenant": "t2"}),
    ("list_users", {"tenant": "t2"}),
]


def _problem(text: str, arguments: dict[str, Any]) -> None:
    """The message names what was wrong: an unknown field, or the field and its rule."""
    assert text.strip(), "an error without a message"
    assert any(name in text for name in arguments), text


async def test_mcp_refuses_what_http_refuses(open_memory, tmp_path) -> None:
    mem = open_memory(tmp_path / "both.db", "hybrid")
    key, _ = KeyRing.of(mem).create("acme")
    http = TestClient(create_app(mem), raise_server_exceptions=False)
    headers = {"Authorization": f"Bearer {key}"}
    async with Client(create_server(mem, tenant="acme", log_level="CRITICAL")) as c:
        for tool, route, arguments in BOTH:
            r = http.post(route, json=arguments, headers=headers)
            assert r.status_code == 422, (route, arguments, r.text)
            assert r.json()["error"]["code"] == "invalid_request"
            result = await c.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments, result.structured_content)
            _problem(result.content[0].text, arguments)
        for tool, arguments in MCP_ONLY:
            result = await c.call_tool(tool, arguments)
            assert result.is_error, (tool, arguments, result.structured_content)
            _problem(result.content[0].text, arguments)
    assert mem.users() == []  # nothing refused was stored, by either face


async def test_the_bounds_themselves_are_accepted_by_both(open_memory, tmp_path) -> None:
    mem = open_memory(tmp_path / "edges.db", "hybrid")
    key, _ = KeyRing.of(mem).create("acme")
    http = TestClient(create_app(mem), raise_server_exceptions=False)
    headers = {"Authorization": f"Bearer {key}"}
    async with Client(create_server(mem, tenant="acme", log_level="CRITICAL")) as c:
        # plain strings as items, as the library takes them, on both faces
        body = {"user_id": "bob", "items": ["I keep my passport in the blue drawer."]}
        assert http.post("/v1/memories/batch", json=body, headers=headers).status_code == 201
        assert not (await c.call_tool("add_memories", body)).is_error
        query = {"user_id": "bob", "query": "passport", "k": MAX_K}
        r = http.post("/v1/search", json=query, headers=headers)
        assert r.status_code == 200 and len(r.json()["hits"]) == 2
        found = await c.call_tool("search_memory", query)
        assert not found.is_error and len(found.structured_content["hits"]) == 2
        page = {"user_id": "bob", "limit": MAX_PAGE, "offset": MAX_COUNT}
        listed = await c.call_tool("list_memories", page)
        assert not listed.is_error and listed.structured_content["memories"] == []
        r = http.get("/v1/memories", params=page, headers=headers)
        assert r.status_code == 200 and r.json()["memories"] == []
        tools = {t.name: t.input_schema for t in (await c.list_tools()).tools}
    for name, schema in tools.items():
        assert schema.get("additionalProperties") is False, name
    assert tools["search_memory"]["properties"]["k"]["maximum"] == MAX_K
    assert tools["list_memories"]["properties"]["limit"]["maximum"] == MAX_PAGE
    assert tools["list_memories"]["properties"]["offset"]["maximum"] == MAX_COUNT


async def test_a_direct_call_is_held_to_the_schema_too(mem) -> None:
    """``call_tool`` on the server object (no client, no request: how an embedding
    application calls it) refuses an undeclared argument as the wire does, before the
    tool runs; a declared call goes through."""
    from mcp.server.mcpserver.exceptions import ToolError

    server = create_server(mem, tenant="acme", log_level="CRITICAL")
    for tool, arguments in [
        ("add_memory", {"user_id": "bob", "text": "hello", "tenant": "t2"}),
        ("list_users", {"tenant": "t2"}),
    ]:
        with pytest.raises(ToolError, match=r"tenant\n  Extra inputs are not permitted"):
            await server.call_tool(tool, arguments)
    assert mem.users() == []
    added = await server.call_tool("add_memory", {"user_id": "bob", "text": "hello"})
    assert not added.is_error and len(mem.users()) == 1
