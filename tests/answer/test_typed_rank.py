"""A place in a ranking (stop 72, from blind sets 79-85): "Where did our band
finish in the contest?" and "What position did I finish in?" ask an ordinal
("third", "2nd", "runners-up"), not a place; memory that never gave one refuses,
and an ordinal that ranks nothing ("my first marathon", "weigh it first") is none.

Real spaCy pipeline, real Memory."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from answer_cases import remembered
from remem.answer import nlp
from remem.answer.want import wanted
from remem.question import as_question

pytestmark = pytest.mark.skipif(not nlp.available(), reason="spaCy's English pipeline missing")

T0 = datetime(2026, 5, 4, 18, tzinfo=timezone.utc)

#: (day offset, speaker, text)
TALK = [
    (0, "user", "The quiz league final was at the Red Lion in Kettering. We came third "
                "out of fourteen teams, which for a pub side is brilliant."),
    (6, "user", "Ran my first half marathon on Sunday in Corby. Weigh yourself first, "
                "the coach said, so I did: 71 kilos."),
]  # fmt: skip

NOW = T0 + timedelta(days=20)


@pytest.fixture(scope="module")
def talk(embedder):
    mem = remembered(embedder, "synapse", "rk", TALK, T0)
    yield mem
    mem.close()


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("Where did our band finish in the striking contest?", "rank"),
        ("What position did I finish in at the marathon?", "rank"),
        ("What place did my pumpkin finish in at the show?", "rank"),
        ("Where did we come in the pub quiz?", "rank"),
        ("What position does Otto usually play?", "thing"),
        ("Where did I finish my degree?", "place"),
    ],
)
def test_a_rank_is_asked_by_where_or_position_and_finishing(question, kind):
    assert wanted(as_question(question)).kind == kind


def test_the_ordinal_that_ranks_answers(talk):
    assert _ask(talk, "Where did our team finish in the quiz league final?") == "third"


def test_no_rank_given_refuses(talk):
    answer = talk.answer("What position did I finish in at the half marathon?", "rk", now=NOW)
    assert answer.refused


def _ask(mem, question: str) -> str:
    return mem.answer(question, "rk", now=NOW).text
