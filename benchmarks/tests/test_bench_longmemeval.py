"""LongMemEval: reading the official layout, pooled haystacks from the oracle file, the
retrieval metrics, and ``remem-bench longmemeval`` end to end on a tiny file."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import numpy as np
import pytest

from remem.errors import InvalidInputError
from remem_bench import lme_runner
from remem_bench.cli import main
from remem_bench.longmemeval import is_oracle, load_longmemeval, parse_date, pooled, spread
from remem_bench.metrics import first_seen, ndcg, recall_all, recall_any
from shared_data import find_data

DEV = find_data("longmemeval", "longmemeval_oracle_dev.json")


def _session(*turns: tuple[str, str, bool]) -> list[dict]:
    return [
        {"role": role, "content": text, **({"has_answer": True} if mark else {})}
        for role, text, mark in turns
    ]


def _question(qid: str, qtype: str, question: str, sessions: dict, dates: list[str]) -> dict:
    return {
        "question_id": qid,
        "question_type": qtype,
        "question": question,
        "answer": "x",
        "question_date": "2023/06/01 (Thu) 10:00",
        "haystack_dates": dates,
        "haystack_session_ids": list(sessions),
        "haystack_sessions": list(sessions.values()),
        "answer_session_ids": list(sessions),
    }


@pytest.fixture
def oracle_file(tmp_path: Path) -> Path:
    data = [
        _question(
            "q1",
            "single-session-user",
            "What colour is my kayak?",
            {
                "s1": _session(
                    ("user", "I bought a turquoise kayak at the harbour.", True),
                    ("assistant", "Turquoise is a great colour for visibility on water.", False),
                )
            },
            ["2023/05/02 (Tue) 09:00"],
        ),
        _question(
            "q2",
            "knowledge-update",
            "Where do I live now?",
            {
                "s2": _session(("user", "I live in Porto by the river.", True)),
                "s3": _session(
                    ("user", "I moved to Lisbon last week.", True), ("assistant", "", False)
                ),
            },
            ["2023/05/20 (Sat) 02:21", "2023/04/01 (Sat) 08:00"],
        ),
        _question(
            "q3_abs",
            "single-session-user",
            "What is my cat's name?",
            {"s4": _session(("user", "My dog is called Rex.", False))},
            ["2023/05/10 (Wed) 12:00"],
        ),
    ]
    path = tmp_path / "oracle.json"
    path.write_text(json.dumps(data))
    return path


def test_reading_the_official_layout(oracle_file):
    qs = load_longmemeval(oracle_file)
    assert [q.question_id for q in qs] == ["q1", "q2", "q3_abs"]
    q2 = qs[1]
    assert [s.session_id for s in q2.sessions] == ["s3", "s2"]  # in date order
    assert q2.sessions[0].turns[0].timestamp == datetime(2023, 4, 1, 8, 0)
    assert len(q2.sessions[0].turns) == 1  # an empty turn is no memory
    assert q2.evidence == ("s3:0", "s2:0") and q2.evidence_sessions == ("s2", "s3")
    assert qs[2].abstention and not qs[0].abstention and qs[2].evidence == ()
    item = qs[0].turns[1].as_item()
    assert item["speaker"] == "assistant" and item["metadata"] == {"turn": "s1:1"}
    assert is_oracle(qs)
    assert parse_date("2023/05/20 (Sat) 02:21") == datetime(2023, 5, 20, 2, 21)
    with pytest.raises(InvalidInputError):
        parse_date("May 20")


def test_pooled_haystacks_keep_only_the_questions_own_evidence(oracle_file):
    qs = load_longmemeval(oracle_file)
    out = pooled(qs, 2, seed=1)
    assert [q.question_id for q in out] == ["q1", "q2", "q3_abs"]
    q1 = out[0]
    ids = [s.session_id for s in q1.sessions]
    assert len(ids) == 3 and len(set(ids)) == 3 and "s1" in ids
    assert q1.evidence == ("s1:0",)  # drawn sessions' has_answer marks are dropped
    assert [s.date for s in q1.sessions] == sorted(s.date for s in q1.sessions)
    again = pooled(qs, 2, seed=1)
    assert [[s.session_id for s in q.sessions] for q in again] == [
        [s.session_id for s in q.sessions] for q in out
    ]
    assert not is_oracle(out)
    assert pooled(qs, 0) is qs
    with pytest.raises(InvalidInputError):
        pooled(qs, -1)
    assert [q.question_id for q in spread(qs, 2)] == ["q1", "q2"]


def test_retrieval_metrics():
    ranked = ["a", "x", "b", "y"]
    assert recall_any(["b", "z"], ranked, 2) == 0.0 and recall_any(["b", "z"], ranked, 3) == 1.0
    assert recall_all(["a", "b"], ranked, 2) == 0.0 and recall_all(["a", "b"], ranked, 3) == 1.0
    assert ndcg(["a"], ranked, 1) == 1.0
    assert ndcg(["b"], ranked, 4) == pytest.approx(1 / 2)  # log2(4) = 2
    assert ndcg(["a", "b"], ranked, 3) == pytest.approx((1 + 1 / 2) / (1 + 1 / 1.5849625))
    assert first_seen(["s1", "s2", "s1", None, "s3"]) == ["s1", "s2", None, "s3"]
    with pytest.raises(ValueError):
        ndcg([], ranked, 3)


def test_the_benchmark_runs_engines_side_by_side(oracle_file, tmp_path, capsys):
    out = tmp_path / "lme.json"
    md = tmp_path / "lme.md"
    code = main(
        [
            "longmemeval", "--data", str(oracle_file), "--engines", "bm25,hybrid",
            "--k", "1,3", "--pool", "1", "--repeats", "1", "--json", str(out),
            "--markdown", str(md),
        ]
    )  # fmt: skip
    assert code == 0
    result = json.loads(out.read_text())
    assert result["questions"] == 3 and result["abstention"] == 1 and result["pool"] == 1
    assert result["type_sizes"] == {"knowledge-update": 1, "single-session-user": 1, "all": 2}
    bm25 = result["engines"]["bm25"]
    # "kayak" and "colour" meet the evidence turn first
    assert bm25["recall"]["1"]["evidence"]["single-session-user"] == 1.0
    for name in ("bm25", "hybrid"):
        e = result["engines"][name]
        assert e["ingest_turns_per_s"] > 0 and e["ingest_pieces_per_s"] > e["ingest_turns_per_s"]
        assert e["first_search_ms_p50"] > 0 and e["later_search_ms_p50"] > 0
        for metric in ("evidence", "any_turn", "all_turn", "any_session", "all_session", "ndcg"):
            assert 0.0 <= e["recall"]["3"][metric]["all"] <= 1.0
    text = md.read_text()
    assert "Evidence recall@k on LongMemEval" in text and "any session" in text


def test_readers_answer_from_the_same_recall(oracle_file, tmp_path):
    data = json.loads(oracle_file.read_text())
    data[0]["answer"] = "turquoise"
    data[1]["answer"] = "in Lisbon, since last week, by the sea"  # more than 4 words
    oracle_file.write_text(json.dumps(data))
    out = tmp_path / "lme.json"
    md = tmp_path / "lme.md"
    code = main(
        [
            "longmemeval", "--data", str(oracle_file), "--engines", "hybrid",
            "--k", "3", "--pool", "1", "--repeats", "0", "--readers", "none,none@typed",
            "--json", str(out), "--markdown", str(md),
        ]
    )  # fmt: skip
    assert code == 0
    readers = json.loads(out.read_text())["engines"]["hybrid"]["readers"]
    assert list(readers) == ["none", "none@typed"]
    for r in readers.values():
        assert r["answers"] == 3  # two answerable, one abstention
        assert 0.0 <= r["containment"] <= 1.0 and 0.0 <= r["f1"] <= 1.0
        assert r["abstention_refusal"] in (0.0, 1.0) and r["latency_p50_s"] >= 0
        # containment on the short gold answers: only "turquoise"
        assert r["short_answers"] == 1 and 0.0 <= r["containment_short"] <= 1.0
    # one reader and the same mode by name: the same answers
    assert readers["none"]["containment"] == readers["none@typed"]["containment"]
    text = md.read_text()
    assert "Readers side by side over the same recall" in text
    assert "containment, short answers (≤4 words)" in text and "(n=1)" in text


def test_short_answer_containment_counts_only_answerable_short_gold():
    reading = lme_runner._Reading
    rows = [
        reading(False, False, 1.0, 1.0, 0.1, True),  # short, contained
        reading(False, True, 1.0, 1.0, 0.1, True),  # short, refused: scores 0
        reading(False, False, 0.0, 0.2, 0.1, False),  # long gold: not in the short figure
        reading(True, True, 0.0, 0.0, 0.1, True),  # abstention: never in it
    ]
    summary = lme_runner._reader_summary(rows)
    assert summary["short_answers"] == 2 and summary["containment_short"] == 0.5
    assert summary["containment"] == 1 / 3
    assert lme_runner._reader_summary(rows[2:])["containment_short"] is None


@pytest.mark.skipif(DEV is None, reason="LongMemEval development split not available")
def test_the_development_split_reads_and_pools():
    qs = load_longmemeval(DEV)
    assert len(qs) == 399 and sum(q.abstention for q in qs) == 24 and is_oracle(qs)
    assert all(q.evidence or q.abstention for q in qs)
    one = pooled(qs, 45, seed=0)[0]
    assert len(one.sessions) == len(qs[0].sessions) + 45


def test_the_embedding_cache_embeds_each_text_once_across_runs(tmp_path, embedder):
    from remem_bench.embedcache import DiskCachedEmbedder

    calls: list[int] = []

    class Counting(type(embedder)):  # the real model, counting what it embeds
        def embed(self, texts):
            calls.append(len(texts))
            return embedder.embed(texts)

    inner = Counting.__new__(Counting)
    inner.__dict__.update(embedder.__dict__)
    path = tmp_path / "cache.npz"
    first = DiskCachedEmbedder(inner, path)
    a = first.embed(["one text", "two texts", "one text"])
    first.save()
    assert sum(calls) == 2 and path.is_file()
    second = DiskCachedEmbedder(inner, path)
    b = second.embed(["two texts", "one text", "three"])
    assert sum(calls) == 3  # only "three" was new
    assert np.array_equal(b[0], a[1]) and np.array_equal(b[1], a[0])
    second.save()
    assert len(DiskCachedEmbedder(inner, path)._disk) == 3
