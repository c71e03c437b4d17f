"""``remem update`` and ``remem history``: the library's update and history on the
command line, with its exit statuses (1: no such memory of the user, 2: bad input)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remem.cli import main


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "cli.db")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _added(capsys, db: str) -> str:
    run(capsys, "--db", db, "add", "the car is parked on level 2", "--user", "ana")
    code, out, _ = run(
        capsys, "--db", db, "add", "my bike is red", "--user", "ana", "--metadata", '{"k": 1}'
    )
    assert code == 0
    return out.strip()


def test_update_then_history(capsys, db):
    mid = _added(capsys, db)
    code, out, err = run(
        capsys, "--db", db, "update", mid, "--user", "ana", "--text", "my bike is blue"
    )
    assert (code, err) == (0, "")
    hit = json.loads(out)
    assert (hit["id"], hit["text"], hit["metadata"]) == (mid, "my bike is blue", {"k": 1})
    code, out, _ = run(
        capsys, "--db", db, "update", mid, "--user", "ana", "--metadata", "{}",
        "--timestamp", "2024-02-03",
    )  # fmt: skip
    assert code == 0 and json.loads(out)["metadata"] == {}
    code, out, _ = run(capsys, "--db", db, "search", "blue bike", "--user", "ana", "-k", "1")
    assert code == 0 and mid in out and "my bike is blue" in out
    code, out, _ = run(capsys, "--db", db, "history", mid, "--user", "ana", "--json")
    versions = [json.loads(line) for line in out.splitlines()]
    assert [v["version"] for v in versions] == [1, 2, 3]
    assert [v["text"] for v in versions] == ["my bike is red", *["my bike is blue"] * 2]
    assert [v["changed"] for v in versions] == [[], ["text"], ["metadata", "timestamp"]]
    code, out, _ = run(capsys, "--db", db, "history", mid, "--user", "ana")
    lines = out.splitlines()
    assert code == 0 and len(lines) == 3
    assert lines[0].startswith("v1 ") and "added" in lines[0] and "my bike is red" in lines[0]
    assert "metadata,timestamp" in lines[2]


def test_another_user_and_a_missing_id_look_the_same(capsys, db):
    mid = _added(capsys, db)
    for verb, extra in (("update", ("--text", "stolen")), ("history", ())):
        theirs = run(capsys, "--db", db, verb, mid, "--user", "ben", *extra)
        missing = run(capsys, "--db", db, verb, "f" * 32, "--user", "ben", *extra)
        assert theirs[0] == missing[0] == 1 and theirs[1] == missing[1] == ""
        assert theirs[2].replace(mid, "ID") == missing[2].replace("f" * 32, "ID")
    code, out, _ = run(capsys, "--db", db, "get", mid, "--user", "ana")
    assert json.loads(out)["text"] == "my bike is red"


@pytest.mark.parametrize(
    "extra",
    [
        (),
        ("--text", ""),
        ("--text", "x" * 100_001),
        ("--metadata", "not json"),
        ("--metadata", "[1, 2]"),
        ("--timestamp", "yesterday"),
    ],
)
def test_bad_input_exits_2_and_changes_nothing(capsys, db, extra):
    mid = _added(capsys, db)
    code, out, err = run(capsys, "--db", db, "update", mid, "--user", "ana", *extra)
    assert code == 2 and out == "" and err.startswith("remem: ")
    code, out, _ = run(capsys, "--db", db, "history", mid, "--user", "ana", "--json")
    assert code == 0 and len(out.splitlines()) == 1


def test_update_needs_an_existing_database(capsys, tmp_path):
    missing = str(tmp_path / "nowhere.db")
    code, _, err = run(capsys, "--db", missing, "update", "a" * 32, "--user", "u", "--text", "x")
    assert code == 2 and "no database" in err
    assert not Path(missing).exists()
