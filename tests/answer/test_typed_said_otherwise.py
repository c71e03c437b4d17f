"""What memory says in other words than the question (stop 67): "Dad" of "my father",
"the fieldwork" of "my fieldwork trip", "R1,200" as a sum, "called the Brindley
Street Singers" as a choir's name; and what names no one ("every Sunday", "Oh God",
"Mum"). Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import naming, nlp, spans
from remem.answer.kinds import is_a
from remem.answer.reader import REFUSAL
from remem.answer.typed import _bare_name, _compounds, _named_wrong, _priced_other
from remem.answer.want import wanted
from remem.question import as_question

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 2, 7, 18, tzinfo=timezone.utc)

#: (day offset, speaker, text): one user and the assistant over a few weeks
TALK = [
    (0, "user", "Yes, that's the other big thing. Dad's 87 and he's been on his own in the "
                "family house in Rugby since Mum died. He's had two falls since Christmas."),
    (0, "assistant", "That's a big step for him. Has he seen anywhere yet?"),
    (0, "user", "One place on Thursday. He's lived in that house forty-one years, so "
                "anywhere is going to feel small to him."),
    (0, "user", "There's a loft full of Dad's old Meccano and Radio Times since 1985."),
    (9, "user", "I've joined a choir at last."),
    (9, "assistant", "How was the first rehearsal? Which choir is it?"),
    (9, "user", "It's called the Brindley Street Singers, about forty of us, in the back "
                "hall of the Methodist church."),
    (16, "user", "Charmaine emailed: if I do all the painting myself they'll take R1,200 off "
                 "the rent for three months."),
    (23, "user", "Still going to the pool every Sunday with my buddy."),
    (23, "user", "Oh God, yes, my brother Ronan got engaged at Christmas."),
    (30, "assistant", "Welcome back! How did the fieldwork go?"),
    (30, "user", "Really well. We drove up on Monday the 22nd of June with a trailer full "
                 "of tanks. Twelve days in the field, diving twice a day."),
    (37, "user", "I took every cupboard door off, filled the old screw holes and fitted "
                 "soft-close hinges on all nine doors."),
]  # fmt: skip

NOW = T0 + timedelta(days=40)


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "lee", TALK, T0)
    yield mem
    mem.close()


def _ask(mem, question: str) -> str:
    return mem.answer(question, "lee", now=NOW).text


def test_a_relation_is_held_by_the_word_said_for_it(talk):
    # "Dad" (tagged a proper noun) is a kind of father: "my father" is in memory
    assert is_a("dad", "father")
    assert _ask(talk, "How old is my father?") == "87"
    assert "forty-one years" in _ask(talk, "How long had my father lived in the family house?")


def test_a_year_is_no_age():
    doc = nlp.parse(TALK[3][2])
    year = next(e for e in doc.ents if e.text == "1985")
    assert not spans._aged(year)


def test_a_count_in_words_is_read_whole():
    # "forty-one years", not "one years"
    doc = nlp.parse("He's lived in that house forty-one years.")
    assert [s.text for s in spans._pattern_spans(doc, spans._CLOCK)] == ["forty-one years"]


def test_a_thing_of_a_kind_is_held_by_its_kind(talk):
    # "my fieldwork trip": no memory says "trip", the fieldwork is told of
    assert _compounds(as_question("How long was my fieldwork trip?"), "trip") == {"fieldwork"}
    assert "twelve days" in _ask(talk, "How long was my fieldwork trip?").lower()
    # a person's role is not held by the kind of event it serves
    assert _ask(talk, "Who was my wedding photographer?") == REFUSAL


def test_a_sum_after_a_currencys_letters(talk):
    assert "R1,200" in _ask(talk, "How much was taken off my rent for doing the painting?")


def test_a_group_is_named_as_an_organisation():
    question = as_question("What's the name of the singing group I joined?")
    want = wanted(question)
    assert (want.kind, want.head) == ("org", "group")
    sent = nlp.parse(TALK[6][2])[:]
    named = [s.text for s, origin in spans.phrases(sent, want, [], question) if origin == "named"]
    assert named == ["Brindley Street Singers"]  # "called the ...": no one's name
    person = wanted(as_question("Who's the conductor of the choir?"))
    assert "Brindley Street Singers" not in [
        s.text for s, _ in spans.phrases(sent, person, [], question)
    ]
    want = wanted(as_question("What is my running club called?"))
    assert (want.kind, want.head) == ("org", "club")


def test_what_names_no_one(talk):
    doc = nlp.parse("Still going to the pool every Sunday with my buddy.")
    assert not spans._proper_runs(doc[:])
    doc = nlp.parse("Oh God, yes, my brother Ronan got engaged at Christmas.")
    assert [r.text for r in spans._proper_runs(doc[:])] == ["Ronan"]
    assert _ask(talk, "What's my swimming buddy called?") == REFUSAL
    # the name the question gives is no answer to whose someone is ("Dominic's")
    assert _bare_name("Dominic's") == "dominic"


def test_someone_with_an_accent_is_someone():
    assert wanted(as_question("What is my brother's fiancée called?")).kind == "person"


def test_a_share_asked_is_a_percentage():
    want = wanted(as_question("What alcohol percentage did my first cider come out at?"))
    assert (want.kind, want.head) == ("number", "percentage")


def test_a_verb_read_as_a_modifier_still_takes_its_object(talk):
    question = as_question("What did I fit to the kitchen cupboard doors?")
    doc = nlp.parse(TALK[-1][2])
    played = [s.text for s, _ in spans._played(doc, wanted(question), question)]
    assert "soft-close hinges" in played


def test_a_phrasal_verb_is_its_particles():
    # "the engine turns over" tells nothing of what "turned up"
    question = as_question("What turned up hidden in the galley when I stripped it out?")
    doc = nlp.parse("The engine turns over, the roof leaks round the mushroom vents.")
    assert "engine" not in [s.text for s, _ in spans._played(doc[:], wanted(question), question)]
    doc = nlp.parse("A biscuit tin turned up behind the old cupboards.")
    assert "A biscuit tin" in [s.text for s, _ in spans._played(doc[:], wanted(question), question)]


def test_a_name_given_to_a_role_beside_a_woman_is_the_roles():
    # "her key worker, a young woman called Anouk" names no mother
    doc = nlp.parse("Her key worker, a young woman called Anouk, put up photos of mum's family.")
    anouk = next(e for e in doc.ents if e.text == "Anouk")
    assert naming.called_other(anouk, "mother")
    doc = nlp.parse("My mother, a woman called Edith, never sits still.")
    edith = next(e for e in doc.ents if e.text == "Edith")
    assert not naming.called_other(edith, "mother")


def test_a_relations_word_is_no_thing():
    # "Dad and I test-drove a Yaris": Dad is no car
    assert _named_wrong(
        wanted(as_question("Which car did I end up buying?")),
        None,
        "Dad",
        as_question("Which car did I end up buying?"),
    )
    assert not _named_wrong(
        wanted(as_question("Who did I go with?")), None, "Dad", as_question("Who did I go with?")
    )


def test_a_price_of_a_word_of_the_family_is_not_anothers():
    doc = nlp.parse("The adoption fee was £250, which covers his jabs.")
    fee = next(e for e in doc.ents if e.label_ == "MONEY")
    assert not _priced_other(fee, as_question("How much did I pay to adopt my dog?"))
    doc = nlp.parse("The table was £145.")
    table = next(e for e in doc.ents if e.label_ == "MONEY")
    assert _priced_other(table, as_question("How much did the lamp cost?"))
