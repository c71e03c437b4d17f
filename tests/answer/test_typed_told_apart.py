"""What the typed reader tells apart (stop 69, from blind sets 64-68 and LoCoMo's
single-hop questions): a noun a unit of time only describes ("Which day centre"), a
word describing the subject across "be" ("my favorite thing is Hawaiian pizza"), a
doing the sentence calls energizing, a kind told by a name-like word ("Hawaiian
pizza"), a place that is no kind of the noun asked, a thing never bought, a
nationality that owns nothing ("my Portuguese tutor"), a reply to a turn that asked
in another word of the family ("Who's supervising you?"), a firm or a building by its
name, a place a reply's fragment puts the noun asked in, a sentence going on about a
name by "they", a count of pieces, a four-letter plural, a name given to someone ("a
Welshman called Gethin Pryce"), a choice made in the end, and a number written against
"am". Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import nlp, now, reader, spans
from remem.answer.candidate import Span
from remem.answer.typed import (
    ALONE,
    _a_firm,
    _a_site,
    _bare,
    _may_be_place,
    _on_the_clock,
    _sort_of,
    asked_by_kin,
)
from remem.question import as_question
from remem.types import Hit
from remem.words import answer_type

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 2, 3, 18, tzinfo=timezone.utc)

#: (day offset, speaker, text): one user and the assistant over a few weeks
TALK = [
    (0, "user", "I've started Portuguese lessons, a class and one-to-one on Saturdays."),
    (0, "assistant", "Lovely. Who's teaching the one-to-one?"),
    (0, "user", "My tutor is Leonor Valadares. She's from Aveiro."),
    (2, "user", "The PhD is going well, the cuttlefish are growing."),
    (2, "assistant", "That's a lot to juggle! Who's supervising you?"),
    (2, "user", "Professor Hallgerd Vinter. She's Norwegian and very dry."),
    (5, "user", "Bartholomew's rule is never buy a van you can't get parts for on a "
                "Sunday. So I bought a 2017 Ford Transit instead."),
    (6, "user", "I'm starting a small business. Working name is Savi Ceramics."),
    (6, "user", "My partner says the kiln has to live in the shed."),
    (8, "user", "I've signed up with an agency, Bracken & Beck Cottages. They do the photos, "
                "the listings and all the payments."),
    (9, "user", "My first firing was on Friday. I crammed 38 pieces in, and only two cracked."),
    (9, "user", "I've put the mug price up to £24."),
    (10, "user", "I found a marine engineer, a Welshman called Gethin Pryce who lives on his own "
                 "boat two pontoons down."),
]  # fmt: skip

NOW = T0 + timedelta(days=20)


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "im", TALK, T0)
    yield mem
    mem.close()


def _ask(mem, question: str) -> str:
    return mem.answer(question, "im", now=NOW).text


def test_a_unit_of_time_that_only_describes_a_noun_asks_no_date():
    assert answer_type("Which day centre did we settle on for Mum in the end?") == "thing"
    assert answer_type("What day trip did we take?") == "thing"
    assert answer_type("Which day did I move?") == "date"
    assert answer_type("What year did Mum retire?") == "date"


def _across_be(sentence: str, word: str) -> list[str]:
    doc = nlp.parse(sentence)
    matched = [t for t in doc if t.lower_ == word]
    return [s.text for s, origin in spans._governed(matched) if origin == "copula"]


def test_across_be_from_a_word_describing_the_subject_or_a_complement():
    assert "Hawaiian pizza" in _across_be("My favorite thing is Hawaiian pizza.", "favorite")
    told = _across_be(
        "Performing and connecting with the crowd has been so energizing.", "energizing"
    )
    assert "Performing and connecting with the crowd" in told


def test_a_kind_told_by_a_name_like_word_or_a_noun_before_it():
    assert _sort_of(nlp.parse("I love Hawaiian pizza")[2:4], "pizza")
    assert _sort_of(nlp.parse("a mushroom risotto")[1:3], "risotto")
    assert not _sort_of(nlp.parse("What other pizza do you like")[1:3], "pizza")


def test_a_place_answers_a_place_a_body_or_a_trip_not_a_disaster_or_a_meal():
    assert not _may_be_place("disaster")
    assert not _may_be_place("meal")
    assert _may_be_place("city") and _may_be_place("club") and _may_be_place("holiday")
    # a made thing's make may read as a place: "a little silver Yaris"
    assert _may_be_place("car")


def test_a_thing_never_bought_is_not_what_was_bought(talk):
    assert "Transit" in _ask(talk, "Which van did I buy?")


def test_a_nationality_owns_no_noun(talk):
    assert "Valadares" in _ask(talk, "What's my Portuguese tutor called?")


def test_a_reply_to_a_turn_asking_in_another_word_of_the_family(talk):
    # no sentence says "supervisor": the reply to "Who's supervising you?" is read
    question = "Who is my doctoral supervisor?"
    evidence = talk.answer(question, "im", now=NOW).evidence
    read = as_question(question)
    assert reader.best_sentence(read, evidence) == ("", None)
    sentence, hit = asked_by_kin(read, evidence, talk._recaller.around("im"))
    assert sentence == "Professor Hallgerd Vinter." and hit is not None
    assert asked_by_kin(as_question("Who is my landlord?"), evidence, ALONE) == ("", None)


def _candidate(name: str, text: str) -> Span:
    return Span(name, 0.0, Hit("h", text, 0.0, "user", T0, "s0"))


def test_a_firm_by_its_name_is_no_one(talk):
    # "Working name is Savi Ceramics" names the business, not the partner
    assert _a_firm(_candidate("Savi Ceramics", "Working name is Savi Ceramics, savi means clay."))
    assert not _a_firm(_candidate("Leonor Valadares", "My tutor is Leonor Valadares."))
    assert _a_site(_candidate("Curlew Barn", "So it's Curlew Barn now."))
    assert "Savi" not in _ask(talk, "What is my partner's name?")


def test_a_reply_that_puts_the_noun_asked_in_a_place():
    doc = nlp.parse("A three-bed terrace on Crofton Street in Heaton Moor.")
    place = next(e for e in doc.ents if e.text == "Heaton Moor")
    assert _bare(place, "place") and not _bare(place, "")


def test_a_sentence_going_on_about_a_name_by_a_pronoun_hands_it_the_fit(talk):
    # "They do ... the listings and all the payments": the agency before them
    assert "Bracken" in _ask(talk, "Which company looks after the listings and payments?")


def test_a_count_of_pieces_counts_whatever_was_asked_and_a_plural_meets_its_singular(talk):
    assert "38" in _ask(talk, "How many pieces did I fit into my first firing?")
    assert "24" in _ask(talk, "How much do I charge for one of my mugs now?")


def test_a_name_given_to_someone_is_no_boat(talk):
    assert "Gethin" not in _ask(talk, "What is my boat called?")


def test_a_choice_in_the_end_is_told_by_its_words_and_an_option_turned_down_is_not():
    question = as_question("What colour did I finally paint the cabin sides?")
    assert question.order == "newest" and now.asks_choice(question)
    assert not now.asks_choice(as_question("What colour are the cabin sides?"))
    doc = nlp.parse("Small update: I own a van! Not the Citroen though.")
    citroen = next(c for c in doc.noun_chunks if "Citroen" in c.text)
    assert now.choice_cues(as_question("Which van did I buy in the end?"), citroen)["turned_down"]
    doc = nlp.parse("We went with Fellside Restoration in the end.")
    fellside = doc[3:5]  # "Fellside Restoration"
    cues = now.choice_cues(as_question("Which builders did I hire in the end?"), fellside)
    assert cues == {"chosen": 1.0, "turned_down": 0.0, "weighed": 0.0, "picked": 1.0}


def test_the_option_a_choosing_verb_takes_is_the_one_picked():
    """Of two options in one sentence, the one right after "went with" is picked
    ("Navy is what everyone in my lab does, so I went with bottle green"); a booking
    or "went for" picks nothing ("Dad went for tea there"). A question asking by a
    verb of choosing asks a choice whatever its time ("What colour did I pick...?")."""
    question = as_question("What colour did I pick for the hardbound copies of my thesis?")
    assert now.asks_choice(question)
    doc = nlp.parse("Navy is what everyone in my lab does, so I went with bottle green.")
    navy, green = doc[0:1], doc[13:15]
    assert green.text == "bottle green"
    assert now.choice_cues(question, green)["picked"] == 1.0
    assert now.choice_cues(question, navy)["picked"] == 0.0
    ask = as_question("Which retirement scheme did Dad go with in the end?")
    doc = nlp.parse("Dad went for tea there and I've booked Alder House for a visit.")
    assert not any(now.choice_cues(ask, doc[i : i + 1])["picked"] for i in range(len(doc)))


def test_a_number_written_against_am_is_a_time_of_day_not_a_sum():
    doc = nlp.parse("I'm running on coffee and 6am runs along the Mersey.")
    six = next(t for t in doc if t.text == "6")
    assert _on_the_clock(doc[six.i : six.i + 1])
    doc = nlp.parse("We had 6 guests and it cost 6 pounds.")
    assert not any(_on_the_clock(doc[t.i : t.i + 1]) for t in doc if t.like_num)
