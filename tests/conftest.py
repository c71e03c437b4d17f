"""Shared fixtures: one real MiniLM embedder per session, real SQLite files in tmp_path."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from remem import Memory
from remem.embed import Embedder, create_embedder

# PostgreSQL, llama.cpp-server and browser fixtures (tests/pg.py, tests/llama_server.py,
# tests/browser.py; tests/ is on sys.path like sample_conversation.py)
pytest_plugins = ["pg", "llama_server", "browser"]

SENTENCES = [
    "I adopted a retired racing greyhound named Biscuit last spring.",
    "My sister is getting married in Lisbon next September.",
    "I've been learning to play the cello for about six months.",
    "The kitchen sink started leaking again on Tuesday night.",
    "We booked a week of hiking in the Dolomites for July.",
    "My favourite dessert is my grandmother's lemon tart.",
    "I switched jobs and now work as a data engineer at a bike company.",
    "The doctor told me to cut back on coffee because of my heart rate.",
    "Our book club is reading a long Russian novel this month.",
    "I planted tomatoes, basil and chillies on the balcony.",
    "My laptop battery died during the quarterly presentation.",
    "We are saving money to buy a small flat near the river.",
    "I ran my first half marathon in just under two hours.",
    "The neighbours' baby cries every night around three a.m.",
    "I'm allergic to penicillin, so I always tell new doctors.",
    "My daughter wants a telescope for her tenth birthday.",
    "We painted the living room a dark green colour.",
    "I failed my driving test twice before finally passing.",
    "Our team won the pub quiz thanks to a question about volcanoes.",
    "I started volunteering at the animal shelter on Saturdays.",
]


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return create_embedder("minilm")


@pytest.fixture(scope="session")
def sentences() -> list[str]:
    return list(SENTENCES)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "mem.db"


@pytest.fixture
def open_memory(embedder: Embedder) -> Iterator[Callable[..., Memory]]:
    """Factory for Memory objects that are all closed at teardown."""
    opened: list[Memory] = []

    def factory(path: str | Path = ":memory:", engine: str = "hybrid", **kw) -> Memory:
        kw.setdefault("llm", "none")  # the engines' offline paths; LLM tests opt in
        mem = Memory(path, engine=engine, embedder=embedder, **kw)
        opened.append(mem)
        return mem

    yield factory
    for mem in opened:
        mem.close()


@pytest.fixture
def mem(open_memory) -> Memory:
    """An in-memory hybrid Memory."""
    return open_memory(":memory:", "hybrid")


def _raw_bytes(db: Path) -> bytes:
    """Every byte SQLite keeps on disk for the database: the file, its WAL and the WAL's
    index (``-shm``), or its rollback journal."""
    out = b""
    for p in (Path(db), Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}-journal")):
        if p.exists():
            out += p.read_bytes()
    return out


def _sql(db: Path, query: str, params: tuple = ()) -> list[tuple]:
    """Run one query on the file with a separate, plain sqlite3 connection."""
    con = sqlite3.connect(db)
    try:
        return con.execute(query, params).fetchall()
    finally:
        con.close()


@pytest.fixture
def raw_bytes() -> Callable[[Path], bytes]:
    return _raw_bytes


@pytest.fixture
def sql() -> Callable[..., list[tuple]]:
    return _sql
