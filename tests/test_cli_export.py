"""``remem export`` / ``remem import``: the JSONL export on the command line (files and
standard input/output), and its errors."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from remem import Memory
from remem.cli import main


@pytest.fixture
def db(tmp_path: Path, embedder, monkeypatch) -> str:
    """A database with two users, its embedder the session's (as the CLI's default)."""
    path = str(tmp_path / "cli.db")
    with Memory(path, embedder=embedder, llm="none") as mem:
        mid = mem.add("I keep bees on the roof.", "u", speaker="Ana", session_id="s1")
        mem.add("My bike is red.", "u", metadata={"k": 1})
        mem.update(mid, "u", text="I keep two hives of bees on the roof.")
        mem.add("Other user's secret.", "v")
    return path


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_export_then_import_to_another_database(capsys, db, tmp_path):
    path = tmp_path / "u.jsonl"
    assert run(capsys, "--db", db, "export", str(path), "--user", "u") == (0, "2\n", "")
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    assert [r["text"] for r in lines[1:]] == [
        "My bike is red.",
        "I keep two hives of bees on the roof.",
    ]
    assert "secret" not in path.read_text()
    other = str(tmp_path / "other.db")
    assert run(capsys, "--db", other, "import", str(path), "--user", "u") == (0, "2\n", "")
    code, out, err = run(capsys, "--db", other, "history", lines[2]["id"], "--user", "u", "--json")
    assert code == 0 and [json.loads(x)["version"] for x in out.splitlines()] == [1, 2]
    code, _, err = run(capsys, "--db", other, "import", str(path), "--user", "u")
    assert code != 0 and "line 2: the user has a memory" in err
    args = ("--db", other, "import", str(path), "--user", "u", "--on-conflict", "skip")
    assert run(capsys, *args) == (0, "0\n", "")


def test_export_to_stdout_and_import_from_stdin(capsys, db, tmp_path, monkeypatch):
    code, out, err = run(capsys, "--db", db, "export", "-", "--user", "u", "--vectors")
    assert code == 0 and err == "remem: exported 2 memories\n"
    assert all(len(json.loads(x)["vector"]) == 384 for x in out.splitlines()[1:])
    stdin = SimpleNamespace(buffer=io.BytesIO(out.encode("utf-8")))
    monkeypatch.setattr(sys, "stdin", stdin)
    other = str(tmp_path / "other.db")
    assert run(capsys, "--db", other, "import", "-", "--user", "w") == (0, "2\n", "")


def test_bad_files_are_refused_by_line(capsys, db, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "remem-jsonl", "version": 1}\n{"id": "x", "text": "hi"}\n')
    code, out, err = run(capsys, "--db", db, "import", str(bad), "--user", "z")
    assert code != 0 and out == "" and "line 2: has no 'timestamp'" in err
    code, _, err = run(capsys, "--db", db, "import", str(tmp_path / "none.jsonl"), "--user", "z")
    assert code != 0 and "cannot read an export" in err
    assert run(capsys, "--db", db, "count", "--user", "z") == (0, "0\n", "")
