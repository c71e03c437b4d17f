"""Two-step times: an offset from another event, anchored on the memory that tells of
it (``time/anchors.py``, ``window.two_step_window``, the time stage)."""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone

import pytest

from remem import Memory
from remem.time.anchors import derive, find_anchored, resolve_anchored
from remem.time.events import event_times
from remem.time.window import question_window, time_window

NOW = datetime(2024, 5, 8, 15, 0)  # a Wednesday


def _day(s: str) -> int:
    return datetime.fromisoformat(s).date().toordinal()


@pytest.mark.parametrize(
    "text, words, count, unit, relation, head",
    [
        ("what did I do two days after the wedding?", "two days after the wedding", 2, "day",
         "after", "wedding"),
        ("the week before my birthday", "the week before my birthday", 1, "week", "before",
         "birthday"),
        ("a day before the trip to Lisbon, I packed", "a day before the trip to Lisbon", 1,
         "day", "before", "trip"),
        ("what have I cooked since the move?", "since the move", 0, "day", "since", "move"),
        ("the day before my sister's graduation", "the day before my sister's graduation", 1,
         "day", "before", "graduation"),
    ],
)  # fmt: skip
def test_two_step_expressions_are_read(text, words, count, unit, relation, head):
    a = find_anchored(text)
    assert a is not None and (a.words, a.count, a.unit, a.relation, a.head) == (
        words, count, unit, relation, head)  # fmt: skip


@pytest.mark.parametrize(
    "text",
    ["the day after tomorrow", "the week before last", "since last year", "what did I eat?",
     "two days after that"],
)  # fmt: skip
def test_one_step_times_and_no_anchor_are_not_two_step(text):
    assert find_anchored(text) is None


def test_the_interval_is_derived_from_the_anchor_days():
    wed = _day("2024-04-20")  # a Saturday
    a = find_anchored("two days after the wedding")
    assert a is not None and derive(a, (wed, wed + 1), wed + 30) == (wed + 2, wed + 3, "day")
    a = find_anchored("the week before the wedding")
    assert a is not None and derive(a, (wed, wed + 1), wed) == (wed - 7, wed, "span")
    a = find_anchored("since the wedding")
    assert a is not None and derive(a, (wed, wed + 1), wed + 10) == (wed, wed + 11, "span")


def test_an_anchor_not_found_gives_no_window():
    said = datetime(2024, 4, 1, 10)
    a = find_anchored("what did I eat the day after the concert?")
    assert a is not None
    mems = [("I love cooking pasta.", said), ("The concert was amazing!", said)]  # no date
    assert resolve_anchored(a, [(t, s, event_times(t, s)) for t, s in mems], NOW) is None
    # never the moment of asking in its place, nor a one-step reading of the words
    assert question_window("what did I eat the day after the concert?", NOW) is None
    assert time_window("what did I eat the day after the concert?", NOW) is None


def test_the_anchor_said_nearest_before_the_question_wins():
    mems = [
        ("Dinner with Sam is on Friday.", datetime(2024, 3, 4, 10)),
        ("We had dinner with Sam on Tuesday.", datetime(2024, 4, 25, 10)),
    ]
    w = question_window(
        "What did I wear the day after the dinner with Sam?",
        NOW,
        [(t, s, event_times(t, s)) for t, s in mems],
    )
    assert w is not None and (w.start, w.end) == (datetime(2024, 4, 24), datetime(2024, 4, 25))
    assert "dinner with Sam on Tuesday" in w.phrase


def test_a_two_step_question_ranks_what_was_told_then(embedder):
    utc = timezone.utc
    with Memory(":memory:", engine="hybrid", embedder=embedder, llm="none") as mem:
        mem.add(
            "My cousin's wedding is on Saturday, I'm so excited!",
            user_id="u",
            timestamp=datetime(2024, 4, 15, 10, tzinfo=utc),
        )
        # distinct turns (identical ones would be versions of one another); one tells
        # of something relative to the wedding, which is not the wedding's own time
        for day, what in (
            (10, "Today I went to a pottery class."),
            (22, "Today I fixed the bike with my brother."),
            (30, "Today I baked bread, the first time after the wedding weekend."),
        ):
            mem.add(what, user_id="u", timestamp=datetime(2024, 4, day, 18, tzinfo=utc))
        now = datetime(2024, 5, 8, 15, tzinfo=utc)
        hits = mem.search("What did I do two days after the wedding?", "u", k=4, now=now)
        top = hits[0]
        assert top.timestamp.day == 22, [(h.timestamp, h.text) for h in hits]
        # the anchor said nearest before the question, when two tell of weddings
        mem.add(
            "Anna's wedding was on Sunday!",
            user_id="u",
            timestamp=datetime(2024, 5, 6, 9, tzinfo=utc),
        )
        mem.add(
            "Today I walked the dog.", user_id="u", timestamp=datetime(2024, 5, 7, 9, tzinfo=utc)
        )
        hits = mem.search("What did I do two days after the wedding?", "u", k=6, now=now)
        assert hits[0].text == "Today I walked the dog."


def test_a_memory_anchored_on_another_is_found_in_the_window_it_tells_of(tmp_path, embedder):
    utc = timezone.utc
    db = tmp_path / "m.db"
    with Memory(str(db), engine="hybrid", embedder=embedder, llm="none") as mem:
        mem.add(
            "My cousin's wedding is on Saturday, I'm so excited!",
            user_id="u",
            timestamp=datetime(2024, 4, 15, 10, tzinfo=utc),
        )  # Saturday 20 April
        mem.add("I fixed the bike.", user_id="u", timestamp=datetime(2024, 4, 22, 18, tzinfo=utc))
        hike = mem.add(
            "I went hiking in the hills two days after the wedding.",
            user_id="u",
            timestamp=datetime(2024, 4, 26, 9, tzinfo=utc),
        )
        # stored at ingest, unresolved
        rows = (
            sqlite3.connect(db)
            .execute("SELECT words, count, unit, relation, anchor FROM event_anchors")
            .fetchall()
        )
        assert rows == [("two days after the wedding", 2, "day", "after", "the wedding")]
        now = datetime(2024, 5, 8, 15, tzinfo=utc)
        hits = mem.search("What did I do on April 22?", "u", k=3, now=now)
        # said four days later, it tells of Monday 22 April: it goes ahead of the
        # memory merely said that day
        assert hits[0].id == hike, [(h.timestamp, h.text) for h in hits]
        assert mem.delete(hike, "u")
        assert sqlite3.connect(db).execute("SELECT count(*) FROM event_anchors").fetchone() == (0,)


@pytest.mark.parametrize(
    "text",
    [
        "Take your time, since the wait can be hard.",  # a reason, not a time
        "I've loved it since the beginning.",
        "since my time in the military",
        "since my first tournament hasn't gone well",
    ],
)
def test_since_as_a_reason_or_a_vague_start_is_not_two_step(text):
    assert find_anchored(text) is None


def test_the_head_noun_skips_ordinals_and_possessors():
    a = find_anchored("What did I eat two days after my first marathon?")
    assert a is not None and a.head == "marathon"
