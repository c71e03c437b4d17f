"""``Memory.context``: the prompt-ready block of memory for an agent's next LLM call
(``remem/answer/context.py``), and the reader's fitting it shares."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from remem import InvalidFilterError, InvalidInputError, InvalidTypeError
from remem.answer.context import MEMORIES, SUPERSEDED, build_context
from remem.answer.reader import fit_lines
from remem.tokens import estimate_tokens
from remem.types import Hit, Recall
from sample_conversation import BOB

TURNS = BOB
MOVES = [
    {"text": "I live in Lisbon", "speaker": "Ana", "timestamp": "2023-01-10T12:00:00+00:00"},
    {"text": "My dog is called Rex", "speaker": "Ana", "timestamp": "2023-03-10T12:00:00+00:00"},
    {"text": "I moved to Porto", "speaker": "Ana", "timestamp": "2023-06-10T12:00:00+00:00"},
]


def test_the_block_holds_the_answer_with_its_date_and_speaker(open_memory):
    mem = open_memory()
    mem.add_many(TURNS, "bob")
    block = mem.context("What is the name of Bob's greyhound?", "bob", k=3)
    lines = block.splitlines()
    assert lines[0] == MEMORIES
    assert lines[1] == f"[8 May 2023] Bob: {TURNS[0]['text']}"  # best first
    assert len(lines) == 4


def test_an_empty_memory_gives_an_empty_string(open_memory):
    mem = open_memory()
    assert mem.context("Where do I live?", "nobody") == ""
    mem.add_many(TURNS, "bob")
    assert mem.context("Where do I live?", "nobody") == ""


@pytest.mark.parametrize("engine", ["hybrid", "ilstma"])
def test_the_block_never_exceeds_max_tokens(open_memory, engine):
    mem = open_memory(engine=engine)
    long = " ".join(f"word{i}" for i in range(300))
    mem.add_many([*TURNS, *MOVES, {"text": long, "speaker": "Bob"}], "bob")
    for budget in (1, 2, 5, 12, 30, 44, 60, 120, 400, 5000):
        block = mem.context("Where does Ana live, and Bob's dog?", "bob", max_tokens=budget)
        assert block and estimate_tokens(block) <= budget, (budget, block)
    small = mem.context("greyhound", "bob", max_tokens=20)
    assert MEMORIES not in small  # a tight budget goes to memories, not to the heading
    if engine == "hybrid":  # (ILSTMA's summary takes up to half of it)
        assert "Biscuit" in small


def test_one_users_context_never_shows_anothers_memories(open_memory):
    mem = open_memory()
    mem.add_many(TURNS, "bob")
    mem.add_many(MOVES, "ana")
    for query in ("Where do I live now?", "greyhound Biscuit", "Lisbon"):
        bob = mem.context(query, "bob", k=10, max_tokens=5000)
        ana = mem.context(query, "ana", k=10, max_tokens=5000)
        assert not any(t["text"] in bob for t in MOVES)
        assert not any(t["text"] in ana for t in TURNS)


@pytest.mark.parametrize("engine", ["hybrid", "ilstma"])
def test_a_superseded_fact_is_marked_and_the_newer_one_kept(open_memory, engine):
    mem = open_memory(engine=engine)
    mem.add_many(MOVES, "ana")
    block = mem.context("Where do I live now?", "ana", k=3)
    lines = block[block.index(MEMORIES) :].splitlines()  # past ILSTMA's recent turns
    porto = next(i for i, line in enumerate(lines) if "Porto" in line)
    lisbon = next(i for i, line in enumerate(lines) if "Lisbon" in line)
    assert lines[lisbon] == f"[10 January 2023, {SUPERSEDED}] Ana: I live in Lisbon"
    assert lines[porto] == "[10 June 2023, latest] Ana: I moved to Porto"
    assert porto < lisbon


def test_the_newer_memory_is_fetched_when_the_recall_left_it_out():
    when = datetime(2023, 1, 10, tzinfo=timezone.utc)
    old = Hit("old", "I live in Lisbon", 1.0, "Ana", when, None, superseded_by="new")
    new = Hit("new", "I moved to Porto", 1.0, "Ana", when.replace(month=6), None)
    asked: list[list[str]] = []

    def fetch(ids: list[str]) -> list[Hit]:
        asked.append(ids)
        return [new] if "new" in ids else []

    block = build_context(Recall([old], 1.0, False), 1000, fetch)
    assert asked == [["new"]]
    assert block.splitlines()[1:] == [
        "[10 June 2023, latest] Ana: I moved to Porto",
        f"[10 January 2023, {SUPERSEDED}] Ana: I live in Lisbon",
    ]


def test_ilstma_segments_come_first_under_headings(open_memory):
    mem = open_memory(engine="ilstma")
    mem.add_many(MOVES, "ana")
    lines = mem.context("Where do I live now?", "ana", k=2).splitlines()
    assert lines[0] == "Recent turns:"
    assert lines[1:4] == [f"- Ana: {t['text']}" for t in MOVES]  # oldest first
    assert lines[4] == MEMORIES


def test_summary_and_profile_come_before_the_turns_within_half_the_budget():
    when = datetime(2023, 1, 10, tzinfo=timezone.utc)
    hit = Hit("a", "I moved to Porto", 1.0, "Ana", when, None)
    segments = {
        "summary": "Ana moved from Lisbon to Porto. " * 40,
        "personality": "Curious, likes dogs.",
        "history": ["Ana: hello", "Ana: I moved to Porto"],
        "cache": ["not shown"],
    }
    block = build_context(Recall([hit], 1.0, False, segments=segments), 200, lambda ids: [])
    lines = block.splitlines()
    assert lines[0] == "Summary:" and lines[1].endswith("...")  # clipped
    assert lines[-2:] == [MEMORIES, "[10 January 2023] Ana: I moved to Porto"]
    assert estimate_tokens("\n".join(lines[:-2])) <= 100 and "not shown" not in block
    roomy = build_context(Recall([hit], 1.0, False, segments=segments), 2000, lambda ids: [])
    assert roomy.index("Summary:") < roomy.index("Profile:") < roomy.index("Recent turns:")


def test_filters_hold(open_memory):
    mem = open_memory()
    mem.add_many(TURNS, "bob")
    block = mem.context("greyhound", "bob", filters={"session_id": "s2"})
    assert "penicillin" in block and "Biscuit" not in block
    assert mem.context("greyhound", "bob", filters={"speaker": "Nobody"}) == ""


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        (("", "bob"), {}, InvalidInputError),
        (("   ", "bob"), {}, InvalidInputError),
        ((None, "bob"), {}, InvalidTypeError),
        (("dog?", ""), {}, InvalidInputError),
        (("dog?", 7), {}, InvalidTypeError),
        (("dog?", "bob"), {"max_tokens": 0}, InvalidInputError),
        (("dog?", "bob"), {"max_tokens": -5}, InvalidInputError),
        (("dog?", "bob"), {"max_tokens": "100"}, InvalidTypeError),
        (("dog?", "bob"), {"max_tokens": 10.0}, InvalidTypeError),
        (("dog?", "bob"), {"max_tokens": True}, InvalidTypeError),
        (("dog?", "bob"), {"k": 0}, InvalidInputError),
        (("dog?", "bob"), {"now": "soonish"}, InvalidInputError),
        (("dog?", "bob"), {"filters": {"nope": 1}}, InvalidFilterError),
    ],
)
def test_bad_input_is_refused(open_memory, args, kwargs, error):
    mem = open_memory()
    mem.add_many(TURNS, "bob")
    with pytest.raises(error):
        mem.context(*args, **kwargs)


def test_fit_lines_keeps_the_best_memory_and_skips_what_does_not_fit():
    when = datetime(2023, 5, 8, tzinfo=timezone.utc)
    best = Hit("a", "short", 1.0, "Bob", when, None)
    big = Hit("b", "long " * 100, 0.9, "Bob", when, None)
    small = Hit("c", "tiny", 0.8, None, when, None)
    lines, kept = fit_lines([best, big, small], [], {"a": "latest"}, 30, estimate_tokens)
    assert lines == [] and [h.id for h, _ in kept] == ["a", "c"]
    assert kept[0][1] == "[8 May 2023, latest] Bob: short"
    _, first = fit_lines([big], [], {}, 10, estimate_tokens)
    assert first[0][1].endswith("...") and estimate_tokens(first[0][1]) <= 9
