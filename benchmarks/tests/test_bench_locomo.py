"""LoCoMo loading, the recall metric and a tiny end-to-end benchmark run."""

from __future__ import annotations

import json
import math
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from remem_bench.locomo import (
    first_turns,
    load_locomo,
    parse_session_date,
    retrieval_questions,
    turn_text,
)
from remem_bench.metrics import evidence_recall, mean, percentile
from remem_bench.runner import run_locomo, subset_names
from shared_data import LOCOMO, needs_locomo


@pytest.fixture
def tiny_locomo(tmp_path: Path) -> Path:
    """A two-conversation file in LoCoMo's format, with the edge cases the loader handles."""
    conv_a = {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_2_date_time": "9:00 am on 3 June, 2023",
        "session_2": [
            {"speaker": "Ana", "dia_id": "D2:1", "text": "I adopted a greyhound named Biscuit."},
            {
                "speaker": "Ben",
                "dia_id": "D2:2",
                "text": "Look at this!",
                "blip_caption": "a photo of a dog on a beach",
            },
        ],
        "session_10_date_time": "1:56 pm on 8 May, 2024",
        "session_10": [
            {"speaker": "Ana", "dia_id": "D10:1", "text": "Biscuit loves the beach now."},
        ],
        "session_1_date_time": "10:15 pm on 1 January, 2023",
        "session_1": [
            {"speaker": "Ben", "dia_id": "D1:1", "text": "I started learning the cello."},
            {"speaker": "Ana", "dia_id": "D1:2", "text": "Good luck with the cello!"},
            {"speaker": "Ben", "dia_id": "D1:3", "text": "My teacher is from Lisbon."},
        ],
        "session_1_summary": "not a session",
    }
    qa_a = [
        {
            "question": "What is the name of Ana's dog?",
            "answer": "Biscuit",
            "category": 1,
            "evidence": ["D2:1", "D2:1", "D99:1"],
        },
        {
            "question": "What instrument is Ben learning?",
            "answer": "cello",
            "category": 4,
            "evidence": ["D1:1"],
        },
        {
            "question": "When did Ben start the cello?",
            "answer": 2023,
            "category": 2,
            "evidence": ["D1:1", "D1:3"],
        },
        {
            "question": "Where does the dog like to go?",
            "answer": "beach",
            "category": 3,
            "evidence": ["D10:1", "D2:2"],
        },
        {"question": "Broken evidence only", "answer": "x", "category": 1, "evidence": ["D42:7"]},
        {
            "question": "What is Ana's cat called?",
            "category": 5,
            "evidence": ["D2:1"],
            "adversarial_answer": "Whiskers",
        },
    ]
    conv_b = {
        "speaker_a": "Cy",
        "speaker_b": "Di",
        "session_1_date_time": "8:00 am on 2 February, 2023",
        "session_1": [
            {"speaker": "Cy", "dia_id": "D1:1", "text": "I work at the bakery on Elm street."},
            {"speaker": "Di", "dia_id": "D1:2", "text": "Your sourdough is the best."},
        ],
    }
    qa_b = [
        {"question": "Where does Cy work?", "answer": "bakery", "category": 1, "evidence": ["D1:1"]}
    ]
    path = tmp_path / "tiny_locomo.json"
    path.write_text(
        json.dumps(
            [
                {"sample_id": "conv-a", "conversation": conv_a, "qa": qa_a},
                {"sample_id": "conv-b", "conversation": conv_b, "qa": qa_b},
            ]
        )
    )
    return path


# -- parsing -------------------------------------------------------------------------


def test_parse_session_date():
    assert parse_session_date("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56)
    assert parse_session_date(" 12:05 am on 20 January, 2024 ") == datetime(2024, 1, 20, 0, 5)
    with pytest.raises(ValueError):
        parse_session_date("8 May 2023")


def test_turn_text():
    assert turn_text({"text": " hello "}) == "hello"
    assert (
        turn_text({"text": "see", "blip_caption": "a photo of a cat"})
        == "see [shares a photo of a cat]"
    )
    assert turn_text({"blip_caption": "a photo of a cat"}) == "[shares a photo of a cat]"


def test_loader_on_tiny_file(tiny_locomo):
    convs = load_locomo(tiny_locomo)
    assert [c.sample_id for c in convs] == ["conv-a", "conv-b"]
    a = convs[0]
    assert a.speakers == ("Ana", "Ben")
    # sessions in numeric order (1, 2, 10), not text order
    assert [s[0].session_id for s in a.sessions] == ["session_1", "session_2", "session_10"]
    assert [t.dia_id for t in a.turns] == ["D1:1", "D1:2", "D1:3", "D2:1", "D2:2", "D10:1"]
    s1 = a.sessions[0]
    start = datetime(2023, 1, 1, 22, 15)
    assert [t.timestamp for t in s1] == [start + timedelta(seconds=30 * i) for i in range(3)]
    assert a.turns[4].text == "Look at this! [shares a photo of a dog on a beach]"
    item = a.turns[0].as_item()
    assert item["metadata"] == {"dia_id": "D1:1"} and item["speaker"] == "Ben"
    assert item["session_id"] == "session_1" and item["timestamp"] == start

    q = a.questions
    assert len(q) == 6
    assert q[0].evidence == ("D2:1",)  # duplicates and unknown ids dropped
    assert q[2].answer == "2023"  # answers become text
    assert q[4].evidence == ()
    assert q[5].answer is None and q[5].adversarial_answer == "Whiskers"
    asked = retrieval_questions(a)
    assert [x.question for x in asked] == [
        q[0].question,
        q[1].question,
        q[2].question,
        q[3].question,
    ]


@needs_locomo
def test_real_locomo_counts():
    convs = load_locomo(LOCOMO)
    assert len(convs) == 10
    assert sum(len(c.turns) for c in convs) == 5882
    assert sum(len(retrieval_questions(c)) for c in convs) == 1531
    turns = [t for c in convs for t in c.turns]
    assert any("[shares a photo of" in t.text for t in turns)
    assert all(t.text.strip() for t in turns)
    for c in convs:
        known = {t.dia_id for t in c.turns}
        assert len(known) == len(c.turns)
        for q in retrieval_questions(c):
            assert q.category in (1, 2, 3, 4) and set(q.evidence) <= known
        stamps = [t.timestamp for t in c.turns]
        for s in c.sessions:
            ts = [t.timestamp for t in s]
            assert ts == sorted(ts)
        assert len(stamps) == len(c.turns)


# -- metrics -------------------------------------------------------------------------


def test_evidence_recall_hand_cases():
    assert evidence_recall(["a"], ["a", "b"], 1) == 1.0
    assert evidence_recall(["a", "b"], ["x", "a", "b"], 1) == 0.0
    assert evidence_recall(["a", "b"], ["x", "a", "b"], 2) == 0.5
    assert evidence_recall(["a", "b"], ["x", "a", "b"], 3) == 1.0
    assert evidence_recall(["a", "b", "c"], ["c"], 10) == pytest.approx(1 / 3)
    assert evidence_recall(["a"], [], 5) == 0.0
    assert evidence_recall(["a", "b"], [None, "b"], 5) == 0.5
    with pytest.raises(ValueError):
        evidence_recall([], ["a"], 5)


def test_mean_and_percentile():
    assert mean([1, 2, 3, 6]) == 3.0
    assert percentile([1, 2, 3, 4, 5], 50) == 3.0
    assert math.isnan(mean([])) and math.isnan(percentile([], 95))


# -- the runner ----------------------------------------------------------------------


def _check_result(result: dict, engines: list[str], ks: tuple[int, ...], questions: int) -> None:
    assert result["questions"] == questions
    assert result["ks"] == list(ks)
    assert set(result["subset_sizes"]) == set(subset_names())
    assert result["subset_sizes"]["all"] == questions
    for name in engines:
        e = result["engines"][name]
        assert e["ingest_turns_per_s"] > 0
        assert e["search_ms_p50"] > 0 and e["search_ms_p95"] >= e["search_ms_p50"]
        assert e["index_mb"] > 0
        for k in ks:
            recall = e["recall"][str(k)]
            assert set(recall) == set(subset_names())
            for subset, value in recall.items():
                if result["subset_sizes"][subset]:
                    assert 0.0 <= value <= 1.0, (name, k, subset, value)
                else:
                    assert math.isnan(value)
        # recall never falls as k grows
        for a, b in zip(ks, ks[1:], strict=False):
            assert e["recall"][str(b)]["all"] >= e["recall"][str(a)]["all"]


def test_run_locomo_on_tiny_file(tiny_locomo, embedder):
    progress: list[str] = []
    result = run_locomo(
        str(tiny_locomo),
        ["bm25", "dense", "hybrid"],
        (1, 3),
        embedder=embedder,
        progress=progress.append,
    )
    _check_result(result, ["bm25", "dense", "hybrid"], (1, 3), questions=5)
    assert result["conversations"] == 2 and len(progress) == 2
    assert result["subset_sizes"]["cat1"] == 2 and result["subset_sizes"]["cat4"] == 1
    # 'What instrument is Ben learning?' -> D1:1 "I started learning the cello": bm25 finds it
    assert result["engines"]["bm25"]["recall"]["3"]["cat4"] == 1.0


@needs_locomo
def test_run_locomo_tiny_real_slice(embedder):
    result = run_locomo(
        str(LOCOMO),
        ["bm25", "hybrid"],
        (5, 10),
        conversations=["conv-30"],
        limit=5,
        embedder=embedder,
    )
    _check_result(result, ["bm25", "hybrid"], (5, 10), questions=5)
    assert result["conversations"] == 1
    assert result["peak_rss_mb"] > 0 and result["wall_s"] > 0
    assert result["engines"]["hybrid"]["recall"]["10"]["all"] > 0


def test_run_locomo_runs_the_ilstma_question_flow(tiny_locomo, embedder):
    result = run_locomo(str(tiny_locomo), ["hybrid", "ilstma"], (1, 3), embedder=embedder)
    flows = {(f["engine"], f["order"]): f for f in result["flows"]}
    assert set(flows) == {("ilstma", "file"), ("ilstma", "evidence")}
    for f in flows.values():
        assert f["questions"] == 5
        assert 0.0 <= f["hit_rate"] <= 1.0
        assert 0.0 <= f["miss_recall"] <= 1.0 and 0.0 <= f["miss_baseline_recall"] <= 1.0
        assert 1.0 <= f["miss_recalled_mean"] <= 2.0  # one or two dialogues recalled
        assert f["on_ms_mean"] > 0 and f["off_ms_mean"] > 0
    # engines without a question flow add no rows
    assert run_locomo(str(tiny_locomo), ["bm25"], (1,), embedder=embedder)["flows"] == []


def test_first_turns_cut_the_history_and_keep_the_questions_it_answers(tiny_locomo):
    conv = load_locomo(tiny_locomo)[0]  # sessions 1 (3 turns), 2 (2), 10 (1)
    short = first_turns(conv, 4)
    assert [[t.dia_id for t in s] for s in short.sessions] == [["D1:1", "D1:2", "D1:3"], ["D2:1"]]
    asked = {q.question for q in short.questions}
    assert asked == {
        "What is the name of Ana's dog?",  # D2:1, kept
        "What instrument is Ben learning?",  # D1:1
        "When did Ben start the cello?",  # D1:1, D1:3
        "What is Ana's cat called?",  # category 5 stays
    }
    assert [q.question for q in retrieval_questions(first_turns(conv, 1))] == [
        "What instrument is Ben learning?"
    ]
    whole = first_turns(conv, 100)
    assert whole.sessions == conv.sessions and len(whole.questions) == len(conv.questions) - 1
    assert conv.turns and len(conv.turns) == 6  # the original is untouched
    with pytest.raises(ValueError, match="positive"):
        first_turns(conv, 0)


def test_run_locomo_on_the_first_turns(tiny_locomo):
    full = run_locomo(str(tiny_locomo), ["bm25"], ks=(5,))
    short = run_locomo(str(tiny_locomo), ["bm25"], ks=(5,), turns=1)
    assert short["turns"] == 1 and full["turns"] is None
    assert short["questions"] < full["questions"]


def test_short_histories_command(tiny_locomo, tmp_path, capsys):
    from remem_bench.cli import main

    out = tmp_path / "short.json"
    md = tmp_path / "short.md"
    argv = ["locomo", "--data", str(tiny_locomo), "--engines", "bm25,hybrid"]
    assert main([*argv, "--k", "5", "--turns", "1,100", "--json", str(out),
                 "--markdown", str(md)]) == 0  # fmt: skip
    result = json.loads(out.read_text())
    assert result["benchmark"] == "locomo-short-histories"
    assert [r["turns"] for r in result["runs"]] == [1, 100]
    assert [r["subset_sizes"]["all"] for r in result["runs"]] == [2, 5]  # both conversations
    table = md.read_text()
    assert "| turns | questions | engine | recall@5 |" in table
    assert "| 1 | 2 | bm25 |" in table and "| 100 | 5 | hybrid |" in table
    capsys.readouterr()
    assert main([*argv, "--answer", "--turns", "5"]) == 2
    assert "--turns applies to retrieval runs" in capsys.readouterr().err
