"""Property-based tests of the HTTP API from its own OpenAPI schema (schemathesis).

Every operation gets valid and invalid requests generated from the schema, sent with
a valid key to the real app over a real SQLite file; none may end in a server error.
Examples are bounded and derandomized so the file stays fast and repeatable.
"""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path

import pytest
import schemathesis
from fastapi import FastAPI
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance

from remem import Memory
from remem.keys import KeyRing
from remem.serve.http import create_app

MAX_EXAMPLES = int(os.environ.get("REMEM_SCHEMA_EXAMPLES", "25"))
CONFIG = {
    "generation": {
        "mode": "all",  # valid and invalid requests
        "max-examples": MAX_EXAMPLES,
        "deterministic": True,
        "database": "none",
    },
    "phases": {"coverage": {"enabled": False}, "stateful": {"enabled": False}},
}
V1_ROUTES = {
    ("/v1/health", "get"),
    ("/v1/memories", "post"),
    ("/v1/memories", "get"),
    ("/v1/memories/batch", "post"),
    ("/v1/memories/{memory_id}", "get"),
    ("/v1/memories/{memory_id}", "patch"),
    ("/v1/memories/{memory_id}/history", "get"),
    ("/v1/memories/{memory_id}", "delete"),
    ("/v1/users", "get"),
    ("/v1/users", "delete"),
    ("/v1/search", "post"),
    ("/v1/recall", "post"),
    ("/v1/answer", "post"),
    ("/v1/context", "post"),
    ("/v1/export", "get"),
    ("/v1/import", "post"),
    ("/v1/export/jsonl", "get"),
    ("/v1/import/jsonl", "post"),
    ("/v1/trace", "post"),
    ("/v1/short-term", "get"),
    ("/v1/engine", "get"),
}


@schemathesis.serializer("application/x-ndjson")
def _ndjson(ctx, value):
    """The JSONL import's body: the text the schema's ``string`` generates, as UTF-8;
    anything else (negative cases) as its JSON (``bytes(n)`` of a large int would
    allocate n bytes)."""
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text.encode("utf-8", "surrogatepass")


MAY_ALL_MISS = {
    ("/v1/short-term", "get"),  # the served engine (hybrid) has no short-term memory: 422
    ("/v1/memories/{memory_id}", "get"),
    ("/v1/memories/{memory_id}", "patch"),
    ("/v1/memories/{memory_id}/history", "get"),
    ("/v1/memories/{memory_id}", "delete"),
    ("/v1/import", "post"),
    ("/v1/import/jsonl", "post"),  # a random body is no export: 422
}


@dataclass
class Served:
    app: FastAPI
    mem: Memory
    key: str
    db: Path

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}"}


@pytest.fixture
def served(open_memory, tmp_path: Path) -> Served:
    db = tmp_path / "schema.db"
    mem = open_memory(db, "hybrid")
    key, _ = KeyRing.of(mem).create("acme")
    app = create_app(mem)
    # something to find, so reads and deletes of real data get exercised too
    with TestClient(app) as c:
        r = c.post(
            "/v1/memories/batch",
            json={"user_id": "bob", "items": [{"text": "My sister lives in Lisbon."}]},
            headers={"Authorization": f"Bearer {key}"},
        )
        assert r.status_code == 201
    return Served(app, mem, key, db)


@pytest.fixture
def api_schema(served: Served):
    return schemathesis.openapi.from_asgi(
        "/openapi.json", served.app, config=schemathesis.Config.from_dict(CONFIG)
    )


# One pytest item per operation. (``schemathesis.pytest.from_fixture`` would run them
# all as subtests of one item, but schemathesis 4.32.5's lazy loader touches
# ``request.node._nodeid``, which pytest 9 no longer has.)
@pytest.mark.parametrize(
    ("path", "method"), sorted(V1_ROUTES | {("/metrics", "get")}), ids=lambda v: str(v)
)
def test_no_operation_is_a_server_error(api_schema, served: Served, path: str, method: str):
    operation = api_schema[path][method.upper()]
    cases = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )
    seen: list[int] = []

    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=cases)
    def check(case) -> None:
        response = case.call(headers=served.headers)
        seen.append(response.status_code)
        assert response.status_code < 500, (case.method, case.path, response.text)
        # every response, success or error, has the shape the schema documents
        case.validate_response(response, checks=[not_a_server_error, response_schema_conformance])
        if response.status_code >= 400:  # every error has the stable JSON shape
            body = response.json()
            assert set(body) == {"error"} and isinstance(body["error"]["code"], str)

    check()
    # examples really ran, and valid ones got through (random ids and random tables
    # are expected to miss: 404 and 422)
    assert len(seen) >= (1 if path in ("/metrics", "/v1/health") else 10)
    if (path, method) not in MAY_ALL_MISS:
        assert any(s < 400 for s in seen), seen
    # whatever was sent, the tables are intact and the key still works
    con = sqlite3.connect(served.db)
    try:
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        con.close()
    assert {"memories", "api_keys"} <= tables
    with TestClient(served.app) as c:
        r = c.post("/v1/search", json={"user_id": "bob", "query": "Lisbon"}, headers=served.headers)
        assert r.status_code == 200
        texts = [h["text"] for h in r.json()["hits"]]
        assert "My sister lives in Lisbon." in texts or (path, method) == ("/v1/users", "delete")


def test_openapi_lists_security_and_every_route(served: Served):
    with TestClient(served.app) as c:
        doc = c.get("/openapi.json").json()
    schemes = doc["components"]["securitySchemes"]
    assert {"type": "http", "scheme": "bearer"}.items() <= schemes["HTTPBearer"].items()
    assert schemes["APIKeyHeader"] == {"type": "apiKey", "in": "header", "name": "X-API-Key"}
    listed = {(path, method) for path, ops in doc["paths"].items() for method in ops}
    assert listed >= V1_ROUTES
    assert {p for p, _ in listed} <= {p for p, _ in V1_ROUTES} | {"/metrics"}
    for path, method in V1_ROUTES:
        op = doc["paths"][path][method]
        security = {name for req in op.get("security", []) for name in req}
        if path == "/v1/health":
            assert security == set()
        else:  # both ways of sending the key are declared on every keyed route
            assert security == {"HTTPBearer", "APIKeyHeader"}, (path, method)
    # the strict request bodies are visible to clients
    body = doc["components"]["schemas"]["AddRequest"]
    assert body["additionalProperties"] is False
    assert set(body["required"]) == {"user_id", "text"}
    query = doc["components"]["schemas"]["QueryRequest"]["properties"]["k"]
    assert query["minimum"] == 1 and query["maximum"] == 200
