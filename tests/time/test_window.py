"""The window a question names, read by the rules that read memories' event times
(``time/window.py``; moved here from the old ``timeexpr.py`` tests)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone, tzinfo

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.store.base import timestamp_epoch
from remem.time.events import event_times
from remem.time.window import time_order, time_window
from remem_bench.qwindows import load, question_reader, score

# a Thursday afternoon
NOW = datetime(2023, 3, 9, 15, 42)


def _window(question: str, now: datetime = NOW) -> tuple[datetime, datetime]:
    w = time_window(question, now)
    assert w is not None, question
    return w.start, w.end


@pytest.mark.parametrize(
    "question, inside, outside",
    [
        ("Which book did I finish a week ago?", "2023-03-02", "2023-02-20"),
        ("What kitchen appliance did I buy 10 days ago?", "2023-02-27", "2023-03-08"),
        ("I mentioned visiting a museum two months ago.", "2023-01-08", "2023-03-01"),
        ("I cooked something for my friend a couple of days ago.", "2023-03-07", "2023-03-01"),
        ("I received a piece of jewelry last Saturday from whom?", "2023-03-04", "2023-02-25"),
        ("Where did I go last week?", "2023-03-01", "2023-02-15"),
        ("Which pair of shoes did I clean last month?", "2023-02-14", "2023-03-08"),
        ("Which bike did I service the past weekend?", "2023-03-05", "2023-02-26"),
        ("What did I eat yesterday?", "2023-03-08T20:00", "2023-03-06"),
        ("What have I been reading recently?", "2023-02-20", "2022-12-01"),
        ("Anything new in the past two weeks?", "2023-03-01", "2023-02-01"),
        ("What did I do on March 5th?", "2023-03-05T12:00", "2023-03-01"),
        ("Who did I meet on 14 February?", "2023-02-14T18:00", "2023-02-20"),
        ("What did I plan in December?", "2022-12-15", "2023-01-10"),
        ("Where did I travel in May 2021?", "2021-05-20", "2022-05-20"),
        ("What happened in 2021?", "2021-07-01", "2022-01-05"),
        ("What did we do earlier this year?", "2023-01-20", "2022-12-20"),
    ],
)
def test_windows(question, inside, outside):
    start, end = _window(question)
    assert start <= datetime.fromisoformat(inside) < end
    assert not start <= datetime.fromisoformat(outside) < end


@pytest.mark.parametrize(
    "question",
    [
        "How many days ago did I attend a networking event?",  # a duration is asked for
        "How many weeks ago did I start using the cashback app?",
        "What is my sister's name?",
        "What do I usually do on Saturday?",  # a habit, not a date
        "Which came first, the concert or the trip?",
    ],
)
def test_no_window(question):
    assert time_window(question, NOW) is None


def test_the_first_expression_wins_and_zones_are_kept():
    utc = NOW.replace(tzinfo=timezone.utc)
    w = time_window("What did I buy two weeks ago, after the sale last month?", utc)
    assert w is not None and w.phrase == "two weeks ago" and w.start.tzinfo is timezone.utc
    assert w.contains(utc - timedelta(days=14)) and w.distance_days(utc - timedelta(days=14)) == 0
    assert w.distance_days(w.start - timedelta(days=2)) == pytest.approx(2.0)
    assert w.distance_days(w.end + timedelta(days=1)) == pytest.approx(1.0)


def test_a_date_that_does_not_exist_names_no_window():
    assert time_window("What did I do on February 30th?", NOW) is None


def test_order_words():
    assert time_order("Where do I currently keep my old sneakers?") == "newest"
    assert time_order("How many engineers do I lead now?") == "newest"
    assert time_order("What colour did my hive end up being painted?") == "newest"
    assert time_order("Which gym did Omar join in the end?") == "newest"
    assert time_order("Where did I initially keep my sneakers?") == "oldest"
    assert time_order("Which city was I living in originally?") == "oldest"
    assert time_order("What did I use to clean it?") is None  # "use to" is not "used to"
    assert time_order("What is my sister's name?") is None


def test_a_relative_phrase_of_an_absolute_date_takes_the_date():
    w = time_window("Where was Dave in the last two weeks of August 2023?", NOW)
    assert w is not None and w.start.month in (7, 8) and w.start.year == 2023
    w = time_window("Where was Calvin in the last week of October 2023?", NOW)
    assert w is not None and w.start.year == 2023 and w.end.month in (10, 11)


def test_a_memory_names_times_relative_to_when_it_was_made():
    # once ``timeexpr.mentioned_windows``; memories are read by ``event_times`` now
    made = datetime(2023, 5, 24, 16, 0)  # a Wednesday
    (e,) = event_times("I finally beat the last boss of the DLC last weekend!", made)
    assert (e.start, e.end) == (datetime(2023, 5, 20), datetime(2023, 5, 22))
    both = event_times("Yesterday I ran 5k; two weeks ago I ran 3k.", made)
    assert [x.words for x in both] == ["Yesterday", "two weeks ago"]
    assert event_times("Add 1/2 cup of sugar and stir.", made) == []


def test_numeric_dates_after_on_are_month_first():
    made = datetime(2023, 3, 3, 9, 0)
    (e,) = event_times("I took my niece to the museum on 2/8 and she loved it", made)
    assert e.start == datetime(2023, 2, 8)
    (e,) = event_times("The recital was on 12/1/2022.", made)
    assert e.start == datetime(2022, 12, 1)
    assert event_times("We met on 13/2.", made) == []  # no 13th month


# --- every time a datetime can hold --------------------------------------------------
# A memory stamped 0001-01-01 (.NET's DateTime.MinValue) or 9999-12-31, or a question
# asked "now" at either end, once made every expression below raise OverflowError.

EVERY_FAMILY = [
    "What did I buy 10 days ago?",
    "What did I buy 999 years ago?",
    "What did I eat yesterday?",
    "What did I do today and tonight?",
    "What did I do last Saturday?",
    "What did I do last Sunday?",
    "Where did I go last week?",
    "What did I do last weekend?",
    "Which shoes did I clean last month?",
    "What did I do last year?",
    "What did I do this week, this weekend, this month and this year?",
    "What have I been reading recently?",
    "Anything new in the past two weeks?",
    "What did I do on March 5th?",
    "Who did I meet on 29 February?",
    "What did I plan in December?",
    "What did I plan in January?",
    "Where did I travel in May 2021?",
    "What happened in 2021?",
    "What happened on 2/15 and on 12/31/99?",
]

# fixed offsets up to UTC's limits (a tzinfo's offset must stay under 24 hours), and
# the IANA zones with their historical local mean times (New York's -4:56:02)
_ZONES = st.one_of(
    st.none(),
    st.integers(-1439, 1439).map(lambda m: timezone(timedelta(minutes=m))),
    st.timezones(),
)
_EDGES = [datetime.min, datetime.max, datetime(1, 1, 1, 12), datetime(9999, 12, 31)]


@settings(max_examples=300, deadline=None)
@given(
    when=st.one_of(st.sampled_from(_EDGES), st.datetimes()),
    zone=_ZONES,
    question=st.sampled_from(EVERY_FAMILY),
)
def test_no_time_makes_an_expression_fail(
    when: datetime, zone: tzinfo | None, question: str
) -> None:
    when = when.replace(tzinfo=zone)
    # a date that has no year left before ``when`` ("March 5th" asked on 1 January of
    # year 1, "29 February" in most years) names no window; any other comes back whole
    w = time_window(question, when)
    if w is not None:
        assert w.start <= w.end, (question, when, w)
        lo, hi = w.reach()
        assert lo <= w.start and w.end <= hi
        timestamp_epoch(lo), timestamp_epoch(hi)  # ordered as epochs too
        w.distance_days(when)
    for e in event_times(question, when):
        assert e.start <= e.end


@pytest.mark.parametrize("when", _EDGES)
def test_windows_at_the_ends_of_time_are_held_inside_them(when: datetime) -> None:
    # "last Saturday" asked on Monday 1 January of year 1 names a day before year 1:
    # no window (the old reader clamped it to ``datetime.min``, a day that is no
    # Saturday); any window given is held inside years 1 to 9999, slack and all
    for question in ("what did I do last Saturday?", "what did I do in December?"):
        w = time_window(question, when)
        if w is not None:
            lo, hi = w.reach()
            assert datetime.min <= lo <= w.start <= w.end <= hi <= datetime.max
    assert time_window("what did I do last Saturday?", datetime(9999, 12, 31)) is not None


def test_every_line_of_the_question_set_is_read_exactly():
    result = score(load(), _read)
    assert result["exact"] == result["lines"], result["misses"]


def _read(case):
    return question_reader(case)


@pytest.mark.parametrize(
    "question",
    [
        "Did I watch Saturday Night Live with anyone?",
        "What gift did I give to May?",
        "What did I cook in May's kitchen?",
        "What do I usually do on Saturday?",
        "What do I always eat on Fridays?",
    ],
)
def test_names_and_habits_name_no_time(question):
    assert time_window(question, NOW) is None


def test_a_bare_weekday_in_a_question_is_the_last_one_unless_it_is_ahead():
    # NOW is a Thursday: "Saturday" is 4 March unless the question looks ahead
    assert _window("Anything on Saturday?")[0] == datetime(2023, 3, 4)
    assert _window("What did I do on Saturday?")[0] == datetime(2023, 3, 4)
    assert _window("Where am I going on Saturday?")[0] == datetime(2023, 3, 11)
    assert _window("What will I do on Saturday?")[0] == datetime(2023, 3, 11)
    assert _window("What is happening this Saturday?")[0] == datetime(2023, 3, 11)


def test_ranking_reads_the_window_with_slack():
    w = time_window("What did I do last Saturday?", NOW)
    assert w is not None and w.day == datetime(2023, 3, 4) and w.granularity == "day"
    assert w.reach() == (datetime(2023, 3, 3), datetime(2023, 3, 6))
    w = time_window("What did I buy 12 days ago?", NOW)  # an offset is looser
    assert w is not None and w.reach() == (datetime(2023, 2, 22), datetime(2023, 3, 1))
    w = time_window("What have I been reading recently?", NOW)  # reaches now: no slack
    assert w is not None and w.reach() == (w.start, w.end) and w.day is None


def test_an_ordinal_that_ranks_a_thing_in_a_list_names_no_day():
    """ "the 27th parameter" counts a list; "on the 27th", "from the 9th to the 21st",
    "the 27th was" and a bare "the 14th?" still name days."""
    for q in (
        "Can you remind me what was the 27th parameter on that list?",
        "What was the 3rd item you suggested?",
    ):
        assert time_window(q, NOW) is None, q
    for q, day in (
        ("What did I do on the 27th?", 27),
        ("What happened the 14th?", 14),
        ("The 5th was busy: what did I do?", 5),
        ("Where was I from the 2nd to the 4th?", 2),
    ):
        w = time_window(q, NOW)
        assert w is not None and w.start.day == day, q


def test_a_time_still_to_come_holds_no_memory_made_there(open_memory):
    """ "What should I watch tonight?" asks for a show, not for what was said today:
    a window still to come lifts what memories tell of it, never what was said in it."""
    now = datetime(2023, 5, 30, 18, 0, tzinfo=timezone.utc)
    assert time_window("Can you recommend a movie to watch tonight?", now).ahead
    assert not time_window("What did I eat today?", now).ahead
    mem = open_memory(engine="hybrid")
    liked = mem.add(
        "I loved the film Arrival, slow science fiction is my thing.",
        "u",
        timestamp=now - timedelta(days=40),
    )
    said_today = mem.add(
        "Work was long, the printer broke again.", "u", timestamp=now - timedelta(hours=2)
    )
    mem.add(
        "Tonight I'm seeing the jazz trio at the Blue Note.", "u", timestamp=now - timedelta(days=2)
    )
    hits = mem.search("Can you recommend a movie or film to watch tonight?", "u", k=3, now=now)
    assert hits[0].id != said_today  # said today: not lifted by "tonight"
    assert liked in {h.id for h in hits[:2]}


LATEST = datetime(2023, 10, 5, tzinfo=timezone.utc)  # the newest memory of a diary


@pytest.mark.parametrize(
    "question, placed",
    [
        ("When did Sam go to a parade in August?", "2023-08-01"),
        ("What happened on May 3?", "2023-05-03"),
        ("Where was John between August 11 and August 15?", "2023-08-11"),
        ("Where did we go during the summer?", "2023-06-01"),
        ("Anything in November?", "2022-11-01"),  # November 2023 is after the diary
    ],
)
def test_a_calendar_time_without_a_year_moves_to_the_last_one_memories_reach(
    question: str, placed: str
) -> None:
    asked = datetime(2026, 12, 4, tzinfo=timezone.utc)
    w = time_window(question, asked)
    assert w is not None and w.yearless and w.start > LATEST
    moved = w.placed(LATEST)
    assert moved.start == datetime.fromisoformat(placed).replace(tzinfo=timezone.utc)
    assert moved.end - moved.start == w.end - w.start or w.granularity == "month"


@pytest.mark.parametrize(
    ("question", "latest", "placed"),
    [
        # asked of memories ending in mid-May: the coming June, that plans were made for
        ("Where am I going with Priya in June?", "2026-05-16", "2026-06-01"),
        # asked of a diary that ended long ago: the June nearest its end
        ("Where am I going with Priya in June?", "2023-10-05", "2023-06-01"),
    ],
)
def test_a_time_to_come_moves_to_the_one_nearest_the_memories(
    question: str, latest: str, placed: str
) -> None:
    w = time_window(question, datetime(2026, 12, 4, tzinfo=timezone.utc))
    assert w is not None and w.ahead and w.yearless
    moved = w.placed(datetime.fromisoformat(latest).replace(tzinfo=timezone.utc))
    assert moved.start == datetime.fromisoformat(placed).replace(tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "question",
    [
        "What did I do last summer?",  # counted from the moment asked
        "What did I do in August 2023?",  # a year given
        "What did I do yesterday?",
        "What have I been reading recently?",
    ],
)
def test_other_windows_stay_where_they_were_read(question: str) -> None:
    w = time_window(question, datetime(2026, 12, 4, tzinfo=timezone.utc))
    assert w is not None
    assert w.placed(LATEST) is w


def test_a_window_memories_reach_stays() -> None:
    w = time_window("What did I do in August?", datetime(2023, 12, 1, tzinfo=timezone.utc))
    assert w is not None and w.yearless
    assert w.placed(LATEST) is w  # August 2023 is before the newest memory


def test_a_leap_day_that_cannot_move_stays() -> None:
    w = time_window("What happened on February 29?", datetime(2028, 3, 9, tzinfo=timezone.utc))
    assert w is not None and w.start.year == 2028
    assert w.placed(datetime(2025, 1, 1, tzinfo=timezone.utc)) is w
