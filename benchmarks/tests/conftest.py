"""The harness's tests share the project's test helpers: tests/ goes on sys.path, so
``shared_data`` (where the data sets are) and the PostgreSQL and llama.cpp-server
fixtures (tests/pg.py, tests/llama_server.py) are the ones remem's own tests use."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from remem import Memory
from remem.embed import Embedder, create_embedder

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))

pytest_plugins = ["pg", "llama_server"]


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return create_embedder("minilm")


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
