"""``remem ask``: answer from a user's memory on the command line (run in-process)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from answer_cases import ANSWER_FIELDS  # one list of the Answer keys
from remem import Memory
from remem.answer import REFUSAL
from remem.cli import main

KAYAK = "I bought a turquoise kayak in Tromso."
BASSOON = "My cousin Ezekiel plays the bassoon in a jazz quartet."


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch):
    for var in ("REMEM_DB", "REMEM_ENGINE", "REMEM_LLM"):
        monkeypatch.delenv(var, raising=False)


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "x.db")


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _fill(capsys, db: str, engine: str = "hybrid") -> list[str]:
    ids = []
    for text, who, when in [
        (KAYAK, "Alice", "2024-03-01T09:00:00Z"),
        (BASSOON, "Bob", "2024-03-02T10:30:00Z"),
    ]:
        code, out, err = run(
            capsys,
            "--db", db, "--engine", engine,
            "add", text, "--user", "u1", "--speaker", who, "--timestamp", when,
        )  # fmt: skip
        assert code == 0, err
        ids.append(out.strip())
    return ids


@pytest.mark.parametrize("engine", ["hybrid", "synapse", "ilstma"])
def test_ask_prints_the_answer_and_its_evidence(capsys, db, engine):
    ids = _fill(capsys, db, engine)
    code, out, err = run(
        capsys, "--db", db, "--engine", engine,
        "ask", "Who plays the bassoon?", "--user", "u1", "--llm", "none",
    )  # fmt: skip
    assert code == 0, err
    assert out.splitlines() == ["Ezekiel"]  # the person asked, cut from the evidence
    evidence = err.splitlines()
    assert evidence and evidence[0] == f"  - [2024-03-02] Bob: {BASSOON}"
    assert len(evidence) <= 2
    with Memory(db, engine=engine, llm="none") as mem:  # nothing was written by ask
        assert [h.id for h in mem.memories("u1")] == ids


def test_ask_json_prints_the_answer_object(capsys, db):
    ids = _fill(capsys, db)
    code, out, err = run(
        capsys, "--db", db, "ask", "Where did Alice buy the kayak?", "--user", "u1",
        "--llm", "none", "--json", "-k", "1",
    )  # fmt: skip
    assert code == 0, err
    assert len(out.splitlines()) == 1
    data = json.loads(out)
    assert set(data) == ANSWER_FIELDS
    assert data["text"] == "Tromso" and KAYAK in [e["text"] for e in data["evidence"]]
    assert data["refused"] is False and data["cache_hit"] is None
    assert data["llm_calls"] == 0 and data["prompt_tokens"] == 0
    assert data["context_tokens"] > 0 and data["latency_s"] > 0
    assert [e["id"] for e in data["evidence"]] == [ids[0]]  # -k 1
    assert data["evidence"][0]["speaker"] == "Alice"
    assert data["evidence"][0]["timestamp"].startswith("2024-03-01T09:00")
    assert set(data["explanations"]) == {ids[0]}
    assert err == ""


def test_ask_a_user_without_memories_refuses(capsys, db):
    _fill(capsys, db)
    code, out, err = run(
        capsys, "--db", db, "ask", "Who plays the bassoon?", "--user", "u2", "--llm", "none"
    )
    assert code == 0, err
    assert out.strip() == REFUSAL
    assert err == ""  # no evidence to list
    code, out, err = run(
        capsys, "--db", db, "ask", "Who plays the bassoon?", "--user", "u2",
        "--llm", "none", "--json",
    )  # fmt: skip
    data = json.loads(out)
    assert code == 0 and data["refused"] is True and data["text"] == REFUSAL
    assert data["evidence"] == []


def test_ask_unrelated_question_refuses(capsys, db):
    _fill(capsys, db)
    code, out, err = run(
        capsys, "--db", db, "ask", "xylophone zebra quantum", "--user", "u1", "--llm", "none"
    )
    assert code == 0
    assert out.strip() == REFUSAL


@pytest.mark.parametrize(
    "argv",
    [
        ["ask", "", "--user", "u1"],
        ["ask", "   ", "--user", "u1"],
        ["ask", "Who?", "--user", ""],
        ["ask", "Who?", "--user", "u1", "-k", "0"],
    ],
)
def test_ask_bad_input_exits_2_with_an_error(capsys, db, argv):
    code, out, err = run(capsys, "--db", db, *argv, "--llm", "none")
    assert code == 2
    assert out == ""
    assert err.startswith("remem: ") and len(err.strip()) > len("remem: ")


def test_ask_needs_a_user(capsys, db):
    with pytest.raises(SystemExit) as exc:
        main(["--db", db, "ask", "Who?", "--llm", "none"])
    assert exc.value.code == 2
    assert "--user" in capsys.readouterr().err


def test_ask_unknown_llm_exits_2(capsys, db):
    _fill(capsys, db)
    code, out, err = run(capsys, "--db", db, "ask", "Who?", "--user", "u1", "--llm", "nope")
    assert code == 2
    assert "nope" in err
