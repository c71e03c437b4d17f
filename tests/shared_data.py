"""Where the benchmark data sets are, for the tests that read them: the project's
``shared/data`` folder, looked for above this checkout (the package itself never
reads it; tests that need it skip where it is absent, as on a bare clone)."""

from __future__ import annotations

from pathlib import Path

import pytest


def find_data(*parts: str) -> Path | None:
    """``shared/data/<parts>`` in the nearest folder above the tests that has it."""
    for parent in Path(__file__).resolve().parents:
        candidate = parent.joinpath("shared", "data", *parts)
        if candidate.is_file():
            return candidate
    return None


LOCOMO = find_data("locomo", "locomo10.json")
needs_locomo = pytest.mark.skipif(LOCOMO is None, reason="locomo10.json not available")
