"""Counts, sums and gifts told in other words (stop 72, from blind sets 79-85):
"twelve washers" counts washing machines, as WordNet names them; "I paid £750 each"
is a sum though the tagger labels no money there; "presented me with a tankard"
tells what was given.

Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import nlp
from remem.answer.spans import _entities, _played
from remem.answer.want import wanted
from remem.question import as_question

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2025, 9, 15, 18, tzinfo=timezone.utc)

#: (day offset, speaker, text)
TALK = [
    (0, "user", "Well, I did it. I own a laundry now, and I spent the weekend staring at "
                "washing machines."),
    (0, "assistant", "Congratulations! How are you feeling?"),
    (0, "user", "Honest answer: tired. There are twelve washers and five dryers. Of the "
                "washers, nine work reliably and three are dead."),
    (20, "user", "Rab came through. A laundry in Dunbar was closing, and they had three "
                 "big dryers only six years old. I paid £750 each, which is nothing."),
    (20, "user", "For now I've kept the old prices: £5 for a small wash and £11 for a "
                 "service wash."),
]  # fmt: skip

NOW = T0 + timedelta(days=40)


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "ct", TALK, T0)
    yield mem
    mem.close()


def _ask(mem, question: str) -> str:
    return mem.answer(question, "ct", now=NOW).text


def test_a_count_of_a_thing_by_another_name(talk):
    assert _ask(talk, "How many washing machines are there in my laundry?") == "twelve"


def test_a_sum_after_its_sign_the_tagger_left(talk):
    assert "750" in _ask(talk, "How much did I pay for each of the second-hand dryers?")
    text = (
        "A launderette in Kirkcaldy was closing down, and they had three big dryers only "
        "six years old. I paid £900 each, which is nothing, and Rab and his nephew "
        "brought them over the Forth Road Bridge in a borrowed van."
    )
    sent = list(nlp.parse(text).sents)[1]
    asked = as_question("How much did I pay for each dryer?")
    sums = [span.text for span, _ in _entities(sent, wanted(asked), asked)]
    assert sums == ["£900"]


def test_what_is_given_with_another_verb_of_giving():
    """ "Gordon presented me with a pewter tankard engraved with the date": what follows
    "with" is what was given (``spans._played``), the thing, not what is said of it."""
    sent = next(
        iter(nlp.parse("Gordon presented me with a pewter tankard engraved with the date.").sents)
    )
    asked = as_question("What was I given to mark my first quarter peal?")
    played = [span.text for span, _ in _played(sent, wanted(asked), asked)]
    assert "a pewter tankard" in played
