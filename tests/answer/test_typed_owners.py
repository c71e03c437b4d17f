"""Whose name, what kind (stop 71, from blind sets 74-78).

- The noun whose name is asked, also where the parser hangs "called" on it ("What's
  the new vicar at our church called?"), the tagger calls it proper for its capital
  ("Rosalind's Malinois", a breed WordNet knows) or the parser takes the name after
  it for the head ("the ringers' association Gideon got me to join"); a centre's
  name is an organisation's.
- No holiday is a person ("The new vicar started after Easter"), nor a breed ("Beulah
  ewes"), nor the town a band comes from ("a band from Halesworth").
- No count of minutes is a time of day ("It took 44 minutes").
- "Who is the old farmer...?" asks by a person noun; a band after "the" that did what
  the question asks who did is its answer ("The Lanterns headlined the fete").
- Asked the name of the captain's wife: not the captain ("Reginald Pocklington, who's
  been tower captain since 1986"), nor the speaker's wife ("my wife Odile").

Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import naming, nlp, spans
from remem.answer.want import named_noun_of, wanted
from remem.question import as_question

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 3, 3, 19, tzinfo=timezone.utc)

#: (day offset, speaker, text): one user and the assistant over a few weeks
TALK = [
    (0, "user", "Last Wednesday was my first rehearsal. Ambrose Kettlewell, who's been "
                "choir master since 1991, sat right beside me and sang my part."),
    (0, "user", "Subs are a fiver a term. My wife Odile says it's the cheapest therapy in "
                "Suffolk."),
    (9, "user", "The new curate started after Easter and she wants a sung evensong on "
                "Thursdays, which is our rehearsal night."),
    (20, "user", "The concert went well. It took 52 minutes, start to finish, and the "
                 "tenors came in late twice."),
    (21, "user", "Rosalind brought her Vizsla to the bake sale; her Malinois stayed home."),
    (22, "user", "The summer fete was great. Frank Ocean's cover band played early on, "
                 "but the big act was at nine."),
    (22, "assistant", "Sounds brilliant! Who was the big act?"),
    (22, "user", "The Lanterns headlined the fete. Everyone danced."),
]  # fmt: skip

NOW = T0 + timedelta(days=30)


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "ow", TALK, T0)
    yield mem
    mem.close()


def _ask(mem, question: str) -> str:
    return mem.answer(question, "ow", now=NOW).text


def test_the_noun_whose_name_is_asked():
    assert named_noun_of(as_question("What's the new vicar at our church called?")) == "vicar"
    # the parser takes the name after the noun for the head of "of"
    asked = as_question("What's the name of the ringers' association Gideon got me to join?")
    assert named_noun_of(asked) == "association"
    assert wanted(asked).kind == "org"
    asked = as_question("What's the name of the birds-of-prey centre where I had my taster day?")
    assert (wanted(asked).kind, wanted(asked).head) == ("org", "centre")
    assert named_noun_of(as_question("What's Rosalind's Malinois called?")) == "malinois"
    assert named_noun_of(as_question("What's my cat called?")) == "cat"


def test_who_is_the_person_noun():
    asked = wanted(as_question("Who is the old farmer who's been mentoring me?"))
    assert (asked.kind, asked.head) == ("person", "farmer")
    assert wanted(as_question("Who is my dentist?")).head == "dentist"
    assert wanted(as_question("Who is Tamsin?")).head == ""


def _entity(text: str, word: str):
    return next(e for e in nlp.parse(text).ents if e.text.startswith(word))


def test_a_breed_or_a_town_the_tagger_calls_a_person_is_no_one():
    # a name before a plural it describes is a kind ("Beulah ewes", "Harris hawks")
    flock = (
        "Yes, weekly, and she's started letting me work Fly on her bigger flock of about a "
        "hundred and twenty Beulah ewes which is a whole different job."
    )
    assert spans._modifies_noun(_entity(flock, "Beulah"))
    assert not spans._modifies_noun(_entity("I gave Beulah Jones two ewes.", "Beulah"))
    # a place a group comes from ("a band from Halesworth")
    band = nlp.parse("The ceilidh has a band from Halesworth called the Stompers.")
    town = next(t for t in band if t.text == "Halesworth")
    assert spans._placed(town)


def _sentence(text: str):
    return next(iter(nlp.parse(text).sents))


def test_the_owner_of_the_noun_asked_and_a_name_said_to_be_the_owners():
    asked = as_question("What's the name of the tower captain's wife?")
    assert naming.owner_noun(asked, "wife") == "captain"
    assert naming.owner_noun(as_question("What's my wife's name?"), "wife") == ""
    sent = _sentence("Reginald Pocklington, who's been tower captain since 1986, stood by me.")
    assert naming.is_the_owner(sent[0:2], "captain")
    sent = _sentence("Our captain, Reginald, stood by me.")
    assert naming.is_the_owner(sent[3:4], "captain")
    sent = _sentence("Reginald Pocklington stood by me with Odile.")
    assert not naming.is_the_owner(sent[0:2], "captain")


def test_the_reader_answers_them(talk):
    assert "Ambrose" not in _ask(talk, "What's the name of the choir master's wife?")
    assert "Odile" not in _ask(talk, "What's the name of the choir master's wife?")
    assert "Odile" in _ask(talk, "What's my wife called?")
    assert "Easter" not in _ask(talk, "What's the new curate at our church called?")
    assert "52" not in _ask(talk, "What time did the concert start?")
    # a band after "the", doing what the question asks who did
    assert "Lanterns" in _ask(talk, "Who headlined the summer fete?")
