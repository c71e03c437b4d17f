"""The servers over an encrypted PostgreSQL store with a key store (issue 40, item 4):
a ``remem serve`` worker from its environment (REMEM_DB_KEY_FILE, REMEM_KEYRING), the
explorer's API and page, and the MCP tools, each with a tenant's users; the database
holds neither their words nor their ids (the tenant's name is visible: api_keys)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from remem import DatabaseKeyError, Memory
from remem.keys import KeyRing
from remem.serve.http import app_from_env, create_app
from remem.serve.settings import Settings

pytest.importorskip("psycopg")
pytest.importorskip("cryptography")

MASTER = "the servers' master key"
USER = "bobqorvandel"  # in no text: a raw read must not show it


@pytest.fixture
def sealed(pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The master key's file, REMEM_KEYRING set; after the test no table holds the
    user's id or the word 'greyhound'."""
    key_file = tmp_path / "master.key"
    key_file.write_text(MASTER + "\n")
    monkeypatch.setenv("REMEM_KEYRING", str(tmp_path / "keys"))
    monkeypatch.delenv("REMEM_DB_KEY", raising=False)
    yield key_file


def _raw(pg_sql) -> str:
    tables = [r[0] for r in pg_sql("SELECT tablename FROM pg_tables WHERE schemaname='public'")]
    return repr([pg_sql(f"SELECT * FROM {t}") for t in tables])


def test_a_worker_serves_an_encrypted_postgres_store(
    sealed: Path, pg_url: str, pg_sql, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What each ``remem serve`` worker runs, from the variables ``serve`` sets plus
    REMEM_KEYRING: write, search, list, export and erase a tenant's user."""
    opts = {"keyring": str(sealed.parent / "keys")}
    with Memory(pg_url, llm="none", key=MASTER, store_options=opts) as m:
        api_key, _ = KeyRing.of(m).create("acme")
    for name, value in Settings(db=pg_url, key_file=str(sealed)).to_env().items():
        monkeypatch.setenv(name, value)
    with TestClient(app_from_env()) as client:
        client.headers["Authorization"] = f"Bearer {api_key}"
        body = {"user_id": USER, "text": "Biscuit the greyhound sleeps on the sofa"}
        assert client.post("/v1/memories", json=body).status_code == 201
        r = client.post("/v1/search", json={"user_id": USER, "query": "where is the dog?"})
        assert r.status_code == 200 and r.json()["hits"][0]["text"] == body["text"]
        assert client.get("/v1/users").json()["users"] == [USER]
        r = client.get("/v1/export/jsonl", params={"user_id": USER})
        assert r.status_code == 200 and json.loads(r.text.splitlines()[0])["user_id"] == USER
        assert "greyhound" in r.text
        raw = _raw(pg_sql)
        assert USER not in raw and "greyhound" not in raw and "acme" in raw
        assert (
            client.request("DELETE", "/v1/users", params={"user_id": USER}).json()["deleted"] == 1
        )
        assert client.get("/v1/users").json()["users"] == []


def test_a_worker_without_the_key_store_does_not_start(
    sealed: Path, pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory(
        pg_url, llm="none", key=MASTER, store_options={"keyring": str(sealed.parent / "keys")}
    ) as m:
        m.add("Biscuit the greyhound sleeps on the sofa", user_id=USER)
    for name, value in Settings(db=pg_url, key_file=str(sealed)).to_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("REMEM_KEYRING", str(sealed.parent / "another"))
    with pytest.raises(DatabaseKeyError):
        app_from_env()


def test_the_explorer_reads_an_encrypted_postgres_store(sealed: Path, pg_url: str, pg_sql) -> None:
    """``remem ui``'s app (keyless, loopback) over the store opened with its master key
    and key store."""
    mem = Settings(db=pg_url, key_file=str(sealed), llm="none").open_memory()
    mem.add("Biscuit the greyhound sleeps on the sofa", user_id=USER)
    app = create_app(mem, keyless=True, metrics=False, close_memory=True)
    with TestClient(app, base_url="http://127.0.0.1:8090") as local:
        assert local.get("/v1/users").json()["users"] == [USER]
        r = local.post("/v1/trace", json={"user_id": USER, "query": "where does Biscuit sleep?"})
        assert r.status_code == 200 and "Biscuit" in r.text
        r = local.get("/v1/memories", params={"user_id": USER})
        assert r.status_code == 200 and "greyhound" in r.text
        assert local.get("/ui/").status_code == 200
    raw = _raw(pg_sql)
    assert USER not in raw and "greyhound" not in raw


@pytest.mark.anyio
async def test_the_mcp_tools_on_an_encrypted_postgres_store(
    sealed: Path, pg_url: str, pg_sql
) -> None:
    pytest.importorskip("mcp")
    from mcp import Client

    from remem.serve.mcp import create_server

    mem = Settings(db=pg_url, key_file=str(sealed), llm="none").open_memory()
    try:
        async with Client(create_server(mem, tenant="acme", log_level="CRITICAL")) as c:
            added = await c.call_tool(
                "add_memory", {"user_id": USER, "text": "Biscuit the greyhound sleeps on the sofa"}
            )
            assert not added.is_error, added.content
            hits = await c.call_tool("search_memory", {"user_id": USER, "query": "dog", "k": 1})
            assert hits.structured_content["hits"][0]["text"].startswith("Biscuit")
            users = await c.call_tool("list_users", {})
            assert users.structured_content == {"users": [USER]}
            raw = _raw(pg_sql)
            assert USER not in raw and "greyhound" not in raw
            gone = await c.call_tool("forget_user", {"user_id": USER})
            assert gone.structured_content == {"deleted": 1}
    finally:
        mem.close()
