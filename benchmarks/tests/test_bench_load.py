"""The load test end to end: a real ``remem serve --workers 2`` under concurrent
clients, on SQLite and on a real PostgreSQL; every acknowledged write is found."""

from __future__ import annotations

import pytest

from remem_bench.load import run_load
from remem_bench.report import load_tables


def _check(summary: dict) -> None:
    assert summary["errors"] == 0, summary["error_samples"]
    assert set(summary["ops"]) == {"add", "search", "answer"}
    assert all(o["n"] > 0 for o in summary["ops"].values())
    assert summary["writes_acknowledged"] == summary["ops"]["add"]["n"] > 0
    assert summary["writes_found"] == summary["writes_acknowledged"]
    assert summary["writes_lost"] == 0 and summary["writes_phantom"] == 0
    title, header, rows = load_tables(summary)[0]
    assert "lost 0" in title and len(rows) == 3 and header[0] == "operation"


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_load_test_loses_no_write(backend, tmp_path, request):
    db = str(tmp_path / "load.db") if backend == "sqlite" else request.getfixturevalue("pg_url")
    summary = run_load(db=db, workers=2, clients=6, duration=3, users_per_tenant=2)
    assert summary["backend"] == ("sqlite" if backend == "sqlite" else "postgresql")
    _check(summary)
