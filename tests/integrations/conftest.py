"""The integrations' tests run each framework, as installed from PyPI by the ``dev``
extra, over a real Memory: a SQLite file in tmp_path and the real MiniLM embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from remem import Memory


@pytest.fixture
def file_mem(open_memory, tmp_path: Path) -> Memory:
    """A hybrid Memory over a real SQLite file (closed at teardown)."""
    return open_memory(tmp_path / "x.db", "hybrid")
