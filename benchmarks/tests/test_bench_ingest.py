"""``remem-bench ingest``: long turns against short ones on tiny files of each format."""

from __future__ import annotations

import json
from pathlib import Path

from remem_bench.cli import main

LONG = " ".join(
    f"Step {i}: compare the options carefully and write down the costs." for i in range(40)
)


def _files(tmp_path: Path) -> tuple[Path, Path]:
    conv = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "9:00 am on 3 June, 2023",
        "session_1": [
            {"speaker": "Ana" if i % 2 else "Ben", "dia_id": f"D1:{i}", "text": f"Short turn {i}."}
            for i in range(1, 9)
        ],
    }
    qa = [{"question": "What did Ana say?", "answer": "x", "category": 4, "evidence": ["D1:1"]}]
    short = tmp_path / "locomo.json"
    short.write_text(json.dumps([{"sample_id": "c", "conversation": conv, "qa": qa}]))
    sessions = [
        [
            {"role": "user", "content": f"How should I plan trip {s}?"},
            {"role": "assistant", "content": LONG},
            {"role": "user", "content": f"Thanks, trip {s} sounds good.", "has_answer": True},
            {"role": "assistant", "content": LONG + f" Trip {s} is ready."},
        ]
        for s in range(3)
    ]
    questions = [
        {
            "question_id": f"q{n}",
            "question_type": "single-session-user",
            "question": f"What did I plan for trip {n}?",
            "answer": "x",
            "question_date": "2023/06/10 (Sat) 10:00",
            "haystack_dates": [f"2023/06/0{s + 1} (Thu) 09:00" for s in range(3)],
            "haystack_session_ids": [f"{n}-s{s}" for s in range(3)],
            "haystack_sessions": sessions,
            "answer_session_ids": [f"{n}-s{s}" for s in range(3)],
        }
        for n in range(2)
    ]
    long = tmp_path / "lme.json"
    long.write_text(json.dumps(questions))
    return short, long


def test_ingest_reports_rates_first_searches_and_peak_rss(tmp_path, capsys):
    short, long = _files(tmp_path)
    out = tmp_path / "ingest.json"
    code = main(
        [
            "ingest", "--short", str(short), "--long", str(long), "--engines",
            "hybrid,synapse", "--turns", "8", "--rounds", "1", "--json", str(out),
        ]
    )  # fmt: skip
    assert code == 0
    result = json.loads(out.read_text())
    rows = {(r["engine"], r["kind"]): r for r in result["rows"]}
    assert set(rows) == {(e, k) for e in ("hybrid", "synapse") for k in ("short", "long")}
    assert rows[("hybrid", "long")]["word_pieces"] > 10 * rows[("hybrid", "short")]["word_pieces"]
    for r in rows.values():
        assert r["turns"] == 8 and r["pieces_per_s"] > 0 and r["first_search_ms_p50"] > 0
        assert 0 < r["event_times_share"] < 1 and 0 < r["slots_share"] < 1
    assert set(result["long_short_ratio"]) == {"hybrid", "synapse"}
    peaks = result["fresh_process_peak_rss_mb"]
    assert set(peaks) == {"hybrid", "synapse"} and all(100 < p < 5000 for p in peaks.values())
    assert "word pieces/s" in capsys.readouterr().out
