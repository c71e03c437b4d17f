"""Readers on a hand-written fact set (tests/fixtures/fact_set.json, written for
remem): ten plain facts of one's own, ten questions about them and five about things
never said, through ``Memory.answer`` (engine and answer options at their defaults),
as a new user would ask. Issue 19's floors: at least 9 of 10 right; at most 1 of 5
invented.

Measured (docs/notes/benchmark-history.md#a-hand-written-fact-set): the default
reader (``auto``: ``routed`` with the bundled model), ``extract`` and ``span`` get
10 of 10 right and invent 1 of 5. The verdict refuses the three questions nothing in
memory speaks to, and "What is my favourite film?": the film it takes for granted is
named by no memory and comes near none in meaning (the premise check of
``remem.answer.verdict.premises``).
"How old is my cat?" is answered from the dog's age: the cats are in memory, their
age is not, and no signal at hand tells that from "What breed is my dog?" answered
by "greyhound"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remem import Memory
from remem.llm import local_available

FIXTURE = json.loads(
    (Path(__file__).resolve().parents[1] / "fixtures" / "fact_set.json").read_text("utf-8")
)
_LOCAL = pytest.mark.skipif(not local_available(), reason="the local model is not installed")
READERS = [
    pytest.param(("none", "extract"), id="none@extract"),
    pytest.param(("local", "auto"), id="local (the default)", marks=_LOCAL),
    pytest.param(("local", "span"), id="local@span", marks=_LOCAL),
]


@pytest.fixture(scope="module", params=READERS)
def mem(request, embedder):
    llm, mode = request.param
    with Memory(":memory:", embedder=embedder, llm=llm, answer_options={"mode": mode}) as m:
        for ts, text in FIXTURE["facts"]:
            m.add(text, "me", speaker=FIXTURE["speaker"], timestamp=ts)
        yield m


def test_questions_about_said_facts_are_answered(mem):
    right = []
    for question, accepted in FIXTURE["questions"]:
        a = mem.answer(question, "me")
        ok = not a.refused and any(w.lower() in a.text.lower() for w in accepted)
        right.append((ok, question, a.text))
    assert sum(ok for ok, _, _ in right) >= 9, right


def test_never_said_questions(mem):
    invented = [
        (q, a.text) for q in FIXTURE["never_said"] if not (a := mem.answer(q, "me")).refused
    ]
    assert len(invented) <= 1, invented  # issue 19's floor


def test_another_user_gets_nothing_from_these_facts(mem):
    for question, _ in FIXTURE["questions"]:
        a = mem.answer(question, "someone-else")
        assert a.refused is True and a.evidence == []
