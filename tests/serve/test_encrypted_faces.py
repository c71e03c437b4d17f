"""The servers over an encrypted SQLite file: the key comes from a file or the
environment, the workers are handed where it is and never the key itself, and the
API, the explorer and the keys work as over a plain file."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from remem import DatabaseKeyError, Memory
from remem.keys import KeyRing
from remem.serve.http import app_from_env, create_app
from remem.serve.settings import Settings, db_key

pytest.importorskip("apsw", reason="the 'encrypt' extra (apsw-sqlite3mc)")

KEY = "the servers' passphrase"


@pytest.fixture
def encrypted(tmp_path: Path, embedder) -> tuple[Path, Path]:
    """An encrypted database with one user's memories, and its key file."""
    db, key_file = tmp_path / "served.db", tmp_path / "db.key"
    key_file.write_text(KEY + "\n")
    with Memory(db, engine="hybrid", embedder=embedder, llm="none", key=KEY) as m:
        m.add_many(["Biscuit the greyhound sleeps on the sofa", "We walked to Lisbon"], "bob")
    return db, key_file


def test_the_key_comes_from_the_file_else_the_environment(tmp_path: Path) -> None:
    key_file = tmp_path / "k"
    key_file.write_text("from the file\n")
    env = {"REMEM_DB_KEY": "from the environment"}
    assert db_key(str(key_file), env) == "from the file"
    assert db_key("", env) == "from the environment"
    assert db_key("", {}) is None


def test_the_workers_get_the_key_files_path_never_the_key(encrypted: tuple[Path, Path]) -> None:
    db, key_file = encrypted
    settings = Settings.from_env({"REMEM_DB": str(db), "REMEM_DB_KEY_FILE": str(key_file)})
    assert settings.key_file == str(key_file)
    handed = settings.to_env()
    assert handed["REMEM_DB_KEY_FILE"] == str(key_file)
    assert all(KEY not in value for value in handed.values())
    assert KEY not in repr(settings)


def test_a_worker_serves_an_encrypted_file(
    encrypted: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What each ``remem serve`` worker runs (``app_from_env``), from the variables
    ``serve`` sets: the keyed API over the encrypted file."""
    db, key_file = encrypted
    with Memory(db, engine="hybrid", llm="none", key=KEY) as m:
        api_key, _ = KeyRing.of(m).create("acme")
    for name, value in Settings(db=str(db), key_file=str(key_file)).to_env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("REMEM_DB_KEY", raising=False)
    with TestClient(app_from_env()) as client:
        headers = {"Authorization": f"Bearer {api_key}"}
        r = client.post("/v1/memories", headers=headers, json={"user_id": "bob", "text": "Tea"})
        assert r.status_code == 201, r.text
        r = client.post(
            "/v1/search", headers=headers, json={"user_id": "bob", "query": "tea", "k": 1}
        )
        assert r.status_code == 200 and r.json()["hits"][0]["text"] == "Tea"


def test_a_worker_without_the_key_does_not_start(
    encrypted: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    db, _ = encrypted
    monkeypatch.setenv("REMEM_DB", str(db))
    monkeypatch.delenv("REMEM_DB_KEY", raising=False)
    monkeypatch.delenv("REMEM_DB_KEY_FILE", raising=False)
    with pytest.raises(DatabaseKeyError):
        app_from_env()


def test_the_explorer_reads_an_encrypted_file(encrypted: tuple[Path, Path]) -> None:
    """``remem ui``'s app (keyless, loopback) over the file opened with its key."""
    db, key_file = encrypted
    mem = Settings(db=str(db), key_file=str(key_file), llm="none").open_memory()
    app = create_app(mem, keyless=True, metrics=False, close_memory=True)
    with TestClient(app, base_url="http://127.0.0.1:8090") as local:
        assert local.get("/v1/users").json()["users"] == ["bob"]
        r = local.post("/v1/trace", json={"user_id": "bob", "query": "where does Biscuit sleep?"})
        assert r.status_code == 200 and "Biscuit" in r.text
        assert local.get("/ui/").status_code == 200
