"""Hard filters on every face (``remem/filters.py``): the CLI's options, the HTTP
API's ``filters`` object (422 ``invalid_filter`` on bad input) and the MCP tools'
``filters`` argument, each a thin pass-through to ``Memory(..., filters=)``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from remem import Memory
from remem.cli import main
from remem.keys import KeyRing
from remem.serve.http import create_app

ITEMS = [
    {"text": f"coffee talk {i}", "session_id": "a", "speaker": "Al", "metadata": {"n": i}}
    for i in range(6)
] + [
    {"text": f"garden talk {i}", "session_id": "b", "speaker": "Bea", "metadata": {"n": i}}
    for i in range(3)
]


@pytest.fixture
def api(open_memory, tmp_path: Path) -> Iterator[tuple[TestClient, dict[str, str], Memory]]:
    mem = open_memory(tmp_path / "f.db", "hybrid")
    key, _ = KeyRing.of(mem).create("acme")
    headers = {"Authorization": f"Bearer {key}"}
    with TestClient(create_app(mem), raise_server_exceptions=False) as client:
        r = client.post(
            "/v1/memories/batch", json={"user_id": "u", "items": ITEMS}, headers=headers
        )
        assert r.status_code == 201
        yield client, headers, mem


@pytest.mark.parametrize("path", ["/v1/search", "/v1/recall", "/v1/trace"])
def test_http_reads_take_filters(api, path):
    client, headers, _ = api
    body = {"user_id": "u", "query": "coffee talk", "k": 2, "filters": {"speaker": "Bea"}}
    r = client.post(path, json=body, headers=headers)
    assert r.status_code == 200, r.text
    data = r.json()
    hits = data["hits"] if "hits" in data else data["recall"]["hits"]
    assert len(hits) == 2 and {h["speaker"] for h in hits} == {"Bea"}


def test_http_answer_and_list_take_filters(api):
    client, headers, _ = api
    body = {"user_id": "u", "question": "what talk?", "filters": {"metadata": {"n": 2}}}
    r = client.post("/v1/answer", json=body, headers=headers)
    assert r.status_code == 200 and all(e["metadata"]["n"] == 2 for e in r.json()["evidence"])
    params = {"user_id": "u", "filters": json.dumps({"session_id": "b"}), "limit": 2}
    listed = client.get("/v1/memories", params=params, headers=headers).json()
    assert [m["text"] for m in listed["memories"]] == ["garden talk 0", "garden talk 1"]


@pytest.mark.parametrize(
    "filters", [{"sesion": "a"}, {"after": "soon"}, {"speaker": 3}, ["a"], "x"]
)
def test_http_bad_filters_are_422_invalid_filter(api, filters):
    client, headers, _ = api
    body = {"user_id": "u", "query": "coffee", "filters": filters}
    r = client.post("/v1/search", json=body, headers=headers)
    assert r.status_code == 422
    if isinstance(filters, dict):  # a non-object is refused by the body's schema
        assert r.json()["error"]["code"] == "invalid_filter"
    r = client.get("/v1/memories", params={"user_id": "u", "filters": "{"}, headers=headers)
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_filter"


def _cli(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_filter_options(capsys, open_memory, tmp_path):
    db = str(tmp_path / "c.db")
    open_memory(db, "hybrid").add_many(ITEMS, user_id="u")
    base = ["--db", db]
    code, out, _ = _cli(capsys, *base, "search", "coffee talk", "--user", "u", "-k", "2",
                        "--session", "b", "--json")  # fmt: skip
    assert code == 0
    assert [json.loads(x)["session_id"] for x in out.splitlines()] == ["b", "b"]
    code, out, _ = _cli(capsys, *base, "list", "--user", "u", "--meta", "n=1", "--meta", "n=2",
                        "--speaker", "Al", "--json")  # fmt: skip
    assert code == 0 and [json.loads(x)["text"] for x in out.splitlines()] == [
        "coffee talk 1",
        "coffee talk 2",
    ]
    code, out, _ = _cli(capsys, *base, "recall", "talk", "--user", "u", "--json",
                        "--speaker", "Bea", "--after", "2000-01-01")  # fmt: skip
    assert code == 0 and {h["speaker"] for h in json.loads(out)["hits"]} == {"Bea"}
    code, out, _ = _cli(capsys, *base, "ask", "which talk?", "--user", "u", "--llm", "none",
                        "--json", "--meta", "n=2", "--session", "b")  # fmt: skip
    assert code == 0 and all(e["text"] == "garden talk 2" for e in json.loads(out)["evidence"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--meta", "novalue"], "is not KEY=VALUE"),
        (["--after", "tomorrow"], "not ISO-8601"),
        (["--event-after", "2025-02-02", "--event-before", "2025-01-01"], "must be before"),
    ],
)
def test_cli_bad_filters_exit_2(capsys, open_memory, tmp_path, argv, message):
    db = str(tmp_path / "c.db")
    open_memory(db, "bm25").add("coffee", user_id="u")
    code, _, err = _cli(capsys, "--db", db, "search", "coffee", "--user", "u", *argv)
    assert code == 2 and message in err


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_tools_take_filters(api):
    pytest.importorskip("mcp")
    from mcp import Client

    from remem.serve.mcp import create_server

    _, _, mem = api
    mem.add_many(ITEMS, user_id="u")  # the MCP server here has no tenant: its own "u"
    async with Client(create_server(mem, log_level="CRITICAL")) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        for name in ("search_memory", "recall_memory", "list_memories", "answer_question"):
            assert "filters" in tools[name].input_schema["properties"], name
        args: dict[str, Any] = {"user_id": "u", "query": "coffee talk", "k": 2}
        done = await c.call_tool("search_memory", {**args, "filters": {"session_id": "b"}})
        assert not done.is_error
        assert {h["session_id"] for h in done.structured_content["hits"]} == {"b"}
        listed = await c.call_tool("list_memories", {"user_id": "u", "filters": {"speaker": "Bea"}})
        assert len(listed.structured_content["memories"]) == 3
        bad = await c.call_tool("search_memory", {**args, "filters": {"nope": 1}})
        assert bad.is_error and "unknown filter keys" in bad.content[0].text
