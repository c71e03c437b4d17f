"""bench spread: repeated sampled runs of the same questions side by side."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest

from remem.errors import InvalidInputError
from remem_bench.cli import main
from remem_bench.spread import spread_runs


def _row(engine: str, q: str, category: int, f1: float, draft: str, refused: bool = False):
    return {
        "engine": engine,
        "conversation": "c",
        "question": q,
        "category": category,
        "f1": f1,
        "refused": refused,
        "draft": draft,
        "prediction": draft,
        "evidence": [],
        "evidence_recall": None,
        "context_tokens": 10,
        "llm_calls": 1,
        "latency_s": 0.1,
        "cache_hit": None,
    }


def _run(path: Path, hybrid: list[float], synapse: list[float], drafts: list[str]) -> Path:
    rows = []
    for engine, scores in (("hybrid", hybrid), ("synapse", synapse)):
        rows += [_row(engine, f"q{i}?", 4, f, drafts[i]) for i, f in enumerate(scores)]
        rows.append(_row(engine, "adversarial?", 5, 1.0, "no", refused=engine == "synapse"))
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_spread_over_runs(tmp_path):
    a = _run(tmp_path / "a.jsonl", [0.0, 0.5], [0.5, 0.5], ["x", "y"])
    b = _run(tmp_path / "b.jsonl", [0.5, 0.5], [1.0, 0.0], ["x", "z"])
    c = _run(tmp_path / "c.jsonl", [0.0, 0.0], [0.0, 0.0], ["x", "y"])
    out = spread_runs([a, b, c])
    f1 = out["summary"]["hybrid"]["f1_1to4"]
    assert f1["mean"] == pytest.approx(statistics.fmean([0.25, 0.5, 0.0]))
    assert f1["sd"] == pytest.approx(statistics.stdev([0.25, 0.5, 0.0]))
    assert (f1["min"], f1["max"]) == (0.0, 0.5)
    diff = out["paired"]["synapse"]
    assert diff["minus"] == "hybrid"
    assert diff["mean"] == pytest.approx(statistics.fmean([0.25, 0.0, 0.0]))
    assert (diff["runs_better"], diff["runs_worse"]) == (1, 0)
    assert out["summary"]["synapse"]["cat5_refusal"]["mean"] == 1.0
    # q0's draft is "x" in every run, q1's is not, the category-5 one always is
    assert out["identical_drafts_share"]["hybrid"] == pytest.approx(2 / 3)
    assert out["questions"] == {"hybrid": 3, "synapse": 3}


def test_spread_from_the_command_line(tmp_path, capsys):
    a = _run(tmp_path / "a.jsonl", [0.0, 0.5], [0.5, 0.5], ["x", "y"])
    b = _run(tmp_path / "b.jsonl", [0.5, 0.5], [1.0, 0.0], ["x", "z"])
    md = tmp_path / "spread.md"
    assert main(["spread", str(a), str(b), "--markdown", str(md)]) == 0
    table = md.read_text()
    assert "Over 2 runs" in table and "| synapse | hybrid |" in table
    assert "a.jsonl" in table and "b.jsonl" in table


def test_spread_refuses_runs_of_other_questions(tmp_path, capsys):
    a = _run(tmp_path / "a.jsonl", [0.0, 0.5], [0.5, 0.5], ["x", "y"])
    other = _run(tmp_path / "o.jsonl", [0.0, 0.5, 1.0], [0.5, 0.5, 1.0], ["x", "y", "w"])
    with pytest.raises(InvalidInputError, match="same"):
        spread_runs([a, other])
    assert main(["spread", str(a), str(other)]) == 2
    assert "same (engine, question) rows" in capsys.readouterr().err
    with pytest.raises(InvalidInputError, match="at least two"):
        spread_runs([a])
