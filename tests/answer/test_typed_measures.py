"""What a question asks and what answers it (stop 70, from blind sets 69-73).

- What is asked: a place noun behind a describing word ("Which Japanese city"), a
  noun the tagger calls an adverb ("What present"), a street as a place, how long a
  trip lasts (not how long a boat is), a sum asked by "cost" past a long subject, a
  weight, a score asked by its verb, a capacity as a number.
- What answers: no number said as someone's age counts anything; no part of a day
  ("Thursday night") is how long something lasts; a title or a name
  the parser cut is read whole ("a book called Turn Left at Orion", "Tiger Gold"); a
  phrase ends before a dangling preposition.
- Whose name: "Yes, Hamish Ardley, who runs..." is said of him and answers the turn
  that asked; a name given by "her" is no husband's; a reply to "Who is he?" names no
  collie; a name a "who" clause follows is a person's; a quoted run is no one's; a
  name beside a person noun ("my niece Cosima") is someone, no thing.
- Never given: a measure of a kind memory never says ("the focal length"), the price
  of a thing never said ("the tank respray"); no number said of a share ("412 out of
  744") or in a sentence saying nothing of money is a price.
- Now: someone said to have gone ("Ollie's gone") is no one doing it now.

Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import naming, nlp, now, spans
from remem.answer.candidate import Span
from remem.answer.typed import (
    _an_age,
    _asked_who,
    _carried,
    _measure_kinds,
    _priced,
    _said_first,
    _whole_name,
)
from remem.answer.want import wanted
from remem.question import as_question
from remem.types import Hit

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
    (6, "user", "I joined a community choir, the director is brilliant."),
    (6, "assistant", "Lovely! Who runs it?"),
    (6, "user", "Her name's Rosalind Achterberg. Her husband plays cello in an orchestra."),
    (8, "user", "I found a mechanic for the bike, he has an old collie under the bench."),
    (8, "assistant", "Brilliant! Who is he?"),
    (8, "user", "Gerwyn Pryce. Welsh, about seventy, ran a Triumph dealership."),
    (9, "user", "The tank went to Leominster for paint. The wiring loom, I bought a new one "
                "for £145."),
    (9, "user", "Tickets went on sale on the 18th of May and we're at 412 already across "
                "the four nights."),
    (9, "user", "My niece Cosima designed the poster: a teacup with a skull in the steam."),
    (9, "user", "We moved the play to the Corn Exchange. It seats 186, versus about 90 at "
                "the church hall."),
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
    assert _an_age(_span("Gerwyn Pryce. Welsh, about seventy, ran a dealership.", "about"))
    assert not _an_age(_span("Save-the-dates went in the post on Wednesday, 96 of them.", "96"))


def test_a_phrase_stopping_inside_a_title_runs_to_its_end():
    doc = nlp.parse("Margaux gave me a book called Turn Left at Orion, with a note.")
    at = next(i for i, t in enumerate(doc) if t.text == "book")
    cut = doc[at : at + 4]  # "book called Turn Left"
    assert _whole_name(cut).text == "book called Turn Left at Orion"
    assert _whole_name(doc[at : at + 1]).text == "book"
    doc = nlp.parse("I've gone for the original Tiger Gold and black.")
    gold = next(i for i, t in enumerate(doc) if t.text == "Gold")
    assert _whole_name(doc[gold : gold + 1]).text == "Tiger Gold"


def test_a_name_followed_by_who_is_said_of_not_to():
    doc = nlp.parse("Yes, Hamish Ardley, who runs the hardware shop on Fore Street.")
    name = next(e for e in doc.ents if e.text == "Hamish Ardley")
    assert not naming.addressed(name)
    doc = nlp.parse("That's brilliant, Niamh, congratulations!")
    assert naming.addressed(next(e for e in doc.ents if e.text == "Niamh"))


def test_a_name_after_yes_with_only_a_clause_about_it_is_the_replys_answer():
    doc = nlp.parse("Yes, Hamish Ardley, who runs the hardware shop on Fore Street.")
    assert _said_first(next(e for e in doc.ents if e.text == "Hamish Ardley"))
    doc = nlp.parse("Yes, Hamish Ardley came round and fixed it.")
    assert not _said_first(next(e for e in doc.ents if e.text == "Hamish Ardley"))


def _named(sentence: str, name: str):
    return next(e for e in nlp.parse(sentence).ents if e.text == name)


def test_a_name_given_by_her_or_she_is_no_husbands():
    assert naming.other_sex(
        _named("Her name's Rosalind Achterberg.", "Rosalind Achterberg"), "husband"
    )
    assert not naming.other_sex(
        _named("Her name's Rosalind Achterberg.", "Rosalind Achterberg"), "sister"
    )
    assert naming.other_sex(_named("He's called Tom Bright.", "Tom Bright"), "sister")
    assert not naming.other_sex(_named("He's called Tom Bright.", "Tom Bright"), "manager")


def test_a_reply_to_who_names_no_pet():
    assert _asked_who(["Brilliant! Who is he?"])
    assert not _asked_who(["Brilliant! What's his dog called?"])


def test_a_name_a_who_clause_follows_may_be_a_persons():
    doc = nlp.parse(
        "Wiebke put me in touch with Femi Adeyemi, who runs a small dog-walking business."
    )
    run = next(e for e in doc.ents if e.text == "Femi Adeyemi")
    assert spans._who_follows(run) and spans._unnamed(run)
    doc = nlp.parse("We joined Brambledown Rescue, which runs a summer fun day.")
    assert not any(spans._who_follows(e) for e in doc.ents)


def test_a_quoted_run_or_a_stop_word_is_no_ones_name():
    doc = nlp.parse("Pepper won 'Best Rescue Glow-Up', which is the most ridiculous rosette.")
    runs = [doc[i : i + 2] for i, t in enumerate(doc) if t.text == "Best"]
    assert runs and spans._quoted(runs[0])
    up = next(doc[i : i + 1] for i, t in enumerate(doc) if t.text == "Up")
    assert spans._quoted(up)
    doc = nlp.parse("My neighbour Oksana came round.")
    assert not spans._quoted(next(doc[i : i + 1] for i, t in enumerate(doc) if t.text == "Oksana"))


def test_someone_said_to_have_gone_is_no_one_doing_it_now():
    def span(text: str) -> Span:
        return Span(text, 1.0, Hit("h", text, 1.0, "user", T0, "s"))

    found = [span("Ollie Tranter"), span("Femi Adeyemi")]
    said = ["Ollie's gone. He left for Leeds on Sunday."]
    assert [s.text for s in now.not_gone(found, said)] == ["Femi Adeyemi"]
    assert now.not_gone(found, ["Ollie left a voicemail."]) == found
    assert now.not_gone(found, ["Lena moved the date."]) == found
    assert [s.text for s in now.not_gone(found, ["Ollie has moved to Leeds."])] == ["Femi Adeyemi"]


def test_a_part_of_a_day_is_no_length_of_time():
    want = wanted(as_question("How long is the Japan trip we booked?"))
    doc = nlp.parse("We fly out on Thursday night and it's two hours to the airport.")
    times = {e.text: spans._fits(e, want) for e in doc.ents if e.label_ == "TIME"}
    assert times == {"night": False, "two hours": True}


def test_a_name_cut_and_found_whole_counts_once():
    doc = nlp.parse("I've gone for the original Tiger Gold and black.")
    gold = next(i for i, t in enumerate(doc) if t.text == "Gold")
    whole, cut = doc[gold - 1 : gold + 1], doc[gold : gold + 1]
    carried = _carried([(whole, "chunk"), (cut, "pattern")])
    assert [(s.text, o) for s, o in carried] == [("Tiger Gold", "pattern")]
    carried = _carried([(whole, "kind"), (cut, "chunk")])
    assert [(s.text, o) for s, o in carried] == [("Tiger Gold", "kind")]


def test_the_price_asked_of_a_thing_not_of_the_sum_or_who_gains():
    def priced(question: str) -> list[str]:
        read = as_question(question)
        return _priced(read, wanted(read))

    assert priced("How much did the tank respray cost me?") == ["respray"]
    assert priced("How much does Noor charge for a single bottle of sauce?") == ["bottle"]
    assert priced("How much was the adoption fee for Thaddeus's cat?") == []
    assert priced("How much money did the quiz night raise for the hospice?") == []


def test_a_phrase_ends_before_a_word_leading_on():
    doc = nlp.parse("Pieter has moved to Bristol for work, and we sang.")
    assert spans.trim(doc[4:6]) == "Bristol"
    doc = nlp.parse("It was the one I was looking at.")
    assert spans.trim(doc[0:8]) == "It was the one I was looking at"


def test_the_words_making_a_measure_asked_one_of_its_kind():
    def kinds(question: str) -> list[str]:
        read = as_question(question)
        return _measure_kinds(read, wanted(read))

    assert kinds("What is the focal length of my Dobsonian?") == ["focal"]
    assert kinds("What food hygiene rating did the council give us?") == ["hygiene"]
    assert kinds("What is the exact length of my boat?") == []
    assert kinds("What is my flat's number?") == []
    assert kinds("What's the seating capacity of the venue?") == ["seating"]


def test_the_reader_answers_them(talk):
    assert "Kanazawa" in _ask(talk, "Which Japanese city does my exchange partner come from?")
    assert "Turn Left at Orion" in _ask(talk, "Which guidebook did my daughter give me?")
    assert "thirty" not in _ask(talk, "How many students are there in my nursing cohort?")
    assert "Rosalind" not in _ask(talk, "What is my choir director's husband called?")
    assert "Gerwyn" not in _ask(talk, "What is my mechanic's collie called?")
    assert "seventy" not in _ask(talk, "What is the engine number of the Triumph?")
    assert "186" in _ask(talk, "What's the seating capacity of the Corn Exchange?")
    assert "Cosima" not in _ask(talk, "What image did my niece put on the poster?")
    assert "145" not in _ask(talk, "How much did the tank respray cost me?")
    assert "412" not in _ask(talk, "How much did a ticket for the show cost?")
    assert "seventy" not in _ask(talk, "What is the Triumph's registration number?")
