"""``remem-bench``: the commands over the harness, their output files and exit
statuses, and the script and ``python -m remem_bench`` entry points."""

from __future__ import annotations

import json
import subprocess
import sys

from remem_bench.cli import main


def test_locomo_command_writes_json_and_markdown(capsys, tmp_path):
    data = tmp_path / "mini.json"
    conv = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "9:00 am on 3 June, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a greyhound named Biscuit."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "I started learning the cello."},
        ],
    }
    qa = [
        {
            "question": "What instrument is Ben learning?",
            "answer": "cello",
            "category": 4,
            "evidence": ["D1:2"],
        }
    ]
    data.write_text(json.dumps([{"sample_id": "c1", "conversation": conv, "qa": qa}]))
    out_json = tmp_path / "r.json"
    out_md = tmp_path / "r.md"
    code = main(
        [
            "locomo",
            "--data",
            str(data),
            "--engines",
            "bm25",
            "--k",
            "1,2",
            "--json",
            str(out_json),
            "--markdown",
            str(out_md),
        ]
    )
    assert code == 0
    result = json.loads(out_json.read_text())
    assert result["engines"]["bm25"]["recall"]["1"]["all"] == 1.0
    assert out_md.read_text().strip()


def test_help_lists_every_benchmark(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name in ("locomo", "longmemeval", "memorybank", "verdict", "answers", "time", "load"):
        assert name in out
    assert "Examples:" in out


def test_a_usage_error_exits_2(capsys):
    assert main(["locomo"]) == 2  # --data is required
    assert "--data" in capsys.readouterr().err
    assert main(["scale", "--n", "ten"]) == 2
    assert main(["spread", "--json"]) == 2  # --json needs a file


def test_remems_own_error_exits_2_with_one_line(capsys, tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("")
    b.write_text("")
    assert main(["spread", str(a)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("remem-bench: ") and len(err.strip().splitlines()) == 1


def test_a_missing_file_exits_1(capsys, tmp_path):
    assert main(["qa-compare", str(tmp_path / "no.jsonl"), str(tmp_path / "b.jsonl")]) == 1
    assert capsys.readouterr().err.startswith("remem-bench: ")


def test_python_m_runs_the_same_commands():
    out = subprocess.run(
        [sys.executable, "-m", "remem_bench", "spread", "--help"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "JSONL" in out.stdout
