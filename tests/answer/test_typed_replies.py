"""The typed reader on the shapes a fresh check set found (stop 58): a name given in
a reply to a question the evidence does not hold, a name after a title or before
"She", a price beside a share of a unit, a reply that is only the answer, a colour in
two words and the newest one, an ensemble's name, a name given to another kind of
organisation, "What is X called?" and "Which evening of the week...?". Real spaCy
pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import naming, nlp, typed
from remem.answer.candidate import Span
from remem.answer.rank import HAND_ONLY, weights
from remem.answer.spans import _priced, phrases
from remem.answer.typed import _follow_up
from remem.answer.want import wanted
from remem.question import as_question

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2025, 9, 6, 9, 0, tzinfo=timezone.utc)

#: (day offset, speaker, text): two friends, Oona and Bram, over a few weeks
OONA = [
    (0, "Oona", "I've started a bookbinding night class at Ravensworth College."),
    (0, "Bram", "Fancy! Remind me who's teaching it? You did say."),
    (0, "Oona", "Wilhelmina Strand. She's fussy about glue but very kind."),
    (0, "Bram", "And the dog? Was rehoming him expensive?"),
    (0, "Oona", "£60, which covered his vaccinations. He's put on half a kilo since."),
    (12, "Bram", "My knee surgery finally happened on Tuesday."),
    (12, "Oona", "Oh no! Who did the operation in the end?"),
    (12, "Bram", "We only met him the day before: Mr Tobias Quenby. He was very calm."),
    (12, "Oona", "I painted the spare room a pale yellow at the weekend."),
    (20, "Oona", "Change of plan on the room: I went with a dusty teal instead."),
    (20, "Bram", "My cousin used a local firm called Hartley Sons for her roof."),
    (20, "Oona", "I joined the Lantern Lane Singers last month, we rehearse in a church."),
]  # fmt: skip

#: a user and an assistant
PIA = [
    (0, "user", "My friend Saoirse and I have booked a week away in October."),
    (0, "assistant", "Lovely! Where are you off to?"),
    (0, "user", "Tallinn. Saoirse went to Riga last year and loved the Baltic."),
    (3, "user", "I spent a small fortune at the craft fair today, all of it on my new loom."),
    (3, "assistant", "Amazing. What did you get for it?"),
    (3, "user", "A bag of merino yarn and a shuttle."),
]  # fmt: skip

NOW = T0 + timedelta(days=30)


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # the reply to "Remind me who's teaching it?", outside the evidence or not
        ("What's the name of Oona's bookbinding teacher?", "Wilhelmina Strand"),
        # "£60" answers "Was rehoming him expensive?"; "half a kilo" is no price
        ("How much was the rehoming fee for Oona's dog?", "60"),
        # a name after a title, which the tagger may call an organisation
        ("What is the name of the surgeon who operated on Bram's knee?", "Tobias Quenby"),
        # the newest colour, in two words
        ("What colour did Oona's spare room end up?", "dusty teal"),
        # an ensemble is named; a firm called something is no choir
        ("Which choir did Oona join?", "Lantern Lane Singers"),
    ],
)
def test_replies_titles_prices_colours_and_ensembles(embedder, engine, question, answer):
    with remembered(embedder, engine, "oona", OONA, T0) as mem:
        a = mem.answer(question, "oona", now=NOW)
        assert answer in a.text, a.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
@pytest.mark.parametrize(
    ("question", "answer"),
    [
        # the reply that is only the place, to a question asked alike; not where
        # Saoirse went last year
        ("Where am I going with Saoirse in October?", "Tallinn"),
    ],
)
def test_a_reply_answers_what_was_told_before_it(embedder, engine, question, answer):
    with remembered(embedder, engine, "pia", PIA, T0) as mem:
        a = mem.answer(question, "pia", now=T0 + timedelta(days=4))
        assert answer in a.text, a.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_follow_up_by_a_light_verb_passes_on_what_was_told(embedder, engine, monkeypatch):
    """ "What did you get for it?" asks of what was told before it: its reply is read
    with what the told turn shares with the question (it may still rank below a
    phrase of the told turn itself: "small fortune")."""
    seen: list[list[Span]] = []
    real = typed.typed_candidates

    def spy(*args, **kwargs):
        found = real(*args, **kwargs)
        seen.append(found or [])
        return found

    monkeypatch.setattr(typed, "typed_candidates", spy)
    with remembered(embedder, engine, "pia", PIA, T0) as mem:
        mem.answer(
            "What did I buy at the craft fair for my new loom?", "pia", now=T0 + timedelta(days=4)
        )
    yarn = [s for s in seen[-1] if s.text == "merino yarn"]
    assert yarn and yarn[0].features["inherited"] >= 1.0


def _phrases(text: str, question: str) -> set[str]:
    """The candidate phrases of every sentence of ``text``."""
    asked = as_question(question)
    want = wanted(asked)
    return {s.text for sent in nlp.parse(text).sents for s, _ in phrases(sent, want, [], asked)}


def test_a_name_after_a_title_or_before_she_is_someone():
    found = _phrases("We met him on Monday: Mr Tobias Quenby.", "Who operated on Bram?")
    assert "Tobias Quenby" in found
    found = _phrases("Wilhelmina Strand. She's fussy about glue.", "Who teaches Oona?")
    assert "Wilhelmina Strand" in found


def test_a_share_of_a_unit_is_no_price():
    doc = nlp.parse("He's put on half a kilo since, and the fee was £60.")
    half = next(e for e in doc.ents if e.text == "half")
    sixty = next(e for e in doc.ents if "60" in e.text)
    assert not _priced(half) and _priced(sixty)


def test_an_owner_s_name_joins_an_organisation_s():
    found = _phrases("I left St Brigid's Community Choir in May.", "Which choir did I leave?")
    assert "St Brigid's Community Choir" in found
    assert not _phrases("I saw Priya's Zagreb photos.", "Which choir did I leave?") & {
        "Priya's Zagreb"
    }


def test_a_name_given_to_another_kind_of_organisation():
    doc = nlp.parse("My cousin used a local firm called Hartley Sons for her roof.")
    span = next(s for s in doc.ents if "Hartley" in s.text)
    assert naming.named_other_kind(span, "choir")
    assert not naming.named_other_kind(span, "firm")


@pytest.mark.parametrize(
    ("question", "kind", "head"),
    [
        ("What's my new manager called?", "person", "name"),
        ("What did Bram call his landlord?", "person", "name"),
        ("What is my cat called?", "thing", ""),  # a pet's name is read as a thing's
        ("What is Rhys's jam called?", "thing", ""),
        ("Which evening of the week was the class on after the move?", "weekday", "evening"),
        ("Which choir did Oona join?", "org", "choir"),
    ],
)
def test_what_is_asked(question, kind, head):
    want = wanted(as_question(question))
    assert (want.kind, want.head) == (kind, head)


def test_a_follow_up_names_nothing_of_its_own():
    assert _follow_up("Amazing. What did you get for it?")
    assert _follow_up("Lovely! Where are you off to?")
    assert not _follow_up("How did your speech go?")  # it asks of the speech


def test_the_bare_reply_weight_is_set_by_hand():
    assert weights()["bare"] == HAND_ONLY["bare"] > 0
