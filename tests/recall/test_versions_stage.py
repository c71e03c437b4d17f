"""The versions stage (recall/versions.py): a question about a value that changes gets
a second conversation's telling into its top k when one conversation fills it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from remem.engines.base import Scored
from remem.question import read_question
from remem.recall.versions import VersionsStage

NOW = datetime(2023, 6, 20, 12, tzinfo=timezone.utc)
HOURS = "How many hours have I spent on my abstract ocean sculpture?"


def _history(mem, sessions: tuple[str | None, str | None] = ("a", "b")) -> tuple[str, list[str]]:
    """The older telling (first session) and the newer session's turns, best first."""
    older = mem.add(
        "I've been working on an abstract ocean sculpture, around 5-6 hours so far.",
        "u",
        timestamp=NOW - timedelta(days=9),
        session_id=sessions[0],
    )
    newer = [
        "I've already spent 10-12 hours on my abstract ocean sculpture.",
        "Any tips for the texture of an ocean sculpture?",
        "I might add seashells to my abstract ocean sculpture.",
        "The sculpture's blues came out well.",
    ]
    ids = [
        mem.add(t, "u", timestamp=NOW - timedelta(days=3, minutes=-i), session_id=sessions[1])
        for i, t in enumerate(newer)
    ]
    return older, ids


def _stage(mem) -> VersionsStage:
    return VersionsStage(mem._engine.ctx.indexes)


def test_a_value_question_gets_the_earlier_conversations_telling(open_memory):
    mem = open_memory()
    older, newer = _history(mem)
    stage, q = _stage(mem), read_question(HOURS, NOW)
    assert stage.depth(q, 3) > 3  # a deeper list, to reach the earlier telling
    top = stage("u", q, [Scored(i, 1.0) for i in [*newer, older]], 3)
    assert [h.id for h in top] == [newer[0], newer[1], older]
    assert "another conversation" in top[-1].note


@pytest.mark.parametrize(
    "question",
    [
        "Where is my studio now?",  # the current state: an order word
        "What did I first use for the base, initially?",
    ],
)
def test_order_words_ask_a_value_too(open_memory, question):
    mem = open_memory()
    older, newer = _history(mem)
    top = _stage(mem)(
        "u", read_question(question, NOW), [Scored(i, 1.0) for i in [*newer, older]], 3
    )
    assert top[-1].id == older


def test_other_questions_and_mixed_or_sessionless_tops_are_left_alone(open_memory):
    mem = open_memory()
    older, newer = _history(mem)
    stage = _stage(mem)
    handed = [Scored(i, 1.0) for i in [*newer, older]]
    plain = read_question("What texture tips did I get for my sculpture?", NOW)
    assert stage.depth(plain, 3) == 3
    assert [h.id for h in stage("u", plain, handed, 3)] == newer[:3]
    value = read_question(HOURS, NOW)
    mixed = [Scored(i, 1.0) for i in [newer[0], older, *newer[1:]]]
    assert [h.id for h in stage("u", value, mixed, 3)] == [newer[0], older, newer[1]]
    assert [h.id for h in stage("u", value, handed, 2)] == newer[:2]  # too few places
    bare = open_memory()
    b_older, b_newer = _history(bare, (None, None))
    top = _stage(bare)("u", value, [Scored(i, 1.0) for i in [*b_newer, b_older]], 3)
    assert [h.id for h in top] == b_newer[:3]  # no sessions: nothing to tell apart


def test_recall_runs_it_for_every_engine(open_memory):
    for engine in ("hybrid", "synapse"):
        mem = open_memory(engine=engine)
        older, _ = _history(mem)
        for i in range(12):  # the newer session's other talk about it
            mem.add(
                f"My abstract ocean sculpture needs glaze coat {i}, I think.",
                "u",
                timestamp=NOW - timedelta(days=2, minutes=-i),
                session_id="b",
            )
        hits = mem.recall(HOURS, "u", k=3, now=NOW).hits
        assert older in [h.id for h in hits]
