"""The code stays lint-clean and type-checks: ruff and mypy are dev dependencies,
configured in pyproject.toml, and a change that breaks either fails CI here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=ROOT, capture_output=True, text=True, timeout=600
    )


def test_ruff_is_clean() -> None:
    pytest.importorskip("ruff")
    out = _run("ruff", "check", "src", "tests", "scripts", "benchmarks")
    assert out.returncode == 0, out.stdout + out.stderr


def test_mypy_is_clean() -> None:
    pytest.importorskip("mypy")
    out = _run("mypy")  # files and settings: [tool.mypy] in pyproject.toml
    assert out.returncode == 0, out.stdout + out.stderr
