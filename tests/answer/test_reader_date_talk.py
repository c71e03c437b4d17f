""" "When" questions whose day is told across turns: a reply to a turn asking when of
what was just said ("When did they arrive?"), a reply whose asking turn recall did not
bring, a verbless sentence among past ones, a day of the month in words, and "my first
day" asked as a date. Through the public API with the default reader and no LLM."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from remem import words
from remem.time.events import event_times

#: Tuesday 14 April 2026, evening
TUESDAY = datetime(2026, 4, 14, 19, tzinfo=timezone.utc)


def _fill(mem, talk, at=TUESDAY, session="s1"):
    for i, (who, text) in enumerate(talk):
        mem.add(text, "u", speaker=who, timestamp=at + timedelta(minutes=i), session_id=session)


#: "I've got a canoe!" / "When did it arrive?": the asking turn names one thing of its
#: own ("arrive") and "it" for what was told (``typed.asks_of_told``)
CANOE = [
    ("Noor", "I've got a canoe! An actual canoe, in my actual garden."),
    ("Ava", "Amazing. When did it arrive?"),
    ("Noor", "Went and fetched it last Saturday from a farm near Settle."),
    ("Ava", "Is it heavy?"),
    ("Noor", "Very. My neighbour Brendan plans to borrow it in June."),
]
#: "When did you sit the exam?" / "Sunday!": asked in the past tense, the reply's
#: verbless day is a past one (``Dialogue.asked_past``, ``reader._replies_to_asking``)
EXAM = [
    ("Noor", "Guess who is a qualified lifeguard now?"),
    ("Ava", "You! Congratulations! When did you sit the exam?"),
    ("Noor", "Sunday! The practical was a rescue drill in the deep end."),
    ("Ava", "What's next?"),
    ("Noor", "The pool wants me on shifts from the first of June."),
]


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
@pytest.mark.parametrize(
    ("talk", "question", "day"),
    [
        (CANOE, "On what day did Noor pick up her canoe?", "11 April 2026"),
        (EXAM, "When did Noor pass her lifeguard exam?", "12 April 2026"),
    ],
)
def test_a_reply_to_a_turn_asking_when_tells_the_day(open_memory, engine, talk, question, day):
    """The reply to the other's "When...?" tells the day of what was told before it."""
    mem = open_memory(engine=engine)
    _fill(mem, talk)
    assert day in mem.answer(question, "u", now=TUESDAY).text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_verbless_sentence_among_past_ones_tells_a_past_day(open_memory, engine):
    """ "Hill session on Monday, up and down Cathedral Hill. On the fourth rep I felt my
    calf go." said on a Thursday: the Monday just gone, not the next one
    (``settle._among_past``)."""
    mem = open_memory(engine=engine)
    thursday = datetime(2026, 2, 19, 19, tzinfo=timezone.utc)
    _fill(
        mem,
        [
            ("Noor", "Writing this from the sofa with ice on my leg."),
            ("Ava", "Oh no, what happened?"),
            (
                "Noor",
                "Hill session with the club on Monday, up and down Cathedral Hill. On the "
                "fourth rep I felt my calf go, and I limped home.",
            ),
        ],
        at=thursday,
    )
    answer = mem.answer("When did Noor strain her calf?", "u", now=thursday)
    assert "16 February 2026" in answer.text


def test_a_day_of_the_month_in_words_is_a_day():
    """ "the first of June", "the twenty-third of July 2027": days, not months; "the
    first of many" no time at all."""
    said = datetime(2026, 3, 2, tzinfo=timezone.utc)
    (june,) = event_times("My new contract starts on the first of June.", said)
    assert (june.granularity, june.start.date().isoformat()) == ("day", "2026-06-01")
    (july,) = event_times("We fly out on the twenty-third of July 2027.", said)
    assert july.start.date().isoformat() == "2027-07-23"
    assert event_times("It was the first of many.", said) == []


def test_my_first_day_asks_a_date_whose_day_is_the_thing_asked():
    """ "What was my first day at the bakery?" asks a date, and "day" is what is asked
    ("Monday was day one"), not the unit asked by ("our busiest day")."""
    assert words.answer_type("What was my first day at the bakery?") == "date"
    assert words.date_unit("What was my first day at the bakery?") == frozenset()
    assert words.date_unit("On what day did I start?") == frozenset({words.word_key("day")})
    assert words.answer_type("What was the best day of the trip?") == "thing"


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_the_words_of_a_time_are_not_the_words_of_the_thing_asked(open_memory, engine):
    """Asked "What was my first day at the bakery?", "from the first of June I'm shift
    lead" shares no "first" with it: the words of a time are not its topic; "Yep,
    Monday was day one" tells the day (``reader._untimed``)."""
    mem = open_memory(engine=engine)
    _fill(
        mem,
        [
            ("Noor", "Day two at the new job and my feet are destroyed."),
            ("Ava", "Congratulations! So you started yesterday?"),
            ("Noor", "Yep, Monday was day one. It's a bakery called Crumb on Mill Road."),
        ],
        at=datetime(2026, 2, 10, 19, tzinfo=timezone.utc),
    )
    _fill(
        mem,
        [
            ("Noor", "Big news at work: from the first of June I'm shift lead."),
            ("Ava", "Well deserved!"),
        ],
        at=datetime(2026, 5, 20, 19, tzinfo=timezone.utc),
        session="s2",
    )
    now = datetime(2026, 6, 20, tzinfo=timezone.utc)
    answer = mem.answer("What was Noor's first day at the bakery?", "u", now=now)
    assert "9 February 2026" in answer.text


def test_only_a_verbless_sentence_takes_the_tense_of_its_neighbour():
    """ "Interval session on Monday. I felt great after." said on a Thursday: the
    Monday just gone; "He starts on Monday. I was thrilled." tells what is ahead: a
    verb in the present is a tense of its own (``settle._among_past``)."""
    from remem.answer.settle import memory_date

    thursday = datetime(2026, 2, 19, 19, tzinfo=timezone.utc)
    told = "Interval session with the club on Monday. I felt great after."
    assert "16 February 2026" in memory_date(told, told.split(". ")[0] + ".", thursday)
    ahead = "He starts on Monday. I was thrilled."
    assert "23 February 2026" in memory_date(ahead, "He starts on Monday.", thursday)


def test_on_which_day_asks_a_date_in_the_past():
    """ "On which day did the roofer come?" asks a date, as "On what day" does, and
    asks it of the past; so does "In which year did I move?"."""
    from remem.question import as_question

    for asked in ("On which day did the roofer come?", "In which year did I move?"):
        assert words.answer_type(asked) == "date"
        assert as_question(asked).asks_past
    assert not as_question("On what date is the wedding?").asks_past
