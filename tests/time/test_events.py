"""Event times at ingest (issue 36): each family of expression, tense, zones, the
ends of ``datetime``'s range, words that are not times, and ``remem-bench time``."""

from __future__ import annotations

import json
import string
from datetime import date, datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from remem.time.events import GRANULARITIES, event_times, read_times
from remem_bench.cli import main
from remem_bench.timeset import DEV, HELDOUT, load, remem_extractor, score

CEST = timezone(timedelta(hours=2))
MONDAY = datetime(2024, 5, 6, 10, 0, tzinfo=CEST)  # Monday 6 May 2024


def days(text: str, said: datetime = MONDAY) -> list[tuple[date, date, str, str]]:
    return [(e.start.date(), e.end.date(), e.granularity, e.words) for e in event_times(text, said)]


def one_day(y: int, m: int, d: int, words: str) -> tuple[date, date, str, str]:
    first = date(y, m, d)
    return first, first + timedelta(days=1), "day", words


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm picking up the keys on Saturday", one_day(2024, 5, 11, "Saturday")),
        ("I went hiking on Saturday", one_day(2024, 5, 4, "Saturday")),
        ("I signed the contract yesterday", one_day(2024, 5, 5, "yesterday")),
        ("I'll call tomorrow morning", one_day(2024, 5, 7, "tomorrow morning")),
        ("We're having pasta tonight", one_day(2024, 5, 6, "tonight")),
        ("Last Friday I lost my wallet", one_day(2024, 5, 3, "Last Friday")),
        ("I bought it last Monday", one_day(2024, 4, 29, "last Monday")),
        ("This Thursday we are going to the zoo", one_day(2024, 5, 9, "This Thursday")),
        ("I moved in on the 3rd of March 2023", one_day(2023, 3, 3, "3rd of March 2023")),
        ("The invoice is dated 2023-03-03", one_day(2023, 3, 3, "2023-03-03")),
        ("I met him on December 20th", one_day(2023, 12, 20, "December 20th")),
        ("I'm flying home on January 5th", one_day(2025, 1, 5, "January 5th")),
        ("I adopted the dog three days ago", one_day(2024, 5, 3, "three days ago")),
    ],
)
def test_days(text: str, expected: tuple[date, date, str, str]) -> None:
    assert days(text) == [expected]


def test_the_ninth_said_on_the_second() -> None:
    said = datetime(2024, 5, 2, 9, tzinfo=CEST)
    assert days("The flight is on the 9th.", said) == [one_day(2024, 5, 9, "the 9th")]


@pytest.mark.parametrize(
    ("text", "start", "end", "grain", "words"),
    [
        ("I'm on vacation next week", date(2024, 5, 13), date(2024, 5, 20), "week", "next week"),
        ("I met Anna two weeks ago", date(2024, 4, 22), date(2024, 4, 29), "week", "two weeks ago"),
        ("I went hiking this weekend", date(2024, 5, 4), date(2024, 5, 6), "span", "this weekend"),
        ("I'm camping this weekend", date(2024, 5, 11), date(2024, 5, 13), "span", "this weekend"),
        ("Last month I switched banks", date(2024, 4, 1), date(2024, 5, 1), "month", "Last month"),
        ("I went to Rome in April", date(2024, 4, 1), date(2024, 5, 1), "month", "April"),
        ("We're going to Rome in April", date(2025, 4, 1), date(2025, 5, 1), "month", "April"),
        ("I'll retire in 2030", date(2030, 1, 1), date(2031, 1, 1), "year", "2030"),
        ("Last August I ran it", date(2023, 8, 1), date(2023, 9, 1), "month", "Last August"),
        ("I met her last May", date(2023, 5, 1), date(2023, 6, 1), "month", "last May"),
        ("We fly out next March", date(2025, 3, 1), date(2025, 4, 1), "month", "next March"),
        ("I moved this March", date(2024, 3, 1), date(2024, 4, 1), "month", "this March"),
        ("Next year we plan to go", date(2025, 1, 1), date(2026, 1, 1), "year", "Next year"),
        (
            "We're in Spain from June 3 to June 10",
            date(2024, 6, 3), date(2024, 6, 11), "span", "from June 3 to June 10",
        ),
    ],
)  # fmt: skip
def test_longer_intervals(text: str, start: date, end: date, grain: str, words: str) -> None:
    assert days(text) == [(start, end, grain, words)]


def test_a_range_of_day_numbers() -> None:
    said = datetime(2024, 5, 2, 9, tzinfo=CEST)
    got = days("I'll be away from the 9th to the 21st.", said)
    assert got == [(date(2024, 5, 9), date(2024, 5, 22), "span", "from the 9th to the 21st")]


def test_a_weekday_and_its_day_of_the_month_are_one_day() -> None:
    # said on Thursday 20 November 2025: the 11th that is a Tuesday, not the Tuesday
    # just gone (the 18th) beside an 11th read apart
    said = datetime(2025, 11, 20, 18, tzinfo=CEST)
    assert days("Big news: she flew free on Tuesday the 11th!", said) == [
        one_day(2025, 11, 11, "Tuesday the 11th")
    ]
    # 13 February and 13 March 2026 are Fridays: forward with no cue, as a bare day
    # number, back in a past clause
    said = datetime(2026, 2, 20, 9, tzinfo=CEST)
    assert days("See you Friday, the 13th.", said) == [one_day(2026, 3, 13, "Friday, the 13th")]
    assert days("We met on Friday the 13th.", said) == [one_day(2026, 2, 13, "Friday the 13th")]
    # the calendar's first month has no earlier Tuesday the 11th: no time, no error
    assert days("She flew free on Tuesday the 11th!", datetime(1, 1, 5, tzinfo=timezone.utc)) == []
    # no month near has a Wednesday the 9th of May 2024's weekday: the day number alone
    assert days("See you Wednesday the 9th.") == [one_day(2024, 5, 9, "Wednesday the 9th")]


def test_what_is_booked_lies_ahead_and_a_name_given_tells_no_past() -> None:
    said = datetime(2026, 5, 30, 11, tzinfo=CEST)
    text = "The ceilidh is booked for early July with a band called the Blyth Valley Stompers."
    assert [(s, g) for s, _, g, _ in days(text, said)] == [(date(2026, 7, 1), "month")]
    # "called" after a pronoun tells a past all the same
    assert days("She called me in July.", said)[0][0] == date(2025, 7, 1)


def test_a_doing_told_of_takes_no_tense_from_the_telling() -> None:
    said = datetime(2026, 3, 30, 19, tzinfo=CEST)
    text = "Gordon's started talking about me ringing my first quarter peal in May."
    assert [(s, g) for s, _, g, _ in days(text, said)] == [(date(2026, 5, 1), "month")]
    # the telling's own time is read as before
    assert days("We talked about it in February.", said)[0][0] == date(2026, 2, 1)
    assert days("I started running in May.", said)[0][0] == date(2025, 5, 1)


def test_tense_per_clause() -> None:
    got = days("I flew in on Friday and I'm flying out on Wednesday.")
    assert got == [one_day(2024, 5, 3, "Friday"), one_day(2024, 5, 8, "Wednesday")]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        # "have got" is what one has: an arrangement on a weekday lies ahead
        ("She's got her first tournament with them on Saturday.", date(2024, 5, 11)),
        ("I've got a dentist appointment on Friday.", date(2024, 5, 10)),
        # "got back", "got married": events, in the past
        ("We've got back on Sunday.", date(2024, 5, 5)),
        ("She got married on Saturday.", date(2024, 5, 4)),
    ],
)
def test_have_got_is_what_one_has(text: str, day: date) -> None:
    ((start, _, _, _),) = days(text)
    assert start == day


def test_a_bare_weekday_without_tense_is_a_less_sure_guess() -> None:
    (sure,) = event_times("I'll see her on Friday", MONDAY)
    (guess,) = event_times("Are you free Friday?", MONDAY)
    assert sure.start == guess.start and guess.confidence < sure.confidence


def test_intervals_are_in_the_zone_it_was_said_in() -> None:
    late = datetime(2024, 5, 6, 23, 30, tzinfo=timezone(timedelta(hours=-7)))
    (e,) = event_times("I'm picking up the keys tomorrow.", late)
    assert e.start == datetime(2024, 5, 7, tzinfo=late.tzinfo)
    assert e.end == datetime(2024, 5, 8, tzinfo=late.tzinfo)


def test_month_and_year_edges() -> None:
    eve = datetime(2024, 12, 31, 23, tzinfo=CEST)
    assert days("Next month I begin", eve)[0][:2] == (date(2025, 1, 1), date(2025, 2, 1))
    leap = datetime(2024, 2, 29, 12, tzinfo=timezone.utc)
    assert days("The lease ends on Feb 29.", leap) == [one_day(2024, 2, 29, "Feb 29")]
    assert days("My party is on February 29.", datetime(2023, 5, 6, tzinfo=timezone.utc)) == []


def test_the_ends_of_the_datetime_range_clamp() -> None:
    first = datetime(1, 1, 1, tzinfo=timezone.utc)
    last = datetime(9999, 12, 31, 12, tzinfo=timezone.utc)
    assert event_times("I was born yesterday", first) == []
    assert event_times("I'll do it tomorrow", last) == []
    (year,) = event_times("This year has been long", last)
    assert year.end == datetime.max.replace(tzinfo=timezone.utc)


@pytest.mark.parametrize(
    "text",
    [
        "I saw it at the May Fair? no",
        "May I borrow your pen?",
        "You may want to check the oil.",
        "Give me a second, I'll grab my coat.",
        "The protesters march through the square.",
        "She was wearing her Sunday best.",
        "My yoga class is every Tuesday.",
        "We usually go out on Fridays.",
        "I paid 2000 dollars for it.",
        "The room number is 2019.",
        "It's the second time I've read it.",
        "Hmm, this may be the last may-pole dance.",
    ],
)
def test_words_that_are_not_times(text: str) -> None:
    assert event_times(text, MONDAY) == []


_TEXT = st.text(alphabet=string.printable + "’–é", max_size=80) | st.lists(
    st.sampled_from(
        [
            "on",
            "last",
            "next",
            "this",
            "the",
            "from",
            "to",
            "between",
            "and",
            "in",
            "ago",
            "a",
            "two",
            "9th",
            "31st",
            "29",
            "Feb",
            "February",
            "Saturday",
            "weekend",
            "week",
            "month",
            "year",
            "2019",
            "9999",
            "0001",
            "yesterday",
            "tomorrow",
            "I",
            "went",
            "will",
            "'m",
            "going",
            "-",
            "/",
            "12/31",
            "9999-12-31",
            "0001-01-01",
            "of",
            "3rd",
            "March",
            "May",
            # a weekday with its day of the month ("Tuesday the 31st") at the ends
            "the",
            "31st",
            "Tuesday",
        ]
    ),
    max_size=12,
).map(" ".join)
_ZONES = st.sampled_from(
    [timezone.utc, CEST, timezone(timedelta(hours=-12)), timezone(timedelta(hours=14))]
)


@settings(max_examples=400, deadline=None)
@given(
    _TEXT, st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23)), _ZONES
)
def test_never_raises(text: str, said: datetime, tz: timezone) -> None:
    for e in event_times(text, said.replace(tzinfo=tz)):
        assert e.start < e.end
        assert e.granularity in GRANULARITIES
        assert e.words and e.words in text
        assert 0.0 <= e.confidence <= 1.0


@pytest.mark.parametrize("path", [DEV, HELDOUT])
def test_the_bundled_sets_stay_above_the_floor(path) -> None:
    result = score(load(path), remem_extractor)
    assert result["accuracy"] >= 0.95, result["misses"]


def test_bench_time_runs_on_the_bundled_file(tmp_path, capsys) -> None:
    out = tmp_path / "time.json"
    md = tmp_path / "time.md"
    assert main(["time", str(DEV), "--json", str(out), "--markdown", str(md)]) == 0
    result = json.loads(out.read_text())
    assert result["sets"]["time_expressions"]["lines"] >= 170
    assert "weekday" in md.read_text()


def test_an_ed_adjective_is_not_a_past_tense():
    """ "a retired racing greyhound": "retired" describes the dog; the clause's tense
    is "I'm collecting" (a plan), so Saturday is the coming one (the demo's question)."""
    said = datetime(2025, 3, 3, 9, 15, tzinfo=timezone.utc)  # a Monday
    text = "Big week ahead: I'm collecting a retired racing greyhound on Saturday."
    (e,) = event_times(text, said)
    assert e.start.date().isoformat() == "2025-03-08" and e.granularity == "day"


@pytest.mark.parametrize(
    ("text", "said", "start", "end"),
    [
        ("The camp last summer was great", date(2023, 12, 26), date(2023, 6, 1), date(2023, 9, 1)),
        ("Bogota last summer was calming", date(2023, 2, 4), date(2022, 6, 1), date(2022, 9, 1)),
        ("I'll see you next summer", date(2023, 7, 15), date(2024, 6, 1), date(2024, 9, 1)),
        ("We went there this past winter", date(2023, 4, 2), date(2022, 12, 1), date(2023, 3, 1)),
        ("We met in the summer of 2019", date(2023, 3, 27), date(2019, 6, 1), date(2019, 9, 1)),
        ("Summer 2022 was the best", date(2023, 3, 27), date(2022, 6, 1), date(2022, 9, 1)),
        ("I went there two summers ago", date(2023, 3, 27), date(2021, 6, 1), date(2021, 9, 1)),
        ("We married in the fall", date(2023, 12, 2), date(2023, 9, 1), date(2023, 12, 1)),
        ("This spring we are planting", date(2024, 4, 10), date(2024, 3, 1), date(2024, 6, 1)),
    ],
)
def test_seasons(text: str, said: date, start: date, end: date) -> None:
    found = event_times(text, datetime.combine(said, datetime.min.time()))
    assert [(e.start.date(), e.end.date(), e.granularity) for e in found] == [
        (start, end, "season")
    ]


@pytest.mark.parametrize(
    "text", ["I fall asleep early", "I love the fall colours", "Don't fall for it in fall"]
)
def test_fall_the_verb_is_no_season(text: str) -> None:
    assert event_times(text, MONDAY) == []


def test_a_vague_quantity_is_a_low_confidence_guess() -> None:
    (few,) = event_times("We met a few years ago", MONDAY)
    (three,) = event_times("We met three years ago", MONDAY)
    assert (few.start, few.end) == (three.start, three.end)  # the likeliest interval
    assert few.confidence < three.confidence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Last Fri I took my kids to a pottery workshop.", one_day(2024, 5, 3, "Last Fri")),
        ("I joined a new group last Tues.", one_day(2024, 4, 30, "last Tues")),
        ("We're meeting on Sat.", one_day(2024, 5, 11, "Sat")),
    ],
)
def test_shortened_weekdays_after_a_step_word(text: str, expected: object) -> None:
    assert days(text) == [expected]


@pytest.mark.parametrize(
    "text", ["I showed up, wed in a hurry", "lying on sun loungers", "last sat on the bench"]
)
def test_words_spelled_like_shortened_weekdays_are_no_days(text: str) -> None:
    assert event_times(text, MONDAY) == []


def test_since_names_where_a_time_began() -> None:
    said = datetime(2024, 5, 10, 9, tzinfo=CEST)
    assert [
        (e.start.date(), e.granularity) for e in event_times("at the hospital since 2015", said)
    ] == [(date(2015, 1, 1), "year")]
    assert [
        (e.start.date(), e.granularity) for e in event_times("planning since January", said)
    ] == [(date(2024, 1, 1), "month")]


def test_a_title_is_no_time_in_a_memory_either() -> None:
    assert event_times("We stayed up watching Saturday Night Live reruns.", MONDAY) == []
    assert len(event_times("We stayed up on Saturday night watching reruns.", MONDAY)) == 1


@pytest.mark.parametrize(
    "text",
    [
        "How many days ago did I attend the Maundy Thursday service?",  # a name
        "That place is my favorite Big Sunday brunch spot.",
        "What time do I wake up on Saturday mornings?",  # a habit
        "I participated in the Spring Fling Market.",  # a title
        "I drink coffee twice in a day.",  # how long, not when
    ],
)
def test_names_habits_and_durations_are_no_times(text: str) -> None:
    assert event_times(text, MONDAY) == []


def test_in_n_units_is_a_time_ahead_only_where_the_clause_looks_ahead() -> None:
    assert [e.words for e in event_times("I will move in two weeks.", MONDAY)] == ["in two weeks"]
    asked = "What was the increase in followers I experienced in two weeks?"
    assert read_times(asked, MONDAY, asking=True) == []
    assert len(read_times("What will I be doing in two weeks?", MONDAY, asking=True)) == 1


@pytest.mark.parametrize(
    "words, text, start",
    [
        ("the first weekend of August 2023", "At the lake {}.", date(2023, 8, 5)),
        ("the last week of October 2023", "In Tokyo {}.", date(2023, 10, 25)),
        ("the last weekend of September 2023", "We moved {}.", date(2023, 9, 30)),
        ("last weekend", "She decided {} after the fight.", date(2024, 5, 4)),
    ],
)
def test_weeks_counted_in_a_month_and_a_step_before_an_event(words, text, start) -> None:
    found = event_times(text.format(words), MONDAY)
    assert [(e.start.date(), e.words) for e in found] == [(start, words)]


def test_a_week_named_by_an_event_is_not_last_week() -> None:
    assert event_times("The last week before the trip was hectic.", MONDAY) == []


def test_a_past_participle_points_back() -> None:
    """A bare "born on Saturday", without an auxiliary, tells a past birth; "will be born" a
    coming one (said on Monday 29 July 2024)."""
    said = datetime(2024, 7, 29, 18, tzinfo=timezone.utc)
    (born,) = event_times("A little girl called Mina, born on Saturday.", said)
    assert born.start.date() == date(2024, 7, 27)
    (due,) = event_times("The baby will be born on Saturday.", said)
    assert due.start.date() == date(2024, 8, 3)


def test_a_weekday_before_the_day_of_a_month_is_one_day() -> None:
    said = datetime(2026, 5, 21, 19, 30, tzinfo=timezone.utc)
    found = days("It's on Saturday the 6th of June and she asked me to help.", said)
    assert found == [one_day(2026, 6, 6, "Saturday the 6th of June")]
