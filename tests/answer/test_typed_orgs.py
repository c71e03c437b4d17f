"""An organisation asked by its kind (stop 73, from blind sets 86-92).

- A name given with "called" to a noun of the family of the question's word: "a
  caterer from Sunita's list called Brackley Larder" of "Which catering company...?",
  whatever the tagger labels it.

Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import nlp

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 5, 4, 10, tzinfo=timezone.utc)

TALK = [
    (0, "user", "The anniversary party is booked for the church hall, 120 guests."),
    (0, "assistant", "Have you sorted the food yet?"),
    (0, "user", "We have. We went with a caterer from Sunita's list called Brackley "
                "Larder. It's a husband and wife outfit based in Olney."),
    (6, "user", "Sunita Rao is doing the flowers and the seating plan."),
]  # fmt: skip


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "og", TALK, T0)
    yield mem
    mem.close()


def test_a_name_called_to_a_noun_of_the_question_s_family(talk):
    answer = talk.answer(
        "Which catering company did the food for the party?", "og", now=T0 + timedelta(days=20)
    ).text
    assert "Brackley Larder" in answer


def test_called_to_a_noun_of_the_family_of_the_question_s_word():
    from remem.answer.spans import _called_kin

    doc = nlp.parse("We went with a caterer from Priya's list called Hatherley Kitchen.")
    name = doc[10:12]
    assert name.text == "Hatherley Kitchen"
    assert _called_kin(name, frozenset({"cater", "company"}))
    assert not _called_kin(name, frozenset({"insur", "company"}))
