"""The table of environment variables (``remem.env``): the one way remem reads them,
and the documented list of them (docs/configuration.md; the README's until issue 41)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from remem import env

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "remem"


def _readme_section() -> str:
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    section = text.split("## Environment variables\n", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line for line in section.splitlines() if line.startswith("- ")) + "\n"


def test_readme_lists_exactly_the_table():
    listed = re.findall(r"^- `([A-Z0-9_]+)`", _readme_section(), re.M)
    assert listed == [v.name for v in env.VARIABLES]
    assert _readme_section() == env.markdown(), "paste env.markdown() into docs/configuration.md"


def test_names_are_unique():
    names = [v.name for v in env.VARIABLES]
    assert len(names) == len(set(names))


def test_read_gives_the_value_else_the_default():
    assert env.read("REMEM_DB", {"REMEM_DB": "x.db"}) == "x.db"
    assert env.read("REMEM_DB", {}) == "remem.db"
    assert env.read("REMEM_DB", {"REMEM_DB": ""}) == "remem.db"  # empty is unset
    assert env.read("REMEM_PROMPTS", {}) == ""  # the reader works it out


def test_read_uses_the_process_environment(monkeypatch):
    monkeypatch.setenv("REMEM_LLM_MODEL", "my-model")
    assert env.read("REMEM_LLM_MODEL") == "my-model"
    monkeypatch.delenv("REMEM_LLM_MODEL")
    assert env.read("REMEM_LLM_MODEL") == "gpt-4o-mini"


def test_an_unknown_name_is_a_programming_error():
    with pytest.raises(KeyError, match="REMEM_NOPE"):
        env.read("REMEM_NOPE", {"REMEM_NOPE": "1"})


def test_no_other_module_reads_the_environment():
    reads = re.compile(r"os\.environ\.get|os\.getenv|getenv\(|os\.environ\[|environ\.get\(")
    offenders = [
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if path.name != "env.py" and reads.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_every_variable_named_in_the_sources_is_in_the_table():
    named = set()
    for path in SRC.rglob("*.py"):
        named |= set(re.findall(r"\b((?:REMEM|OPENAI)_[A-Z0-9_]*[A-Z0-9])\b", path.read_text()))
    assert named <= {v.name for v in env.VARIABLES}
