""" "When" questions answered with the time the evidence talks about, resolved against
when it was said ("on Saturday", said Monday, is that coming Saturday), through the
public API with the default reader and no LLM."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from remem.answer.settle import event_date, say_event
from remem.time.events import EventTime

MONDAY = datetime(2024, 5, 6, 10, tzinfo=timezone.utc)


def test_an_event_is_stated_as_precisely_as_it_is_known():
    day = EventTime(datetime(2024, 5, 11, tzinfo=timezone.utc), MONDAY, "day", "on Saturday")
    assert say_event(day) == "Saturday 11 May 2024"
    start = datetime(2024, 5, 1, tzinfo=timezone.utc)
    assert say_event(EventTime(start, start + timedelta(days=31), "month", "in May")) == (
        "May 2024"
    )
    assert say_event(EventTime(start, start + timedelta(days=366), "year", "in 2024")) == "2024"
    week = EventTime(MONDAY, MONDAY + timedelta(days=7), "week", "this week")
    assert say_event(week) == "the week of 6 May 2024"
    span = EventTime(
        datetime(2024, 5, 9, tzinfo=timezone.utc),
        datetime(2024, 5, 22, tzinfo=timezone.utc),
        "span",
        "from the 9th to the 21st",
    )
    assert say_event(span) == "9 May 2024 to 21 May 2024"


def test_a_sentence_without_a_time_has_no_event_date():
    assert event_date("I love the sea.", MONDAY) == ""


@pytest.mark.parametrize(
    ("said", "question", "expected"),
    [
        ("I'm picking up the keys on Saturday!", "When did they get the keys?", "11 May 2024"),
        ("I signed the contract yesterday.", "When did I sign the contract?", "5 May 2024"),
        ("The flight is on the 9th, finally booked.", "When is the flight?", "9 May 2024"),
    ],
)
@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_when_questions_get_the_day_the_evidence_talks_about(
    open_memory, engine, said, question, expected
):
    mem = open_memory(engine=engine)
    mem.add("I had pasta for lunch and it was great.", "u", timestamp=MONDAY - timedelta(days=9))
    mem.add(said, "u", timestamp=MONDAY)
    mem.add("The weather has been grey all week.", "u", timestamp=MONDAY + timedelta(days=1))
    answer = mem.answer(question, "u", now=MONDAY + timedelta(days=20))
    assert expected in answer.text
    assert "6 May 2024" not in answer.text  # never the day it was said


def test_of_several_times_the_one_whose_clause_the_question_asks_about():
    said = datetime(2025, 3, 20, 8, 5, tzinfo=timezone.utc)  # a Thursday
    sentence = "Tomorrow is my last day at my company, and I start at Brightwater next Monday."
    assert event_date(sentence, said, "When does Priya start at Brightwater?") == (
        "Monday 24 March 2025"
    )
    assert event_date(sentence, said, "When is Priya's last day?") == "Friday 21 March 2025"
    assert event_date(sentence, said) == "Friday 21 March 2025"  # no question: the first
