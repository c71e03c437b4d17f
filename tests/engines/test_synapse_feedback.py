"""SYNAPSE's deeper ranks from a second search (``feedback``): a search for more than
``feedback_keep`` memories keeps its first ranks and orders the rest with a search
from the question moved toward its best memories, so a turn that speaks as the best
ones do, in none of the question's words, comes up from below."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from remem import InvalidInputError, Memory

T0 = datetime(2025, 2, 3, 18, tzinfo=timezone.utc)
QUESTION = "What does Priya practise every evening after work?"
BEST = "Priya practises the cello every evening after work, scales first."
#: shares no word with the question, several with the best memory; four of the
#: others share none either, and are nearer the question in meaning
BESIDE = "The luthier restrung the cello and rehaired the bow; scales sound warmer now."
FILLERS = [
    "Priya cooked dal on Tuesday evening.",
    "Work was busy for Priya this week.",
    "After work Priya walked along the canal.",
    "The neighbours play loud music most nights.",
    "Priya said the evening train was late again.",
    "Drinks were on Friday after the meeting.",
    "Priya reads a chapter every evening before bed.",
    "The spin class at the gym was full.",
    "Priya's work laptop broke on Monday.",
    "After work I usually call my sister.",
    "Priya watered the plants in the evening.",
    "Every week Priya visits her grandmother after work.",
    "The office closes early on Fridays.",
    "Priya practised her presentation for work.",
]


def _memory(feedback: float) -> Memory:
    """The question's own words are everywhere; the best memory alone moves the second
    search (``feedback_from`` 1: here the next best are about the evening and work)."""
    mem = Memory(
        ":memory:",
        engine="synapse",
        llm="none",
        engine_options={"feedback": feedback, "feedback_from": 1},
        time_options={"updates": False},
    )
    texts = [BEST, *FILLERS, BESIDE]
    mem.add_many(
        [{"text": t, "timestamp": T0 + timedelta(minutes=i)} for i, t in enumerate(texts)],
        user_id="u",
    )
    return mem


def _texts(mem: Memory, k: int) -> list[str]:
    return [h.text for h in mem.search(QUESTION, user_id="u", k=k)]


def test_a_turn_like_the_best_rises_in_the_deeper_ranks():
    with _memory(1.0) as on, _memory(0.0) as off:
        deep_on, deep_off = _texts(on, 16), _texts(off, 16)
        assert deep_on[0] == BEST == deep_off[0]
        assert deep_on.index(BESIDE) < deep_off.index(BESIDE), (deep_on, deep_off)
        # the first ranks are the search's own, asked deep or not, on or off
        assert deep_on[:10] == deep_off[:10] == _texts(on, 10) == _texts(off, 10)
        assert _texts(on, 3) == deep_on[:3]
        scores = [h.score for h in on.search(QUESTION, user_id="u", k=16)]
        assert scores == sorted(scores, reverse=True)  # still falling down the list


def test_feedback_settings_are_checked():
    with pytest.raises(InvalidInputError):
        Memory(":memory:", engine="synapse", llm="none", engine_options={"feedback": -1})
    with pytest.raises(InvalidInputError):
        Memory(":memory:", engine="synapse", llm="none", engine_options={"feedback_keep": 0})


def _engine_order(mem: Memory, k: int, shown: int | None) -> list[str]:
    """The engine's own order (texts), asked ``k`` deep of which ``shown`` are shown."""
    vec = mem._embedder.embed_one(QUESTION)
    hits = mem._engine.search("u", QUESTION, vec, k, shown=shown)
    return [mem.get(h.id, user_id="u").text for h in hits]


def test_ranks_past_the_shown_keep_the_search_s_own_order():
    """A stage that draws deeper than the caller shows (the time window over the first
    50) reads the first search's order past the shown ranks: a search for 10, asked 16
    deep, is the search without feedback; one showing 12 reorders only ranks 11-12."""
    with _memory(1.0) as on, _memory(0.0) as off:
        plain = _engine_order(off, 16, None)
        assert _engine_order(on, 16, 10) == plain
        twelve = _engine_order(on, 16, 12)
        assert twelve[:12] == _engine_order(on, 12, None)
        assert twelve[12:] == [i for i in plain if i not in twelve[:12]][:4]
        assert _engine_order(on, 16, None) != plain  # the whole depth shown: reordered
