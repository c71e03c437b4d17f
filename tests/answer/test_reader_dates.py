""" "When" questions answered with the time the evidence talks about, resolved against
when it was said ("on Saturday", said Monday, is that coming Saturday), through the
public API with the default reader and no LLM."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from remem.answer import Answerer
from remem.answer.reader import best_sentence
from remem.answer.settle import date_span, event_date, memory_date, say_event
from remem.llm import create_llm
from remem.question import as_question, read_question
from remem.time.events import EventTime
from remem.types import Hit, Recall

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


def test_a_vague_time_is_stated_in_its_own_words_from_the_day_it_was_said():
    said = datetime(2023, 2, 8, 9, tzinfo=timezone.utc)
    assert event_date("Got the tattoo a few years ago.", said) == (
        "a few years before 8 February 2023"
    )
    assert event_date("I start in a few weeks.", said) == "a few weeks after 8 February 2023"
    assert event_date("I got it three years ago.", said) == "2020"  # a count is exact


def test_a_season_is_named_with_its_year():
    said = datetime(2023, 12, 26, tzinfo=timezone.utc)
    assert event_date("The camp last summer was awesome!", said) == "summer 2023"
    assert event_date("See you this coming winter.", said) == "winter 2024-25"
    # in the speaker's own word, no other: "autumn" is said by no memory here
    assert event_date("We went to the weigh-off last fall.", said) == "fall 2023"
    assert event_date("We went to the weigh-off last autumn.", said) == "autumn 2023"


def test_the_time_given_in_the_neighbouring_sentence():
    said = datetime(2023, 8, 23, 15, tzinfo=timezone.utc)  # a Wednesday
    text = "Guess what I did this week? I applied to adoption agencies! Big step."
    question = "When did Caroline apply to adoption agencies?"
    assert memory_date(text, "I applied to adoption agencies!", said, question) == (
        "the week of 21 August 2023"
    )
    # only the two neighbours: a time two sentences off tells of something else
    far = "We moved last month. It rained. I applied to adoption agencies!"
    assert memory_date(far, "I applied to adoption agencies!", said, question) == ""


def test_a_date_the_question_writes_is_not_its_answer():
    said = datetime(2022, 10, 21, tzinfo=timezone.utc)
    question = "When did James try Cyberpunk 2077?"
    assert date_span("I tried Cyberpunk 2077 yesterday.", question) == ""
    assert memory_date("I tried Cyberpunk 2077 yesterday.", "", said, question) == ""
    sentence = "I tried Cyberpunk 2077 yesterday."
    assert memory_date(sentence, sentence, said, question) == "Thursday 20 October 2022"


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_question_naming_a_day_reads_the_sentence_that_tells_of_it(open_memory, engine):
    mem = open_memory(engine=engine)
    dec5 = datetime(2023, 12, 5, 20, tzinfo=timezone.utc)
    mem.add("Hey Sam, hope you're doing good. Work is busy.", "u", timestamp=dec5, speaker="Evan")
    mem.add(
        "Speaking of new things, I attended a Weight Watchers meeting yesterday.",
        "u",
        timestamp=dec5,
        speaker="Sam",
    )
    answer = mem.answer("What was Sam doing on December 4, 2023?", "u", now=dec5)
    assert "Weight Watchers" in answer.text


def test_without_a_time_in_memory_the_answer_is_the_day_it_was_said(open_memory):
    mem = open_memory(engine="hybrid")
    mem.add("My sister moved to Paris, she loves it.", "u", timestamp=MONDAY)
    answer = mem.answer("When did my sister move to Paris?", "u", now=MONDAY)
    assert answer.text == "6 May 2024"


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_when_question_reads_the_sentence_that_says_when(open_memory, engine):
    mem = open_memory(engine=engine)
    aug3 = datetime(2023, 8, 3, 18, tzinfo=timezone.utc)
    mem.add(
        "I'm doing my part too, volunteering at the shelter. It's rewarding.",
        "u",
        timestamp=aug3,
        speaker="Maria",
    )
    mem.add(
        "I started volunteering here about a year ago after seeing a family on the street.",
        "u",
        timestamp=aug3 + timedelta(minutes=2),
        speaker="Maria",
    )
    answer = mem.answer("When did Maria start volunteering at the homeless shelter?", "u", now=aug3)
    assert answer.text == "2022"


def _hit(i: int, text: str, said: datetime, speaker: str = "Caroline") -> Hit:
    return Hit(f"m{i}", text, 1.0 - i / 20, speaker, said, None)


def test_a_time_in_the_neighbouring_sentence_wins_over_a_sentence_with_none():
    may, aug = (
        datetime(2023, 5, 25, tzinfo=timezone.utc),
        datetime(2023, 8, 23, tzinfo=timezone.utc),
    )
    hits = [
        _hit(0, "And here's one of the adoption agencies I'm looking into.", may),
        _hit(1, "Guess what I did this week? I applied to adoption agencies!", aug),
    ]
    answer = Answerer(create_llm("none")).answer(
        "When did Caroline apply to adoption agencies?", Recall(hits, 1.0, False)
    )
    assert answer.text == "the week of 21 August 2023"


def test_a_when_question_reads_the_whole_context_for_the_sentence_that_says_when():
    said = datetime(2023, 6, 9, 19, tzinfo=timezone.utc)  # a Friday
    chatty = [
        _hit(i, text, said - timedelta(days=30 * i))
        for i, text in enumerate(
            [
                "Schools should teach more about it, I think.",
                "My friends gave a speech once, it was great.",
                "Cool! What did the school look like?",
                "A speech is hard to write.",
                "Our school had a bake sale.",
                "Ha, the school bus was late again.",
            ]
        )
    ]
    told = _hit(6, "I gave a speech at a school last week. It was awesome!", said)
    answer = Answerer(create_llm("none")).answer(
        "When did Caroline give a speech at a school?", Recall([*chatty, told], 1.0, False)
    )
    assert answer.text == "the week of 29 May 2023"


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_month_without_a_year_is_the_last_one_memories_reach(open_memory, engine):
    mem = open_memory(engine=engine)
    jul = datetime(2023, 7, 20, 18, tzinfo=timezone.utc)
    aug = datetime(2023, 8, 14, 14, tzinfo=timezone.utc)  # a Monday
    mem.add(
        "Caroline, you attended the pride parade last weekend, right? A great pride parade!",
        "u",
        timestamp=jul,
        speaker="Mel",
    )
    mem.add(
        "I went to a pride parade last Friday and it was awesome.",
        "u",
        timestamp=aug,
        speaker="Caroline",
    )
    mem.add("Thanks for the book tips!", "u", timestamp=aug + timedelta(days=60), speaker="Mel")
    asked = datetime(2026, 12, 4, tzinfo=timezone.utc)  # years after the last memory
    question = "When did Caroline attend a pride parade in August?"
    assert mem.recall(question, "u", now=asked).hits[0].timestamp == aug
    assert mem.answer(question, "u", now=asked).text == "Friday 11 August 2023"


def test_the_unit_a_date_question_asks_by_is_no_shared_word():
    """ "On what day" asks like "when": "Saturday is the day I fix the trailer" shares
    "day" with it no more than with "When...?", and the memory of the thing asked
    answers."""
    said = datetime(2026, 2, 10, 20, tzinfo=timezone.utc)
    hits = [
        Hit("b", "Saturday is the day I fix the trailer.", 1.0, "Kim", said, "s"),
        Hit("a", "Got the trailer home from Kendal on Sunday.", 0.9, "Kim", said, "s"),
    ]
    asked = as_question("On what day did Declan get the trailer home?")
    sentence, hit = best_sentence(asked, hits)
    assert hit is hits[1], sentence


#: one evening between two people (a Tuesday): a time told in a teaser before the
#: other's question, one told in the reply to a question, and a make's year
EVENING = [
    ("Kim", "Guess what I finally did on Sunday."),
    ("Lee", "Bought another kayak you don't have room for?"),
    ("Kim", "Maybe. Drove to Oban and picked up a 1988 Perception Dancer."),
    ("Lee", "Ha! Also, congratulations on the new job. When do you start at the bakery?"),
    ("Kim", "This coming Monday. Nervous but excited."),
    ("Lee", "My sister is visiting in March, she wants to see the harbour."),
]


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("When did Kim pick up the Perception Dancer?", "Sunday 7 April 2024"),  # not 1988
        ("When does Kim start at the bakery?", "Monday 15 April 2024"),
    ],
)
def test_a_time_told_in_the_turns_beside_the_memory(open_memory, engine, question, day):
    """The thing's time said before the other's question ("Guess what I did on
    Sunday"), or in the reply to one that asks when (``reader._dialogue``)."""
    mem = open_memory(engine=engine)
    tuesday = datetime(2024, 4, 9, 20, tzinfo=timezone.utc)
    for i, (who, text) in enumerate(EVENING):
        when = tuesday + timedelta(minutes=i)
        mem.add(text, "u", speaker=who, timestamp=when, session_id="s1")
    assert mem.answer(question, "u", now=tuesday + timedelta(hours=1)).text == day


def test_a_thing_asked_as_done_is_not_dated_by_its_plan_or_a_later_time():
    feb3, feb24, jun11 = (
        datetime(2026, 2, 3, 19, tzinfo=timezone.utc),
        datetime(2026, 2, 24, 20, tzinfo=timezone.utc),
        datetime(2026, 6, 11, 21, tzinfo=timezone.utc),
    )
    reader = Answerer(create_llm("none"))
    # the plan shares more words, but says nothing of when it was done
    hits = [
        _hit(
            0,
            "My daughter loves fish and I finally caved, so I'm going to set up a fish tank.",
            feb3,
        ),  # noqa: E501
        _hit(1, "The tank is up and running. I finally set it up last Saturday.", feb24),
    ]
    asked = read_question("When did I set up my new fish tank?", jun11)
    assert reader.answer(asked, Recall(hits, 1.0, False)).text == "Saturday 21 February 2026"
    # asked when it happened, a time after the question is asked is no answer
    later = [_hit(0, "I'm leading the Iceland trip next year.", jun11)]
    answer = reader.answer(
        read_question("When did Callum lead the Iceland trip?", jun11 + timedelta(days=1)),
        Recall(later, 1.0, False),
    )
    assert "2027" not in answer.text
    assert read_question("When did Callum lead it?", None).asks_past
    assert not read_question("When is the open day?", None).asks_past


def test_a_time_further_off_in_the_memory_dates_what_the_question_asks_of():
    said = datetime(2026, 2, 3, 19, tzinfo=timezone.utc)
    text = "A rescue. Kettleby Reptile Rescue, out past Skipton. I collected her last Saturday."
    asked = "When did I collect my tortoise from the rescue?"
    assert memory_date(text, "A rescue.", said, asked) == "Saturday 31 January 2026"
    # a time two sentences off that shares nothing asked is not the answer
    text = "A rescue. Kettleby Reptile Rescue, out past Skipton. My sister visited last Saturday."
    assert memory_date(text, "A rescue.", said, "When did I adopt my tortoise?") == ""


#: a Monday evening: a time told only in the question a reply answers, a time told in
#: a reply's second sentence, and a plan's "soon" in a reply beside a past event
CATCH_UP = [
    ("Lee", "How did the half marathon go yesterday?"),
    ("Kim", "Brilliant, I finished the half marathon in a personal best."),
    ("Lee", "And how's Ffion getting on at the new swimming club?"),
    ("Kim", "Loving it. She's got her first gala with them on 25 April."),
    ("Lee", "A first gala with a new club, how exciting."),
    ("Lee", "How's the band? Is that the drummer who moved to Leeds last year?"),
    ("Kim", "So much better. We rehearse in Femi's garage, and the first gig is soon."),
    ("Kim", "Oh, and the band's first gig was last Saturday, I forgot to say!"),
]


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("When did Kim finish the half marathon?", "Sunday 7 April 2024"),
        ("When is Ffion's first gala with her new swimming club?", "25 April"),
        ("When did the band play their first gig?", "Saturday 6 April 2024"),
    ],
)
def test_a_reply_is_dated_by_what_it_answers(open_memory, engine, question, day):
    """A reply naming no time of its own is dated by the question it answers ("How
    did the half marathon go yesterday?"), when that question shares a word with the
    one asked (not by "last year" of the drummer); a reply's later sentence that tells a time
    inherits what its asking turn shares with the question (``reader._dialogue``),
    one that tells none does not ("the first gig is soon")."""
    mem = open_memory(engine=engine)
    monday = datetime(2024, 4, 8, 20, tzinfo=timezone.utc)
    for i, (who, text) in enumerate(CATCH_UP):
        when = monday + timedelta(minutes=i)
        mem.add(text, "u", speaker=who, timestamp=when, session_id="s1")
    assert day in mem.answer(question, "u", now=monday + timedelta(hours=1)).text


def test_a_day_inside_the_month_the_best_sentence_names_dates_it():
    """ "My grandmother's turning 90 in June" fits "When was the 90th birthday party?"
    best, and names only June; "The party's on Saturday the 6th of June" shares a
    word and names a day inside it: the same event told more precisely
    (``reader._finer``)."""
    said = datetime(2026, 4, 20, 18, tzinfo=timezone.utc)
    hits = [
        Hit("a", "My grandmother's turning 90 in June and we're planning a big party.", 1.0,
            "Noor", said, "s1"),
        Hit("b", "Chaos. The party's on Saturday the 6th of June, with 60 guests.", 0.9,
            "Noor", said + timedelta(days=20), "s2"),
        Hit("c", "We went to the beach on the 3rd of June.", 0.8, "Noor", said, "s3"),
    ]  # fmt: skip
    asked = read_question(
        "When was Noor's grandmother's 90th birthday party?", said + timedelta(days=80)
    )
    sentence, hit = best_sentence(asked, hits)
    assert hit is hits[1] and "6th of June" in sentence, sentence


#: a Friday evening: a reply to "When did you get it?" after the thing is named in
#: the turn's first sentence, and a day told of "it" beside a sentence that names the
#: thing but a different doing
FRIDAY = [
    ("Rob", "Big news, I bought a canoe."),
    ("Ann", "A canoe?! Where from? When did you get it?"),
    ("Rob", "Fetched it on Wednesday just gone. It's an old Canadian one that needs a seat."),
    ("Ann", "Ha. Anything else?"),
    ("Rob", "News to start the weekend: I ordered a new kettle. I received it yesterday."),
]


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
@pytest.mark.parametrize(
    ("question", "day"),
    [
        ("When did Rob collect his canoe?", "Wednesday 10 April 2024"),
        ("When did Rob receive the new kettle he ordered?", "Thursday 11 April 2024"),
    ],
)
def test_the_sentence_of_the_doing_asked_says_when(open_memory, engine, question, day):
    """A reply to a turn asking when tells when, though the asking sentence says "it"
    for the thing named before it ("A canoe?! ... When did you get it?"); a sentence
    saying the question's doing of "it" ("Received it yesterday") dates it before
    the sentence that names the thing with another doing ("I ordered a new kettle")
    (``reader._event_verb``, ``reader._refers_back``)."""
    mem = open_memory(engine=engine)
    friday = datetime(2024, 4, 12, 19, tzinfo=timezone.utc)
    for i, (who, text) in enumerate(FRIDAY):
        mem.add(text, "u", speaker=who, timestamp=friday + timedelta(minutes=i), session_id="s1")
    assert day in mem.answer(question, "u", now=friday + timedelta(hours=1)).text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_the_reply_to_when_asked_of_what_was_told_tells_when(open_memory, engine):
    """ "We've made the league final!" / "No way! When is it?" / "On Tuesday, at the
    Kestrel Inn.": the reply tells when the final is, though it names no final."""
    mem = open_memory(engine=engine)
    sunday = datetime(2026, 6, 14, 16, tzinfo=timezone.utc)
    talk = [
        ("Lorcan", "Big news from the quiz world. We've made the league final!"),
        ("Tamsin", "No way! When is it?"),
        ("Lorcan", "On Tuesday, at the Kestrel Inn over in Ashby. Neutral ground."),
        ("Tamsin", "Brilliant. I got back from Skomer on Monday, by the way."),
        ("Lorcan", "Quiz night might move to Mondays soon, the landlord wants karaoke."),
    ]
    for i, (who, text) in enumerate(talk):
        when = sunday + timedelta(minutes=i)
        mem.add(text, "u", timestamp=when, speaker=who, session_id="s1")
    later = sunday + timedelta(days=30)
    answer = mem.answer("When did Lorcan's team play the league final?", "u", now=later)
    assert "16 June" in answer.text, answer.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_the_day_of_the_doing_by_whom_the_question_asks_of(open_memory, engine):
    """ "When was Nadia due to collect the keys from Joss?" is the day Nadia picks
    them up ("on Friday", said on a Wednesday), not the day Joss picked up keys
    himself, though his sentence says "keys" and he is named
    (``reader._done_by_other``); the doing asked of a plan is the one planned
    (``kinds.main_verbs``)."""
    mem = open_memory(engine=engine)
    monday = datetime(2026, 3, 2, 18, tzinfo=timezone.utc)
    wednesday = monday + timedelta(days=30)  # Wednesday 1 April
    talk = [
        (monday, "Joss", "I picked up the keys to the allotment shed last Saturday."),
        (monday, "Nadia", "Lucky you. Mine are still with the committee."),
        (wednesday, "Nadia", "Joss is lending me his spare set, I'll pick them up on Friday."),
        (wednesday, "Ruth", "That's kind of him."),
    ]
    for i, (day, who, text) in enumerate(talk):
        mem.add(text, "u", speaker=who, timestamp=day + timedelta(minutes=i), session_id=str(day))
    later = wednesday + timedelta(days=9)
    answer = mem.answer("When was Nadia due to collect the keys from Joss?", "u", now=later)
    assert "3 April" in answer.text, answer.text


def test_a_wish_is_no_doing_and_a_plan_with_its_day_beside_it_is_dated():
    """Asked when it was done: "Maren wants me to run my first half marathon before
    the autumn" wishes the run (``reader._wished``), whatever a teaser dates it by;
    "First half marathon, run yesterday morning" did it. A plan whose day is told in
    the next sentence ("Booked my first parachute jump! Saturday the 16th of May.")
    is dated as one naming it (``reader._neighbour_day``)."""
    may, june = (
        datetime(2026, 5, 12, 19, tzinfo=timezone.utc),
        datetime(2026, 6, 28, 11, tzinfo=timezone.utc),
    )
    reader = Answerer(create_llm("none"))
    hits = [
        _hit(
            0,
            "And the big news is Maren wants me to run my first half marathon before the autumn.",
            may,
        ),  # noqa: E501
        _hit(1, "WE DID IT. First half marathon, done yesterday morning in Tralee.", june),
    ]
    asked = read_question("What date did I run my first half marathon?", june + timedelta(days=9))
    assert reader.answer(asked, Recall(hits, 1.0, False)).text == "Saturday 27 June 2026"
    april = datetime(2026, 4, 28, 21, tzinfo=timezone.utc)
    booked = [
        _hit(0, "Tonight's my first practice jump from the tower at the club.", april),
        _hit(
            1,
            "Gordon's booked my first parachute jump! Saturday the 16th of May, at Hinton.",
            april,
        ),  # noqa: E501
    ]
    asked = read_question("On what day did I do my first parachute jump?", june)
    assert reader.answer(asked, Recall(booked, 1.0, False)).text == "Saturday 16 May 2026"


def test_someone_else_doing_it_is_not_the_day_i_did():
    """ "She ran her first marathon last month" is not when I ran mine
    (``reader._done_by_other``: "he", "she", "they" are another)."""
    june = datetime(2026, 6, 28, 11, tzinfo=timezone.utc)
    reader = Answerer(create_llm("none"))
    hits = [
        _hit(0, "She ran her first marathon last month at Cork, nearly four hours.", june),
        _hit(1, "My first marathon is done, I ran it on Sunday.", june),
    ]
    asked = read_question("When did I run my first marathon?", june + timedelta(days=9))
    assert reader.answer(asked, Recall(hits, 1.0, False)).text == "Sunday 21 June 2026"


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_the_reply_to_when_asked_in_a_verb_of_its_kin(open_memory, engine):
    """ "When did you catch him?" / "Last Sunday." answers "What day did we trap my
    kestrel?": the asking turn shares the doing in a verb of its kin, no word
    (``reader._shared_asking``)."""
    mem = open_memory(engine=engine)
    wednesday = datetime(2026, 10, 14, 22, tzinfo=timezone.utc)
    talk = [
        ("user", "There is a kestrel living in my backyard right now, a young one."),
        ("assistant", "Amazing! Tell me everything. When did you catch him?"),
        ("user", "Last Sunday. Lorraine picked me up at six and we drove the back roads."),
        ("assistant", "What a start. How is he settling?"),
    ]
    for i, (who, text) in enumerate(talk):
        mem.add(text, "u", speaker=who, timestamp=wednesday + timedelta(minutes=i), session_id="s1")
    later = wednesday + timedelta(days=20)
    answer = mem.answer("What day did we trap my kestrel?", "u", now=later)
    assert "11 October" in answer.text, answer.text


def test_a_return_is_a_going_back_and_a_plan_talked_of_lies_ahead():
    """ "She came back last Saturday" tells when Mom got back home (``kinds.verb_lemmas``:
    a verb of going with "back" is a return), not the handyman "coming Saturday";
    "Gordon's started talking about me ringing my first peal in May", said in March,
    is next May, and a day in it told later is finer (stop 72)."""
    april = datetime(2026, 4, 14, 19, tzinfo=timezone.utc)
    reader = Answerer(create_llm("none"))
    hits = [
        _hit(0, "A handyman is coming Saturday to fit grab bars by the back door.", april),
        _hit(1, "She came back last Saturday and so far nobody has fallen over.", april),
    ]
    asked = read_question(
        "When did Mom get back home from the rehab place?", april + timedelta(days=9)
    )
    assert reader.answer(asked, Recall(hits, 1.0, False)).text == "Saturday 11 April 2026"
    march, may = (
        datetime(2026, 3, 30, 19, tzinfo=timezone.utc),
        datetime(2026, 5, 11, 19, tzinfo=timezone.utc),
    )
    hits = [
        _hit(0, "Gordon's started talking about me ringing my first quarter peal in May.", march),
        _hit(1, "I did it! First quarter peal, the day before yesterday.", may),
    ]
    asked = read_question("On what day did I ring my first quarter peal?", may + timedelta(days=9))
    assert reader.answer(asked, Recall(hits, 1.0, False)).text == "Saturday 9 May 2026"


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_reply_to_a_turn_asking_of_it_tells_the_day_finer(open_memory, engine):
    """ "There's talk of entering the striking competition in May" is dated by a month;
    the reply to "And what's happening with the striking competition?" names its day
    ("Dialogue.answering", ``reader._finer``), though it shares no word with the
    question (stop 72)."""
    mem = open_memory(engine=engine)
    march, april = (
        datetime(2026, 3, 21, 19, tzinfo=timezone.utc),
        datetime(2026, 4, 30, 19, tzinfo=timezone.utc),
    )
    talk = [
        (march, "user", "There's talk of entering the Clee Hills striking competition in May."),
        (march, "assistant", "How exciting! Which method will you ring?"),
        (april, "user", "The Plough runs a quiz on Fridays, so the pub will be noisy."),
        (april, "assistant", "And what's happening with the striking competition?"),
        (april, "user", "It's on Saturday 16 May at Tenbury, at St Mary's. They have eight bells."),
    ]
    for i, (when, who, text) in enumerate(talk):
        session = f"s{when.month}"
        mem.add(text, "u", speaker=who, timestamp=when + timedelta(minutes=i), session_id=session)
    answer = mem.answer(
        "What date was the striking contest our band entered?", "u", now=april + timedelta(days=40)
    )
    assert "16 May" in answer.text, answer.text
