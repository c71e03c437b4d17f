"""Input the HTTP API and the MCP tools must refuse or let through the way the library
does (issue 34): vectors a dot product cannot rank, blank-looking texts and ids,
integers too long for JSON, and ``skip_blank`` for histories with blank turns. The
real app over a real SQLite file, driven by FastAPI's TestClient and the MCP SDK's
in-process client."""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from remem import Memory
from remem.keys import KeyRing
from remem.serve.http import create_app

TURNS = ["the cellar door squeaks", "my bike is red", "I drink green tea", "we rent a flat"]


@dataclass
class Served:
    client: TestClient
    mem: Memory
    db: Path
    headers: dict[str, str]

    def post(self, path: str, body: Any, **params: Any) -> Any:
        return self.client.post(path, json=body, headers=self.headers, params=params)

    def get(self, path: str, **params: Any) -> Any:
        return self.client.get(path, headers=self.headers, params=params)

    def count(self, user: str) -> int:
        return int(self.get("/v1/memories", user_id=user).json()["count"])


@pytest.fixture
def served(open_memory, tmp_path: Path) -> Iterator[Served]:
    db = tmp_path / "input.db"
    mem = open_memory(db, "dense")
    key, _ = KeyRing.of(mem).create("acme")
    with TestClient(create_app(mem), raise_server_exceptions=False) as client:
        yield Served(client, mem, db, {"Authorization": f"Bearer {key}"})


def _code(r: Any) -> str:
    return str(r.json()["error"]["code"])


def _exported(api: Served) -> dict[str, Any]:
    assert api.post("/v1/memories/batch", {"user_id": "ana", "items": TURNS}).status_code == 201
    r = api.get("/v1/export", user_id="ana")
    assert r.status_code == 200
    return dict(r.json())


# -- vectors (finding 5) --------------------------------------------------------------------


@pytest.mark.parametrize("component", [1e39, -1e39, 1e300, 30.0], ids=str)
def test_import_refuses_a_vector_that_is_infinite_as_float32_or_too_long(served, component):
    table = _exported(served)
    table["entries"][1]["embedding"][0] = component
    r = served.post("/v1/import", table, user_id="bo")
    assert r.status_code == 422 and _code(r) == "invalid_input", r.text
    assert "entry 1: embedding must be 384 numbers, finite as float32" in r.text
    assert served.count("bo") == 0


def test_a_vector_damaged_in_the_file_never_makes_a_null_score(served, embedder):
    _exported(served)
    ids = [m["id"] for m in served.get("/v1/memories", user_id="ana").json()["memories"]]
    with sqlite3.connect(served.db) as con:
        blob = np.full(384, np.inf, dtype="<f4").tobytes()
        con.execute("UPDATE memories SET embedding = ? WHERE id = ?", (blob, ids[1]))
    served.mem.close()  # the next Memory reads the file afresh
    with Memory(served.db, engine="dense", embedder=embedder, llm="none") as m:
        key, _ = KeyRing.of(m).create("acme")
        with TestClient(create_app(m), raise_server_exceptions=False) as client:
            headers = {"Authorization": f"Bearer {key}"}
            body = {"user_id": "ana", "query": "which door squeaks?", "k": 4}
            r = client.post("/v1/search", json=body, headers=headers)
            assert r.status_code == 200, r.text
            hits = r.json()["hits"]
            assert hits[0]["id"] == ids[0]
            assert all(isinstance(h["score"], float) and math.isfinite(h["score"]) for h in hits)
            assert client.get("/v1/export", params={"user_id": "ana"}, headers=headers).is_success


# -- blank-looking texts and ids, long integers (findings 9 and 10) -------------------------


@pytest.mark.parametrize("text", ["\U0001d159", "\uffff", "\u0378", "\ue000"], ids=ascii)
def test_texts_that_look_blank_are_invalid_input(served, text):
    r = served.post("/v1/memories", {"user_id": "ana", "text": text})
    assert r.status_code == 422 and _code(r) == "invalid_input"
    assert served.count("ana") == 0


def test_a_user_id_of_invisible_characters_is_invalid_input(served):
    r = served.post("/v1/memories", {"user_id": "\u200b", "text": "a fact"})
    assert r.status_code == 422 and _code(r) == "invalid_input"
    assert "user_id must not be empty" in r.text
    assert served.get("/v1/users").json() == {"users": []}


def test_a_metadata_integer_of_over_640_digits_is_invalid_input(served):
    r = served.post("/v1/memories", {"user_id": "ana", "text": "x", "metadata": {"n": 10**700}})
    assert r.status_code == 422 and _code(r) == "invalid_input"
    assert "has more than 640 digits" in r.text
    assert served.count("ana") == 0


# -- skip_blank (finding 14) ----------------------------------------------------------------


def test_batch_skip_blank_stores_the_rest_and_names_the_skipped(served):
    items = ["hello", "\u200b", {"text": " ", "speaker": "Ana"}, {"text": "world"}]
    r = served.post("/v1/memories/batch", {"user_id": "ana", "items": items})
    assert r.status_code == 422 and "item 1" in r.json()["error"]["message"]
    r = served.post("/v1/memories/batch", {"user_id": "ana", "items": items, "skip_blank": True})
    assert r.status_code == 201, r.text
    body = r.json()
    assert body["skipped"] == [1, 2] and len(body["ids"]) == 2
    listed = served.get("/v1/memories", user_id="ana").json()["memories"]
    assert [m["id"] for m in listed] == body["ids"]
    plain = served.post("/v1/memories/batch", {"user_id": "ana", "items": ["again"]}).json()
    assert plain["skipped"] == []


def test_batch_skip_blank_is_a_strict_bool(served):
    body = {"user_id": "ana", "items": ["\u200b"], "skip_blank": "yes"}
    r = served.post("/v1/memories/batch", body)
    assert r.status_code == 422
    assert served.count("ana") == 0


def test_import_skip_blank_leaves_out_blank_entries(served):
    table = _exported(served)
    table["entries"][2]["text"] = "\u200b"
    r = served.post("/v1/import", table, user_id="bo")
    assert r.status_code == 422 and "item 2" in r.text
    r = served.post("/v1/import", table, user_id="bo", skip_blank="true")
    assert r.status_code == 201, r.text
    assert r.json()["skipped"] == [2] and len(r.json()["ids"]) == 3
    assert served.count("bo") == 3


def test_the_schema_documents_skip_blank_and_skipped(served):
    schema = served.client.get("/openapi.json").json()
    batch = schema["paths"]["/v1/memories/batch"]["post"]
    ref = batch["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
    assert request["properties"]["skip_blank"]["type"] == "boolean"
    imported = schema["paths"]["/v1/import"]["post"]
    assert "skip_blank" in {p["name"] for p in imported["parameters"]}
    for op in (batch, imported):
        ref = op["responses"]["201"]["content"]["application/json"]["schema"]["$ref"]
        out = schema["components"]["schemas"][ref.rsplit("/", 1)[1]]
        assert set(out["required"]) == {"ids", "skipped"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_the_mcp_batch_tool_takes_skip_blank(served):
    pytest.importorskip("mcp")
    from mcp import Client

    from remem.serve.mcp import create_server

    items = ["hello", "\u200b", "world"]
    async with Client(create_server(served.mem, log_level="CRITICAL")) as c:
        tools = {t.name: t for t in (await c.list_tools()).tools}
        assert "skip_blank" in tools["add_memories"].input_schema["properties"]
        refused = await c.call_tool("add_memories", {"user_id": "ana", "items": items})
        assert refused.is_error and "item 1" in refused.content[0].text
        args = {"user_id": "ana", "items": items, "skip_blank": True}
        done = await c.call_tool("add_memories", args)
        assert not done.is_error and done.structured_content["skipped"] == [1]
        assert len(done.structured_content["ids"]) == 2
