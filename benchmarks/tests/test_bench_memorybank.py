"""MemoryBank loading with remem's evidence labels, and a small benchmark run."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remem_bench.memorybank import load_memorybank, probing_questions
from remem_bench.runner import run_memorybank
from shared_data import find_data

BANK = find_data("memorybank", "memory_bank_en.json")
PROBES = find_data("memorybank", "probing_questions_en.jsonl")
needs_bank = pytest.mark.skipif(BANK is None, reason="MemoryBank data not available")


@pytest.fixture
def tiny_bank(tmp_path: Path) -> tuple[Path, Path]:
    history = {
        " Zoe ": {
            "name": "Zoe",
            "history": {
                "2023-05-02": [
                    {"query": "I adopted a kitten named Miso.", "response": "Lovely name!"},
                ],
                "2023-05-01": [
                    {"query": "Hi, I'm Zoe.", "response": "Hello Zoe."},
                    {"query": "", "response": "Anything else on your mind?"},
                ],
            },
        }
    }
    labels = {
        "questions": [
            {"user": "Zoe", "question": "What is my kitten called?", "evidence": ["2023-05-02:0"]},
            {"user": "Zoe", "question": "What did I cook?", "evidence": []},
            {"user": "Zoe", "question": "Typo?", "evidence": ["2023-06-01:9"]},
        ]
    }
    data = tmp_path / "bank.json"
    data.write_text(json.dumps(history))
    lab = tmp_path / "labels.json"
    lab.write_text(json.dumps(labels))
    return data, lab


def test_loader_pairs_become_two_memories_in_date_order(tiny_bank):
    data, labels = tiny_bank
    (conv,) = load_memorybank(data, labels)
    assert conv.sample_id == "Zoe"  # stray spaces stripped
    turns = conv.turns
    assert [t.session_id for t in turns] == ["2023-05-01"] * 3 + ["2023-05-02"] * 2
    assert [t.dia_id for t in turns] == ["2023-05-01:0"] * 2 + ["2023-05-01:1"] + [
        "2023-05-02:0"
    ] * 2
    assert [t.speaker for t in turns[:3]] == ["Zoe", "AI", "AI"]  # the empty query is skipped
    assert all(a.timestamp < b.timestamp for a, b in zip(turns, turns[1:], strict=False))
    # unknown evidence ids are dropped; questions left without evidence are not asked
    asked = probing_questions(conv)
    assert [q.question for q in asked] == ["What is my kitten called?"]
    assert asked[0].category == 0


def test_run_memorybank_on_tiny_file(tiny_bank, embedder):
    data, labels = tiny_bank
    result = run_memorybank(
        str(data), ["bm25", "synapse"], (1, 2), labels=str(labels), embedder=embedder
    )
    assert result["benchmark"] == "memorybank-retrieval"
    assert result["questions"] == 1
    assert set(result["subset_sizes"]) == {"all", "cos<0.5", "cos<0.3"}
    assert result["engines"]["bm25"]["recall"]["2"]["all"] == 1.0  # "kitten" is in the pair


@needs_bank
def test_bundled_labels_cover_every_probing_question():
    convs = {c.sample_id: c for c in load_memorybank(BANK)}
    probes = {}
    for line in PROBES.read_text("utf-8").splitlines():
        for user, questions in json.loads(line).items():
            probes[user.strip()] = questions
    assert set(convs) == set(probes)
    for user, questions in probes.items():
        labelled = [q.question for q in convs[user].questions]
        assert labelled == questions
        known = {t.dia_id for t in convs[user].turns}
        for q in convs[user].questions:
            assert set(q.evidence) <= known
    asked = sum(len(probing_questions(c)) for c in convs.values())
    assert asked == 99  # one question asks about a day with no conversation
