"""``remem-bench verdict``: the "not in memory" verdict on LoCoMo's two halves and, with
``--lme``, on LongMemEval questions asked of their own history and of another's."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remem_bench.cli import main
from remem_bench.verdict import lme_refusal_rates, lme_verdict_rows


def _conversation(sample_id: str) -> dict:
    return {
        "sample_id": sample_id,
        "conversation": {
            "speaker_a": "Ana",
            "speaker_b": "Ben",
            "session_1_date_time": "9:00 am on 3 June, 2023",
            "session_1": [
                {"speaker": "Ana", "dia_id": "D1:1", "text": "I adopted a greyhound, Biscuit."},
                {"speaker": "Ben", "dia_id": "D1:2", "text": "I started learning the cello."},
            ],
        },
        "qa": [
            {"question": "What is Ana's dog called?", "answer": "Biscuit", "category": 1,
             "evidence": ["D1:1"]},
            {"question": "What instrument did Ana start learning?", "category": 5,
             "evidence": ["D1:2"], "adversarial_answer": "cello"},
        ],
    }  # fmt: skip


def _lme_question(qid: str, question: str, text: str, session: str, day: int) -> dict:
    return {
        "question_id": qid,
        "question_type": "single-session-user",
        "question": question,
        "answer": "x",
        "question_date": "2023/06/20 (Tue) 10:00",
        "haystack_dates": [f"2023/05/{day:02d} (Tue) 09:00"],
        "haystack_session_ids": [session],
        "haystack_sessions": [
            [{"role": "user", "content": text, "has_answer": True},
             {"role": "assistant", "content": "Good to know!"}]
        ],
        "answer_session_ids": [session],
    }  # fmt: skip


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    locomo = tmp_path / "locomo.json"
    locomo.write_text(json.dumps([_conversation("conv-26"), _conversation("conv-44")]))
    lme = tmp_path / "lme.json"
    lme.write_text(
        json.dumps(
            [
                _lme_question("q1", "What colour is my kayak?", "My kayak is turquoise.", "s1", 2),
                _lme_question("q2", "Where do I work?", "I work at the harbour office.", "s2", 3),
                _lme_question("q3", "What is my cat's name?", "My cat is Luna.", "s3", 4),
                _lme_question("q4_abs", "What is my hamster's name?", "I have a cat.", "s4", 5),
            ]
        )
    )
    return locomo, lme


def test_lme_rows_ask_each_question_of_its_own_and_of_another_history(files):
    _, lme = files
    rows = lme_verdict_rows(str(lme), "hybrid", pool=0)
    kinds = [(r["question_id"], r["kind"]) for r in rows]
    # every history answers its own question and, as never said, another's
    assert kinds == [
        ("q1", "own"), ("q1", "swap"), ("q2", "own"), ("q2", "swap"),
        ("q3", "own"), ("q3", "swap"), ("q4_abs", "abs"), ("q4_abs", "swap"),
    ]  # fmt: skip
    assert [r["half"] for r in rows[::2]] == ["calibration", "held_out"] * 2
    swapped = {r["question_id"]: r["question"] for r in rows if r["kind"] == "swap"}
    assert swapped["q1"] != "What colour is my kayak?"
    for r in rows:
        assert 0.0 <= r["absent"] <= 1.0 and isinstance(r["not_in_memory"], bool)
        assert r["signals"]["first_person"] == 1.0  # "my", "I": the self kind
    rates = lme_refusal_rates(rows)
    assert (rates["own"], rates["swap"], rates["abs"]) == (3, 4, 1)


def test_the_command_reports_both_data_sets(files, tmp_path):
    locomo, lme = files
    out, md = tmp_path / "v.json", tmp_path / "v.md"
    code = main(
        [
            "verdict", "--data", str(locomo), "--lme", str(lme), "--engines", "hybrid",
            "--lme-pool", "0", "--embed-cache", str(tmp_path / "cache.npz"), "--json", str(out),
            "--markdown", str(md),
        ]
    )  # fmt: skip
    assert code == 0
    result = json.loads(out.read_text())
    halves = result["engines"]["hybrid"]
    assert halves["calibration"]["verdict"]["questions"] == 2
    assert halves["held_out"]["verdict"]["cat5"] == 1
    assert result["lme_pool"] == 0
    lme_halves = result["lme_engines"]["hybrid"]
    assert lme_halves["calibration"]["own"] + lme_halves["held_out"]["own"] == 3
    assert (tmp_path / "cache.npz").is_file()  # the vectors are kept for the next run
    text = md.read_text()
    assert "LoCoMo 'not in memory' verdict" in text and "LongMemEval 'not in memory'" in text
    assert "pooled with 0 sessions" in text
