"""The events stage (recall/events.py): a question comparing two events gets the
memory of each event into the top k, even where the whole question's ranking fills
it with one event's memories."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from remem.engines.base import Scored
from remem.question import read_question
from remem.recall.events import EventsStage

NOW = datetime(2024, 5, 30, 12, tzinfo=timezone.utc)
QUESTION = (
    "How many days passed between the day I repainted the garden fence and the day "
    "I adopted the kitten?"
)


def test_both_events_reach_the_top_k(open_memory):
    mem = open_memory()
    start = NOW - timedelta(days=40)
    fence = [
        "I repainted the garden fence today, it took all day.",
        "The garden fence paint was a deep green, the fence looks new.",
        "Repainting a garden fence needs two coats on old wood.",
        "My neighbour liked the garden fence I repainted.",
    ]
    ids = [mem.add(t, "u", timestamp=start + timedelta(hours=i)) for i, t in enumerate(fence)]
    kitten = mem.add(
        "I adopted a kitten from the shelter yesterday.", "u", timestamp=start + timedelta(days=9)
    )
    for i in range(20):  # other talk
        mem.add(f"I cooked pasta number {i} for dinner.", "u", timestamp=start + timedelta(days=i))
    stage = EventsStage(mem._engine.ctx.embedder, mem._engine.ctx.store, mem._engine.ctx.indexes)
    q = read_question(QUESTION, NOW)
    assert stage.depth(q, 3) > 3  # a deeper list, to reach the second event
    ranked = [*ids, kitten]
    handed = [Scored(i, 1.0) for i in ranked]  # the whole question's order: fence first
    top = [h.id for h in stage("u", q, handed, 3)]
    assert kitten in top and ids[0] in top
    assert any("adopted the kitten" in h.note for h in stage("u", q, handed, 3))


def test_other_questions_keep_the_order(open_memory):
    mem = open_memory()
    a = mem.add("I repainted the garden fence.", "u", timestamp=NOW - timedelta(days=3))
    b = mem.add("I adopted a kitten.", "u", timestamp=NOW - timedelta(days=2))
    stage = EventsStage(mem._engine.ctx.embedder, mem._engine.ctx.store, mem._engine.ctx.indexes)
    q = read_question("What did I do with the fence?", NOW)
    assert stage.depth(q, 2) == 2
    assert [h.id for h in stage("u", q, [Scored(a, 1.0), Scored(b, 0.5)], 2)] == [a, b]


def test_memory_search_gets_both_events(open_memory):
    """Through the public API: the stage is one of every recall's stages."""
    mem = open_memory()
    start = NOW - timedelta(days=40)
    for i in range(6):
        mem.add(
            f"I repainted the garden fence today, coat {i} of the fence paint on the fence.",
            "u",
            timestamp=start + timedelta(hours=i),
        )
    kitten = mem.add(
        "I adopted a kitten from the shelter yesterday.", "u", timestamp=start + timedelta(days=9)
    )
    hits = mem.search(QUESTION, user_id="u", k=3, now=NOW)
    assert kitten in [h.id for h in hits]
