"""Whom a name is given to (stop 72, from blind sets 79-85).

- A name given, then what the question asks of it told two sentences on, each
  opening with "she" ("a woman called Edwina Marsh. She trained in 1980... She runs
  the Tuesday beginners' class").
- "Her physical therapist is X" answers the name of the therapist of Gran, asked by
  a relation of that sex: "her" is Gran's.
- "Her name's Dr X, and she listens, unlike some of the ward doctors": the plural
  "doctors" are others, not the one named.
- A name ending in the noun asked is that noun's, whatever the tagger labels it
  ("the Hollowcombe Bird of Prey Centre").
- "an outfit called X" names an organisation; of two options weighed, the one
  chosen is the option named, not a detail said after it.
- "my archery training" is held by a memory of an archery course: the kind said
  before the noun, which the tagger calls an adjective, is a premise held.

Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import nlp
from remem.answer.now import choice_cues
from remem.answer.spans import _modifies_noun, _placed, names_a_thing
from remem.answer.typed import _compounds
from remem.answer.want import named_noun_of
from remem.question import as_question
from remem.words import word_key

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 2, 9, 18, tzinfo=timezone.utc)

#: (day offset, speaker, text): one user and the assistant over a few weeks
TALK = [
    (0, "user", "The club has paired me with a woman called Edwina Marsh. She trained "
                "in 1980 and has coached half the county. She runs the Tuesday "
                "beginners' class, so that's my night now."),
    (3, "user", "Gran is home from hospital. Her physical therapist is Odalys Ferreira, "
                "a tiny woman with a loud laugh. Gran calls her 'the sergeant'."),
    (9, "user", "We finally saw the stroke consultant about Grandad. Her name's Dr Imke "
                "Vos, and she talked to him, not over him, unlike some of the ward "
                "doctors."),
    (16, "user", "A man from Moretonhampstead called Cedric Yelland conducted the quarter."),
    (17, "user", "The vicar pops up at the end of practice sometimes to say thank you."),
    (15, "user", "So over the winter I did the full archery course at the Hollowcombe "
                 "Bird of Prey Centre, and now I'm hooked."),
]  # fmt: skip

NOW = T0 + timedelta(days=30)


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "rf", TALK, T0)
    yield mem
    mem.close()


def _ask(mem, question: str) -> str:
    return mem.answer(question, "rf", now=NOW).text


def test_a_name_told_of_two_sentences_on(talk):
    answer = _ask(talk, "What's the name of the lady who runs the beginners' class?")
    assert "Marsh" in answer


def test_her_is_the_relation_asked_of(talk):
    answer = _ask(talk, "What's the name of the physical therapist Gran calls 'the sergeant'?")
    assert "Ferreira" in answer


def test_plural_others_of_the_kind_leave_the_name_tied(talk):
    assert "Vos" in _ask(talk, "What's the name of the doctor who is looking after Grandad?")


def test_a_name_ending_in_the_noun_asked(talk):
    answer = _ask(talk, "Which centre did I do my archery training at?")
    assert "Hollowcombe Bird of Prey Centre" in answer


def test_a_kind_before_the_noun_tagged_as_an_adjective():
    assert word_key("falconry") in _compounds(
        as_question("Which centre did I do my falconry training at?"), "training"
    )
    # a quality is no kind
    assert not _compounds(as_question("Where did I do my new training?"), "training")


def test_an_organisation_called_by_its_name():
    """ "a two-man outfit in Derbyshire called Hathersage Early Keyboards": an outfit
    is an organisation by WordNet, so the name after "called" is a thing's, not a
    person's (``spans.names_a_thing``)."""
    doc = nlp.parse("A two-man outfit in Derbyshire called Hathersage Early Keyboards.")
    name = next(e for e in doc.ents if e.text.startswith("Hathersage"))
    assert names_a_thing(name)
    doc = nlp.parse("My cousin in Derbyshire is called Hester Quaile.")
    assert not names_a_thing(next(e for e in doc.ents if e.text.startswith("Hester")))


def test_the_option_weighed_is_the_one_chosen():
    """ "So in the end I ordered the Italian single: one manual, 45 keys": the option
    named before ("between their Dutch double and the Italian single") is weighed, a
    detail of it said after is not (``now.choice_cues``)."""
    doc = nlp.parse(
        "I went back and forth between their Dutch double and the Italian single. "
        "So in the end I ordered the Italian single: one manual, 45 keys."
    )
    asked = as_question("Which of the two models did I go for in the end?")
    chosen = next(c for c in doc.noun_chunks if c.text == "the Italian single" and c.start > 10)
    detail = next(c for c in doc.noun_chunks if c.text == "one manual")
    assert choice_cues(asked, chosen)["weighed"] == 1.0
    assert choice_cues(asked, detail)["weighed"] == 0.0


def test_a_name_before_one_thing_of_its_kind_names_no_one():
    """ "A female Harris hawk": a name before a singular physical thing's noun is its
    kind, no person (``spans._modifies_noun``); "Fiachra rang" stays someone."""
    doc = nlp.parse("She's here! A female Harris hawk, and she's already staring at me.")
    harris = next(e for e in doc.ents if e.text == "Harris")
    assert _modifies_noun(harris)
    doc = nlp.parse("My neighbour Fiachra rang this morning about the fence.")
    assert not any(_modifies_noun(e) for e in doc.ents if e.text == "Fiachra")


def test_the_animal_whose_name_is_asked_and_a_town_outside_which():
    """ "What's Hamish's goshawk called?" asks the goshawk's name (the parser hangs
    "called" on it), so a lad named beside it is none; "up a lane outside
    Abergavenny" is a place, no one (``spans._placed``)."""
    assert named_noun_of(as_question("What's Hamish's goshawk called?")) == "goshawk"
    doc = nlp.parse("A retired sheep farmer, up a lane outside Abergavenny.")
    town = next(t for t in doc if t.text == "Abergavenny")
    assert _placed(town)


def test_a_person_called_is_no_name_of_another_person_noun(talk):
    """ "What's the vicar at St Aldhelm's called?" asks the vicar's name (the parser
    hangs "called" on "is"); "a man called Cedric Yelland conducted it" names no
    vicar, and a sentence giving a name is no fit for a person noun it does not say."""
    assert named_noun_of(as_question("What's the vicar at St Aldhelm's called?")) == "vicar"
    answer = talk.answer("What's the vicar at St Aldhelm's called?", "rf", now=NOW)
    assert answer.refused, answer.text
