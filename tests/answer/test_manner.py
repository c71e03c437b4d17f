"""A question of how something went is answered by what is said after the event is
named (``remem.answer.manner``). Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from answer_cases import asked
from remem.answer import nlp
from remem.answer.manner import asks_manner
from remem.question import as_question

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2023, 5, 2, 9, 0, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("question", "manner"),
    [
        ("How did John overcome his ankle injury?", True),
        ("How does Jolene feel when spending time with Seraphim?", True),
        ("How many races did John run?", False),
        ("How long was the honeymoon?", False),
        ("Why did John stop playing?", False),
        ("When did John hurt his ankle?", False),
    ],
)
def test_a_question_of_manner(question, manner):
    assert asks_manner(as_question(question)) is manner


def _answer(embedder, engine, talk, question):
    return asked(embedder, engine, "u", talk, question, T0, 3)


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_the_sentence_after_the_event_tells_how(embedder, engine):
    talk = [
        (0, "John", "Last season, I had a major challenge when I hurt my ankle. I stayed "
         "focused on recovery and worked hard to strengthen my body."),
        (0, "Maria", "That's inspiring, John! I've been volunteering at the shelter."),
    ]  # fmt: skip
    a = _answer(embedder, engine, talk, "How did John overcome his ankle injury?")
    assert "stayed focused on recovery" in a.text, a.text
    assert "hurt my ankle" in a.text, a.text


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_a_reply_tells_how_when_the_sentence_asks(embedder, engine):
    talk = [
        (0, "Caroline", "The kids look so cute! How did they handle the accident?"),
        (0, "Melanie", "Thanks! They were scared but we reassured them and explained "
         "their brother would be OK."),
    ]  # fmt: skip
    a = _answer(embedder, engine, talk, "How did Melanie's kids handle the accident?")
    assert a.text.startswith("They were scared"), a.text
    assert a.source_id in {h.id for h in a.evidence}
