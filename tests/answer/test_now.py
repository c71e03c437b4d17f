"""What is true now, as the typed reader reads it (``answer/now.py``): a value a later
memory says was dropped for another ("Not Porto anymore, we're going to Seville
instead") is no answer, and the value named in its place is. The reading of the
sentences is plain text; the end-to-end cases run a real Memory and spaCy."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import nlp
from remem.answer.now import asks_left, dropped, last_change, measured, priced_keys
from remem.question import as_question
from remem.types import Hit

T0 = datetime(2026, 2, 3, 18, 0, tzinfo=timezone.utc)


def _hit(text: str) -> Hit:
    return Hit(id="m1", text=text, score=1.0, speaker=None, timestamp=T0, session_id=None)


@pytest.mark.parametrize(
    ("text", "old", "new"),
    [
        ("Not Porto anymore, we're going to Seville instead.", "Porto", "Seville"),
        # said with a contraction, the new value in a clause of its own
        ("It isn't Porto any more, we're doing Seville instead.", "Porto", "Seville"),
        ("She’s not Tallulah any more, she's Nettle instead.", "Tallulah", "Nettle"),
        (
            "Flights to Tbilisi were silly money, so we're doing Ljubljana instead.",
            "Tbilisi",
            "Ljubljana",
        ),
        ("We booked Seville instead of Porto in the end.", "Porto", "Seville"),
        ("Instead of Porto, we're going to Seville.", "Porto", "Seville"),
        ("We're meeting at the Crown rather than the Anchor.", "Anchor", "Crown"),
        # traded, switched or turned down, naming the value in its place
        (
            "And I've finally traded in the Fiesta for a secondhand Skoda Octavia estate.",
            "Fiesta",
            "Skoda Octavia",
        ),
        ("I swapped my old Nokia for a Fairphone 5 last week.", "Nokia", "Fairphone"),
        ("So I've accepted Cardiff and turned Sheffield down.", "Sheffield", "Cardiff"),
        ("We switched from Spoke to Northbridge in May.", "Spoke", "Northbridge"),
        # cancelled, the value named after it in its place
        (
            "I cancelled Larchmont, got my deposit back, and the units from Pellow & Sons came.",
            "Larchmont",
            "Pellow",
        ),
        # a choice said not made (stop 67)
        ("Ah, no, I never bought the Yaris. Mr Kowalczyk offered me his Jazz.", "Yaris", ""),
        ("We didn't book Noboribetsu in the end.", "Noboribetsu", ""),
        ("Bronwen's moving me off Wednesday evenings, from June I'm on Sundays.", "Wednesday", ""),
        # one of the same kind in the sentence before (stop 73)
        (
            "Mill End Dairy is shutting down. So from Monday the milk comes from Tarn Dairy "
            "instead.",
            "Mill End Dairy",
            "Tarn Dairy",
        ),
    ],
)
def test_a_value_dropped_for_another(text, old, new):
    assert [(d.old, d.new) for d in dropped([_hit(text)])] == [(old, new)]


@pytest.mark.parametrize(
    "text",
    [
        "Sarah and I are going to Rome instead.",  # one clause: Sarah is not dropped
        "I'd rather stay in tonight.",
        "We're going to Seville in September.",
        "Not sure about Porto yet.",
        "I never went to Paris.",  # no choice said not made
        "They didn't get Hollybrook.",  # a choice refused them, not one they made
    ],
)
def test_no_value_dropped(text):
    assert dropped([_hit(text)]) == []


TALK = [
    (0, "Ngozi", "Any plans for the autumn?"),
    (0, "Henrik", "Oskar and I are thinking of Porto in September, his cousin lives there."),
    (0, "Ngozi", "Porto's lovely, you'll eat so well."),
    (40, "Henrik", "Speaking of plans, we've changed the holiday. Not Porto anymore, we're going to Seville instead."),  # noqa: E501
    (40, "Ngozi", "Makes total sense. Still September?"),
    (40, "Henrik", "Still September, mid-month, before it gets too busy."),
]  # fmt: skip


@pytest.fixture()
def henrik(embedder):
    mem = remembered(embedder, "synapse", "ngozi", TALK, T0)
    yield mem
    mem.close()


@pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")
def test_the_value_named_in_place_of_a_dropped_one_answers(henrik):
    now = T0 + timedelta(days=41)
    a = henrik.answer("Where are Henrik and Oskar going on holiday in September?", "ngozi", now=now)
    assert a.text == "Seville", a.text


@pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")
def test_asked_for_the_first_plan_the_dropped_value_answers(henrik):
    now = T0 + timedelta(days=41)
    a = henrik.answer("Where were Henrik and Oskar first going in September?", "ngozi", now=now)
    assert "Porto" in a.text, a.text


@pytest.mark.parametrize(
    ("question", "measure"),
    [
        ("How many hedgehogs were released on Friday?", False),  # "13cm" counts none
        ("How many kilometres is the loop?", True),
        ("How many pounds did the bike cost?", True),
        ("How much did the bike cost?", True),
    ],
)
def test_a_measure_answers_a_count_of_units_only(question, measure):
    assert measured(as_question(question)) is measure


@pytest.mark.parametrize(
    ("question", "left"),
    [
        ("Which company did Priya leave to join Brightwater Health?", True),
        ("Which band did Rosa leave when she moved to Leeds?", True),
        ("Where did Sam move from?", True),
        # leaving only dates what is asked
        ("How many loaves a week was he baking when he left his job?", False),
        ("What did I do after I quit the choir?", False),
        ("When did I leave Acme?", True),  # a date is asked: the leaving is the question's
    ],
)
def test_a_question_about_what_was_left(question, left):
    assert asks_left(as_question(question)) is left


def _span(text: str, at: datetime, session: str) -> object:
    from remem.answer.candidate import Span

    return Span(text, 1.0, Hit(text, text, 0.0, "user", at, session))


def test_the_newest_value_is_read_by_the_noun_asked_and_its_session():
    """ "Which street's flat did I go for in the end?": a candidate names the street
    by its own noun or one a street is a kind of ("Abernethy Road"), not by "flat";
    and a later turn of the newest session that names the old street again does not
    hide the new one named a few turns before (``now.newest_value``)."""
    from remem.answer.now import newest_value
    from remem.answer.want import wanted

    question = as_question("Which street's flat did I go for in the end?")
    march = datetime(2026, 3, 5, 19, tzinfo=timezone.utc)
    april = datetime(2026, 4, 14, 19, tzinfo=timezone.utc)
    found = [
        _span("Calder Street", march, "s1"),
        _span("Abernethy Road", april, "s2"),
        _span("Calder Street", april + timedelta(minutes=4), "s2"),
        _span("new flat", datetime(2026, 5, 23, tzinfo=timezone.utc), "s3"),
    ]
    kept = [s.text for s in newest_value(question, wanted(question), found)]
    assert "Abernethy Road" in kept and kept.count("Calder Street") == 1


def test_a_weekday_asked_now_is_the_newest_memory_s():
    """ "Which evening is tower practice on these days?": every candidate is a day of
    the week, so the newest memory naming one tells it, as a colour's (stop 72)."""
    from remem.answer.now import newest_value
    from remem.answer.want import wanted

    question = as_question("Which evening is tower practice on these days?")
    january = datetime(2026, 1, 25, 19, tzinfo=timezone.utc)
    march = datetime(2026, 3, 30, 19, tzinfo=timezone.utc)
    found = [_span("Wednesday", january, "s1"), _span("Thursday", march, "s2")]
    assert wanted(question).kind == "weekday"
    assert [s.text for s in newest_value(question, wanted(question), found)] == ["Thursday"]


def test_a_kind_of_the_noun_asked_does_not_name_it_for_now():
    """ "Which worktop material did we go for in the end?": a later "sandstone" (a
    climbing trip's) is a material, yet no value of the worktop's: only the noun, a
    synonym, or a noun the asked one is a kind of name it."""
    from remem.answer.now import _names_head

    assert _names_head("street", "Abernethy Road")
    assert _names_head("material", "worktop material")
    assert not _names_head("material", "sandstone")


def test_a_name_given_anew():
    """ "I've renamed him Marlowe", "so she's Pimenta now", "He's called Sumac now",
    "It's called Dolly Grey now": names given anew; not a name first given ("The
    shelter named her Biscuit") nor "It's Spain now"."""
    from remem.answer.now import renamed_to

    said = (
        "The shelter named her Biscuit, so she's Pimenta now. I've renamed him Marlowe. "
        "He's called Sumac now. It's called Dolly Grey now. It's Spain now."
    )
    assert renamed_to(said) == {"Pimenta", "Marlowe", "Sumac", "Dolly Grey"}


def test_a_change_that_says_only_when_cuts_nothing():
    # "So I moved in on Monday in the end" names no value: the firm before it answers
    doc = nlp.parse(
        "Stourport Removals rang and cancelled. So I ended up with a family firm, "
        "Lightfoot Movers. So I moved in on Monday in the end."
    )
    assert last_change(list(doc.sents)) == 0
    doc = nlp.parse(
        "I drove an old Fiat. Last week someone dented it, so I sold it and bought a Vespa."
    )
    assert last_change(list(doc.sents)) == 1


def test_a_sum_asked_now_is_the_newest_pricing_the_thing():
    # "croissant", which the tagger calls an adjective, is what is priced
    question = as_question("How much do I charge for a croissant at the moment?")
    assert priced_keys(question) == {"croissant"}
