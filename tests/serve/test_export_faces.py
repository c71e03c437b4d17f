"""The JSONL export and import over HTTP (``GET /v1/export/jsonl``, streamed, and
``POST /v1/import/jsonl``): behind the tenant view, so one tenant's export never holds
another's memories, and an import names the tenant's user, never the stored one."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from remem.keys import KeyRing
from remem.serve.http import create_app

NDJSON = {"Content-Type": "application/x-ndjson"}


@pytest.fixture
def http(open_memory, tmp_path: Path):
    mem = open_memory(tmp_path / "faces.db", "hybrid")
    ring = KeyRing.of(mem)
    keys = {t: ring.create(t)[0] for t in ("acme", "globex")}
    with TestClient(create_app(mem), raise_server_exceptions=False) as client:

        def req(method: str, path: str, tenant: str = "acme", **kw: Any):
            headers = {"Authorization": f"Bearer {keys[tenant]}", **kw.pop("headers", {})}
            return client.request(method, path, headers=headers, **kw)

        yield req


def _add(req, text: str, user: str = "bob", tenant: str = "acme") -> str:
    r = req("POST", "/v1/memories", tenant, json={"user_id": user, "text": text, "metadata": {}})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _export(req, user: str = "bob", tenant: str = "acme", **params: Any) -> list[dict]:
    r = req("GET", "/v1/export/jsonl", tenant, params={"user_id": user, **params})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/x-ndjson")
    return [json.loads(line) for line in r.text.splitlines()]


def test_export_streams_the_tenants_user_and_imports_back(http):
    mid = _add(http, "My bike is red.")
    http("PATCH", f"/v1/memories/{mid}", json={"user_id": "bob", "text": "My bike is blue."})
    _add(http, "globex's bob: the vault code is 1234.", tenant="globex")
    head, row = _export(http, vectors="true")
    assert head["user_id"] == "bob" and row["user_id"] == "bob"  # never the stored name
    assert row["id"] == mid and [v["text"] for v in row["history"]] == [
        "My bike is red.",
        "My bike is blue.",
    ]
    assert len(row["vector"]) == 384
    body = "\n".join(json.dumps(x) for x in (head, row)).encode()
    r = http("POST", "/v1/import/jsonl", "globex", params={"user_id": "ann"}, content=body,
             headers=NDJSON)  # fmt: skip
    assert r.status_code == 201 and r.json() == {"imported": 1}
    r = http("GET", "/v1/memories", "globex", params={"user_id": "ann"})
    assert [m["text"] for m in r.json()["memories"]] == ["My bike is blue."]
    # acme's bob is as he was; globex's ann got her own id (acme's bob holds that one)
    assert _export(http)[1]["history"] == row["history"]
    assert _export(http, "ann", "globex")[1]["id"] != mid


def test_one_tenants_export_never_shows_anothers(http):
    _add(http, "acme's bob likes tea.")
    _add(http, "globex's bob: the vault code is 1234.", tenant="globex")
    _add(http, "acme's eve: a secret.", user="eve")
    lines = _export(http)
    assert [r["text"] for r in lines[1:]] == ["acme's bob likes tea."]
    assert _export(http, "nobody")[1:] == []


def test_import_conflicts_and_bad_bodies(http):
    _add(http, "My bike is red.")
    head, row = _export(http)
    body = "\n".join(json.dumps(x) for x in (head, row)).encode()
    params = {"user_id": "bob"}
    r = http("POST", "/v1/import/jsonl", params=params, content=body, headers=NDJSON)
    assert r.status_code == 422 and "line 2: the user has a memory" in r.text
    r = http("POST", "/v1/import/jsonl", params={**params, "on_conflict": "skip"}, content=body)
    assert r.status_code == 201 and r.json() == {"imported": 0}
    r = http("POST", "/v1/import/jsonl", params={**params, "on_conflict": "merge"}, content=body)
    assert r.status_code == 422
    bad = json.dumps({**head, "version": 7}).encode() + b"\n" + json.dumps(row).encode()
    for content, message in (
        (bad, "line 1: written in version 7"),
        (body + b"\n{oops\n", "line 3: not valid JSON"),
        (b"", "line 1: an export starts with its header"),
    ):
        r = http("POST", "/v1/import/jsonl", params={"user_id": "cy"}, content=content)
        assert r.status_code == 422, r.text
        assert r.json()["error"]["code"] == "invalid_input" and message in r.text
    r = http("GET", "/v1/memories", params={"user_id": "cy"})
    assert r.json()["count"] == 0
    r = http("GET", "/v1/export/jsonl")  # no user
    assert r.status_code == 422
