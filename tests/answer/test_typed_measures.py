"""What a question asks and what answers it (stop 70, from blind sets 69-73): a place
noun behind a describing word ("Which Japanese city"), a noun the tagger calls an
adverb ("What present"), a street asked as a place, how long a trip lasts (not how
long a boat is), a sum asked by "cost" past a long subject, a weight, a score asked
by its verb, a number said as someone's age (no count), and a title the parser cut
("a book called Turn Left at Orion"). Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import nlp
from remem.answer.typed import _an_age, _to_entity_end
from remem.answer.want import wanted
from remem.question import as_question

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 3, 2, 18, tzinfo=timezone.utc)

#: (day offset, speaker, text): one user and the assistant over a few weeks
TALK = [
    (0, "user", "My exchange partner is Daisuke, a Japanese student. He's twenty-six, from "
                "Kanazawa originally."),
    (1, "user", "I'm thirty-four and I've just started nursing. There are eighty-four of us "
                "in the cohort, apparently."),
    (3, "user", "Margaux, my daughter, gave me a book called Turn Left at Orion, with a note."),
    (5, "user", "It's a ground-floor flat on Cavendish Road, with a tiny garden."),
]  # fmt: skip

NOW = T0 + timedelta(days=20)


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "ms", TALK, T0)
    yield mem
    mem.close()


def _ask(mem, question: str) -> str:
    return mem.answer(question, "ms", now=NOW).text


def _want(question: str) -> tuple[str, str]:
    want = wanted(as_question(question))
    return want.kind, want.head


def test_a_describing_word_before_the_noun_asked():
    assert _want("Which Japanese city does my exchange partner come from?") == ("place", "city")
    assert _want("Which French town did we stay in?") == ("place", "town")


def test_a_noun_the_tagger_calls_something_else_after_what():
    assert _want("What present did the committee give our conductor?")[1] == "present"


def test_a_street_is_a_place():
    assert _want("Which street did I end up renting my new flat on?") == ("place", "street")


def test_how_long_a_trip_lasts_and_how_long_a_boat_is():
    assert _want("How long is our trip to Japan going to be?")[0] == "duration"
    assert _want("How long was my holiday in Crete?")[0] == "duration"
    assert _want("How long is the boat?")[0] == "length"
    assert _want("How long is the trail?")[0] == "length"


def test_a_sum_asked_by_cost_past_a_long_subject():
    assert _want("What does a one-day ticket for the festival cost now?")[0] == "money"
    assert _want("What does my sister think of the plan?")[0] == "thing"


def test_a_weight_and_a_score():
    assert _want("How heavy was Pepper at her first check-up?")[0] == "distance"
    assert _want("What was Pepper's weight at the vet?")[0] == "distance"
    assert _want("What did I score on the mock paper?")[0] == "number"
    assert _want("How did I get there?")[0] == ""


def _span(sentence: str, word: str):
    """The entity of ``sentence`` starting with ``word``."""
    return next(e for e in nlp.parse(sentence).ents if e.text.startswith(word))


def test_a_number_said_as_someones_age_counts_nothing():
    assert _an_age(_span("I'm thirty-four and I've just started nursing.", "thirty"))
    assert _an_age(_span("Pavel is fifteen now.", "fifteen"))
    assert not _an_age(_span("There are eighty-four of us in the cohort.", "eighty"))
    assert not _an_age(_span("I bought fifteen bulbs.", "fifteen"))


def test_a_phrase_stopping_inside_a_title_runs_to_its_end():
    doc = nlp.parse("Margaux gave me a book called Turn Left at Orion, with a note.")
    at = next(i for i, t in enumerate(doc) if t.text == "book")
    cut = doc[at : at + 4]  # "book called Turn Left"
    assert _to_entity_end(cut).text == "book called Turn Left at Orion"
    assert _to_entity_end(doc[at : at + 1]).text == "book"


def test_the_reader_answers_them(talk):
    assert "Kanazawa" in _ask(talk, "Which Japanese city does my exchange partner come from?")
    assert "Turn Left at Orion" in _ask(talk, "Which guidebook did my daughter give me?")
    assert "thirty" not in _ask(talk, "How many students are there in my nursing cohort?")
