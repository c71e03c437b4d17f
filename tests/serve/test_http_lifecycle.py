"""The worker app built from the environment (what ``remem serve --workers N`` runs):
its settings, and a clean shutdown that closes the Memory and writes ILSTMA's
buffered recall counts."""

from __future__ import annotations

from fastapi.testclient import TestClient

from remem import Memory
from remem.keys import KeyRing
from remem.serve.http import app_from_env
from store_rows import ilstma_db  # noqa: E402

TURNS = [
    "I adopted a retired racing greyhound named Biscuit last spring.",
    "Biscuit sleeps on the sofa and hates the rain.",
    "My sister is getting married in Lisbon next September.",
    "I've been learning to play the cello for about six months.",
]


def test_worker_app_reads_its_settings_and_closes_the_memory_on_shutdown(tmp_path, monkeypatch):
    db = str(tmp_path / "w.db")
    monkeypatch.setenv("REMEM_DB", db)
    monkeypatch.setenv("REMEM_ENGINE", "ilstma")
    monkeypatch.setenv("REMEM_SERVE_MAX_BODY", "2000")
    with Memory(db, engine="ilstma", llm="none") as mem:
        key, _ = KeyRing.of(mem).create("acme")
    app = app_from_env()
    worker_mem = app.state.memory
    headers = {"Authorization": f"Bearer {key}"}
    with TestClient(app) as client:
        assert client.get("/v1/health").json()["engine"] == "ilstma"
        big = {"user_id": "bob", "text": "x" * 3000}
        assert client.post("/v1/memories", json=big, headers=headers).status_code == 413
        body = {"user_id": "bob", "items": [{"text": t} for t in TURNS]}
        assert client.post("/v1/memories/batch", json=body, headers=headers).status_code == 201
        question = {"user_id": "bob", "query": "racing greyhound Biscuit", "k": 3}
        first = client.post("/v1/recall", json=question, headers=headers).json()
        assert first["cache_hit"] is False
        hits = 0
        for _ in range(3):
            again = client.post("/v1/recall", json=question, headers=headers).json()
            hits += bool(again["cache_hit"])
        assert hits == 3  # the same question again: answered from the cache
        assert not worker_mem._closed
    assert worker_mem._closed
    # the hits' recall counts were buffered in the worker and written at shutdown
    with Memory(db, engine="ilstma", llm="none") as mem:
        meta = ilstma_db(mem).table_meta("acme:bob")
        assert sum(n for n, _ in meta.values()) >= len(meta) + 3
