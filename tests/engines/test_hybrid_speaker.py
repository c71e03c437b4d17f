"""The hybrid engine's named-speaker prior: in a conversation between people, a
question naming some of them is about them (``speaker_prior``, shared with SYNAPSE
through ``remem.speakers``), through the public API."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from remem import InvalidInputError
from remem.question import read_question
from remem.speakers import ASSISTANT, NOBODY, PERSON, people_only
from speaker_cases import BORROWED, CHARITY_RACE

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
#: the engine's ranking alone: no newer-version reordering, no identifier lift
PLAIN = {"time_options": {"updates": False}, "exact_options": {"lift": False}}
OFF = {"speaker_prior": 1.0}


def _turns(turns: list[tuple[str, str]], session: str = "s1") -> list[dict]:
    return [
        {
            "text": text,
            "speaker": speaker,
            "session_id": session,
            "timestamp": T0 + timedelta(seconds=30 * i),
        }
        for i, (speaker, text) in enumerate(turns)
    ]


def _sneakers(other: str = "Ben") -> list[dict]:
    """Ana states a fact in passing; the other speaker restates the topic at length
    (and outranks the fact without the prior)."""
    return _turns(
        [
            (
                "Ana",
                "Any tips for cleaning suede? By the way, my old sneakers live on a "
                "shoe rack in the garage now.",
            ),
            (
                other,
                "Where you keep old sneakers matters as much as cleaning them. Keep old "
                "sneakers away from heat, keep suede sneakers in a cool dry place, and "
                "brush them gently with a suede eraser. Old sneakers you keep this way "
                "last for years.",
            ),
        ]
    )


def _pair(open_memory, turns: list[dict], **on: object):
    """The hybrid engine with the prior (default, or ``on``) and without it."""
    mems = (
        open_memory(":memory:", "hybrid", engine_options=dict(on), **PLAIN),
        open_memory(":memory:", "hybrid", engine_options=OFF, **PLAIN),
    )
    for mem in mems:
        mem.add_many(turns, user_id="u")
    return mems


def test_a_question_naming_one_person_is_answered_by_their_own_words(open_memory):
    on, off = _pair(open_memory, _sneakers())
    question = "Where does Ana keep her old sneakers?"
    assert off.search(question, user_id="u", k=1)[0].text.startswith("Where you keep")
    recall = on.recall(question, user_id="u", k=2, explain=True)
    assert "shoe rack" in recall.hits[0].text
    assert "weighed 0.6" in recall.explanations[recall.hits[1].id]


def test_the_speakers_names_leave_the_lexical_query(open_memory):
    """A speaker's name matched every turn of theirs, the shortest best: without
    it, the turn sharing the question's words comes first."""
    chat = [("Ana", "Hi Ben!"), ("Ana", "Ana here."), ("Ana", "Ok, see you")]
    chat += [("Ana", "Tobias taught me to drive, he is my driving instructor.")]
    chat += [("Ben", "Good morning, the weekend was long.")]
    on = open_memory(":memory:", "hybrid", engine_options={"speaker_prior": 0.99}, **PLAIN)
    on.add_many(_turns(chat), user_id="u")
    engine = on._engine
    with engine.ctx.indexes.use("u") as idx:
        words, weights = engine._prior(idx, "Who is Ana's driving instructor?")
    assert words.split() == ["Who", "is", "driving", "instructor?"]
    assert weights is not None and weights.tolist() == [1.0] * 4 + [0.99]


def test_a_history_with_an_assistant_is_unchanged(open_memory):
    """Hybrid weighs no assistant reply: a person and an assistant are ranked as
    without the prior, and no second ranking is made."""
    on, off = _pair(open_memory, _sneakers(other="assistant"))
    question = "Where does Ana keep her old sneakers?"
    texts = [[h.text for h in m.search(question, user_id="u", k=2)] for m in (on, off)]
    assert texts[0] == texts[1]
    vec = on._embedder.embed_one(question)
    assert on._engine.candidates("u", read_question(question, None), vec, 2, 2).unweighted is None


def _borrowed() -> list[dict]:
    """Ben ran the charity race and says what he realised after it, Ana only
    cheered: "What did Ana realize after her charity race?" borrows Ben's words
    (LoCoMo's category 5), and the prior weighs his turn down below hers."""
    return _turns(CHARITY_RACE)


def test_the_verdict_reads_the_ranking_without_the_prior(open_memory):
    """The "not in memory" verdict was fitted on rankings without the prior: it
    reads the search without it (``Found.unweighted``), while the hits are the
    weighed ranking's; the confidence is the top score, as for a plain search."""
    on, off = _pair(open_memory, _borrowed())
    weighed, plain = (m.recall(BORROWED, user_id="u", k=2) for m in (on, off))
    # the control: without the prior Ben's turn is in the top 2, with it it is not
    assert any("realized" in h.text for h in plain.hits)
    assert all(h.speaker == "Ana" for h in weighed.hits)
    assert weighed.details["verdict"] == plain.details["verdict"]
    assert weighed.confidence == pytest.approx(on.search(BORROWED, user_id="u", k=1)[0].score)


def test_a_search_the_prior_does_not_change_is_not_run_twice(open_memory):
    on, _ = _pair(open_memory, _borrowed())
    engine = on._engine
    vec = on._embedder.embed_one("What did they bake?")
    assert (
        engine.candidates("u", read_question("What did they bake?", None), vec, 2, 2).unweighted
        is None
    )
    named = read_question(BORROWED, None)
    assert engine.candidates("u", named, vec, 2, 2).unweighted is not None


@pytest.mark.parametrize("bad", [-0.1, 1.5])
def test_a_bad_speaker_prior_is_refused(open_memory, bad):
    with pytest.raises(InvalidInputError):
        open_memory(":memory:", "hybrid", engine_options={"speaker_prior": bad})


def test_people_only():
    people = np.array([PERSON, NOBODY, PERSON], dtype=np.int8)
    assert people_only(people, {"Ana": 0, "Ben": 1})
    assert not people_only(people, {})
    assert not people_only(np.array([PERSON, ASSISTANT], dtype=np.int8), {"Ana": 0, "assistant": 1})
