"""No stored or given time can make a question fail (issue 34, finding 1).

The valid range is every time that exists in UTC: years 1 to 9999, in any time zone
whose offset keeps it inside them. ``0001-01-01T00:00:00`` (.NET's
``DateTime.MinValue``, common in real exports) and ``9999-12-31T23:59:59`` are
stored as given; a time that UTC cannot hold (``0001-01-01T00:00+01:00``) is refused
at ``add`` with ``InvalidInputError``. Once stored, every question of that user, and
a question asked with ``now`` anywhere in the range, gets an answer: the windows a
time expression names are held at the ends of the range instead of overflowing.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from remem import InvalidInputError, Memory

ENGINES = ["hybrid", "synapse", "ilstma", "dense", "bm25"]
QUESTIONS = [
    "What did I do last weekend?",
    "What have I done recently?",
    "What did I do in May?",
    "What did I buy yesterday?",
    "What did I do last Saturday?",
    "Where did I go in December?",
    "What did I do three days ago?",
    "What did I do last year?",
    "What happened on March 5th?",
]
STORED = [
    "0001-01-01T00:00:00",
    "9999-12-31T23:59:59",
    "9999-12-31T23:59:59.999999",
    "0001-01-01T00:00:00-05:00",
    "9999-12-31T23:59:59+05:00",
    "2024-03-03T10:00:00+13:45",
]
EDGE_NOWS = ["0001-01-01", "0001-01-01T00:00:00-14:00", "9999-12-25", "9999-12-31T23:59:59"]


@pytest.fixture(scope="module", params=ENGINES)
def extreme(request: pytest.FixtureRequest, embedder) -> Iterator[Memory]:
    """A user whose memories were stamped at both ends of time, told with words that
    name times of their own ("last weekend", said in year 1)."""
    with Memory(":memory:", engine=request.param, embedder=embedder, llm="none") as mem:
        for i, ts in enumerate(STORED):
            mem.add(
                f"I went hiking last weekend, in May, yesterday and 3 days ago (note {i})",
                user_id="u",
                timestamp=ts,
                session_id=f"s{i}",
            )
        mem.add("I bought a bike yesterday", user_id="u", timestamp="2024-03-03T10:00:00")
        yield mem


@pytest.mark.parametrize("now", [None, *EDGE_NOWS])
def test_extreme_stored_times_answer_every_question(extreme: Memory, now: str | None) -> None:
    for question in QUESTIONS:
        # none of these raises (each did before the windows were held inside time)
        assert len(extreme.search(question, user_id="u", k=5, now=now)) <= 5
        assert len(extreme.recall(question, user_id="u", k=5, now=now).hits) <= 5
        assert extreme.answer(question, user_id="u", now=now).text  # an answer or a refusal
    # the dense channel finds the hikes whatever their time
    assert extreme.search("where did I go hiking last weekend?", user_id="u", k=3, now=now)


@pytest.mark.parametrize(
    "ts", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-00:01"], ids=["before", "after"]
)
def test_a_time_utc_cannot_hold_is_refused_at_add(open_memory, ts: str) -> None:
    mem = open_memory()
    with pytest.raises(InvalidInputError, match="outside the range of UTC times"):
        mem.add("a note", user_id="u", timestamp=ts)
    with pytest.raises(InvalidInputError, match="outside the range of UTC times"):
        mem.search("what did I do last Saturday?", user_id="u", now=ts)
    assert mem.count("u") == 0


_ZONES = st.one_of(
    st.none(),
    st.integers(-1439, 1439).map(lambda m: timezone(timedelta(minutes=m))),
    st.timezones(),
)
_TIMES = st.one_of(st.sampled_from([datetime.min, datetime.max]), st.datetimes())


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(stored=_TIMES, asked=_TIMES, zone=_ZONES, question=st.sampled_from(QUESTIONS))
def test_no_time_makes_a_question_fail(
    embedder, stored: datetime, asked: datetime, zone, question: str
) -> None:
    """Any time, in any zone: either refused at the door with InvalidInputError, or
    accepted, and then every engine answers."""
    for engine in ("hybrid", "synapse", "ilstma"):
        with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
            try:
                mem.add(
                    "I went hiking last Saturday",
                    user_id="u",
                    timestamp=stored.replace(tzinfo=zone),
                )
            except InvalidInputError:
                continue
            mem.add("I bought a bike yesterday", user_id="u", timestamp="2024-03-03T10:00:00")
            now = asked.replace(tzinfo=zone)
            try:
                hits = mem.search(question, user_id="u", k=2, now=now)
            except InvalidInputError:
                continue  # a ``now`` UTC cannot hold is refused like a stored one
            assert len(hits) == 2
            assert mem.recall(question, user_id="u", k=2, now=now).hits
