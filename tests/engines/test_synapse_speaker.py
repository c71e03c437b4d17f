"""SYNAPSE's speaker prior: in a history of a person and an assistant, the person's
own words answer questions about their life, the assistant's answer questions about
what it said (``speaker_prior``, ``remem.speakers``), through the public API."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from remem import InvalidInputError
from remem.speakers import (
    ASSISTANT,
    NOBODY,
    PERSON,
    asks_assistant,
    asks_reminder,
    named_weights,
    party,
    speaker_weights,
    without_speakers,
)
from speaker_cases import BORROWED, CHARITY_RACE

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)


def _round(session: str, day: int, turns: list[tuple[str, str]]) -> list[dict]:
    start = T0 + timedelta(days=day)
    return [
        {
            "text": text,
            "speaker": speaker,
            "session_id": session,
            "timestamp": start + timedelta(seconds=30 * i),
        }
        for i, (speaker, text) in enumerate(turns)
    ]


def _history(user: str = "user", assistant: str = "assistant") -> list[dict]:
    """The person states a fact in passing; the assistant's reply restates the topic
    at length (and outranks the fact without the prior); a later session has the
    assistant recommend a trail."""
    return _round(
        "sneakers",
        0,
        [
            (
                user,
                "Any tips for cleaning suede? By the way, my old sneakers live on a "
                "shoe rack in the garage now.",
            ),
            (
                assistant,
                "Where you keep old sneakers matters as much as cleaning them. Keep old "
                "sneakers away from heat, keep suede sneakers in a cool dry place, and "
                "brush them gently with a suede eraser. Old sneakers you keep this way "
                "last for years.",
            ),
        ],
    ) + _round(
        "hiking",
        5,
        [
            (user, "I want a hike near Zaragoza this weekend, something with views."),
            (
                assistant,
                "Try the Moncayo loop: the trail climbs through beech woods to the "
                "summit and the views over the valley are superb.",
            ),
        ],
    )


ABOUT_PERSON = "Where do I keep my old sneakers?"
ABOUT_ASSISTANT = "What was the hiking trail you recommended near Zaragoza?"
#: the engine's ranking alone: no newer-version reordering, no identifier lift (the
#: question's rare "Zaragoza" would put the person's turn that names it first)
PLAIN = {"time_options": {"updates": False}, "exact_options": {"lift": False}}


def _first(mem, question: str, user: str = "u") -> str:
    return mem.search(question, user_id=user, k=4)[0].text


def test_a_question_about_the_person_is_answered_by_their_own_words(open_memory):
    on = open_memory(":memory:", "synapse", engine_options={"graph": False}, **PLAIN)
    off = open_memory(
        ":memory:", "synapse", engine_options={"graph": False, "speaker_prior": 1.0}, **PLAIN
    )
    for mem in (on, off):
        mem.add_many(_history(), user_id="u")
    # the control: without the prior the assistant's long restatement comes first
    assert _first(off, ABOUT_PERSON).startswith("Where you keep")
    assert "shoe rack" in _first(on, ABOUT_PERSON)


def test_a_question_about_what_the_assistant_said_keeps_its_reply_first(open_memory):
    mem = open_memory(":memory:", "synapse", **PLAIN)
    mem.add_many(_history(), user_id="u")
    assert _first(mem, ABOUT_ASSISTANT).startswith("Try the Moncayo loop")


def test_the_assistant_is_recognised_by_the_names_data_sets_use(open_memory):
    mem = open_memory(":memory:", "synapse", engine_options={"graph": False}, **PLAIN)
    mem.add_many(_history(user="Emily", assistant="AI"), user_id="u")
    assert "shoe rack" in _first(mem, ABOUT_PERSON)


def test_two_people_are_not_told_apart(open_memory):
    """Speakers that are people's names (LoCoMo): no assistant, no prior; the ranking
    is the one with the prior off."""
    on = open_memory(":memory:", "synapse", **PLAIN)
    off = open_memory(":memory:", "synapse", engine_options={"speaker_prior": 1.0}, **PLAIN)
    for mem in (on, off):
        mem.add_many(_history(user="Ana", assistant="Ben"), user_id="u")
    for question in (ABOUT_PERSON, ABOUT_ASSISTANT):
        ranked = [[(h.text, h.score) for h in m.search(question, user_id="u")] for m in (on, off)]
        assert ranked[0] == ranked[1]


def test_another_users_assistant_turns_change_nothing(open_memory):
    """Whether a history has an assistant is read per user."""
    mem = open_memory(":memory:", "synapse", **PLAIN)
    mem.add_many(_history(user="Ana", assistant="Ben"), user_id="u")
    before = [(h.id, h.score) for h in mem.search(ABOUT_PERSON, user_id="u")]
    mem.add_many(_history(), user_id="v")
    assert [(h.id, h.score) for h in mem.search(ABOUT_PERSON, user_id="u")] == before


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Can you remind me of the restaurant in Rome you recommended?", True),
        ("What painters did you recommend to me?", True),
        ("You once recommended a world history game to me. What was it?", True),
        ("What methods have you told me about for relieving stress?", True),
        ("How many eggs did you say we need?", True),
        ("Can you suggest a hotel for my trip to Miami?", False),
        ("Do you think it might be my living room?", False),
        ("Could you remind me where I keep my sneakers?", False),
        ("Do you need my address?", False),
        ("Where did I move last year?", False),
    ],
)
def test_asks_assistant(question, expected):
    assert asks_assistant(question) is expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Can you remind me of the name of that online store based in India?", True),
        ("I'm going back to our previous chat. Can you remind me how many mummies we face?", True),
        ("I was wondering if you could remind me of the brand that uses wild rubber?", True),
        ("Could you remind me where I keep my sneakers?", False),
        ("Remind me what my sister's name is.", False),
        ("Where do I keep my old sneakers?", False),
        ("Can you suggest a hotel for my trip to Miami?", False),
    ],
)
def test_asks_reminder(question, expected):
    assert asks_reminder(question) is expected


def test_a_reminder_weighs_neither_party(open_memory):
    """A request to be reminded ("Can you remind me of ...") says nothing of who said
    it (the assistant's list, the person's own words): the ranking is the one without
    the prior; a reminder of the person's own doings is about their life, and their
    words still come first."""
    reminder = "Can you remind me of the name of the suede cleaning tool?"
    parties = np.array([PERSON, ASSISTANT], dtype=np.int8)
    assert speaker_weights(parties, reminder, 0.6) is None
    on = open_memory(":memory:", "synapse", **PLAIN)
    off = open_memory(":memory:", "synapse", engine_options={"speaker_prior": 1.0}, **PLAIN)
    for mem in (on, off):
        mem.add_many(_history(), user_id="u")
    ranked = [[(h.text, h.score) for h in m.search(reminder, user_id="u")] for m in (on, off)]
    assert ranked[0] == ranked[1]
    assert "shoe rack" in _first(on, "Could you remind me where I keep my old sneakers?")


def test_party_and_weights():
    assert [party(s) for s in (None, "", "Ana", "user", "Assistant", " AI ", "bot")] == [
        NOBODY,
        NOBODY,
        PERSON,
        PERSON,
        ASSISTANT,
        ASSISTANT,
        ASSISTANT,
    ]
    parties = np.array([PERSON, ASSISTANT, NOBODY], dtype=np.int8)
    assert speaker_weights(parties, ABOUT_PERSON, 0.5).tolist() == [1.0, 0.5, 1.0]
    assert speaker_weights(parties, ABOUT_ASSISTANT, 0.5).tolist() == [0.5, 1.0, 1.0]
    assert speaker_weights(parties, ABOUT_PERSON, 1.0) is None
    assert speaker_weights(np.array([PERSON, NOBODY]), ABOUT_PERSON, 0.5) is None


@pytest.mark.parametrize("bad", [-0.1, 1.5, "high", None])
def test_a_bad_speaker_prior_is_refused(open_memory, bad):
    with pytest.raises(InvalidInputError, match="speaker_prior"):
        open_memory(":memory:", "synapse", engine_options={"speaker_prior": bad})


def test_the_explanation_says_which_hits_the_prior_weighed(open_memory):
    mem = open_memory(":memory:", "synapse", **PLAIN)
    mem.add_many(_history(), user_id="u")
    rec = mem.recall(ABOUT_PERSON, user_id="u", k=4, explain=True)
    for hit in rec.hits:
        weighed = "speaker prior" in rec.explanations[hit.id]
        assert weighed is (hit.speaker == "assistant"), rec.explanations[hit.id]


def test_named_weights():
    """A conversation between people: a question naming some of them weighs what the
    others said, but not the questions they put (a question leads to its answer);
    naming none or all of them changes nothing."""
    codes = np.array([0, 1, 0, -1, 0])
    speakers = (codes, np.array([False, False, False, False, True]))
    names = {"Melanie": 0, "Caroline Smith": 1}
    caroline = named_weights(speakers, names, "What did Caroline's dog eat?", 0.6)
    assert caroline is not None and caroline.tolist() == [0.6, 1.0, 0.6, 1.0, 1.0]
    melanie = named_weights(speakers, names, "what does melanie paint?", 0.6)
    assert melanie is not None and melanie.tolist() == [1.0, 0.6, 1.0, 1.0, 1.0]
    assert named_weights(speakers, names, "What did they cook?", 0.6) is None
    assert named_weights(speakers, names, "Did Melanie meet Caroline?", 0.6) is None
    parties = np.array([PERSON, PERSON, PERSON, NOBODY, PERSON], dtype=np.int8)
    question = "Where does Melanie keep her sneakers?"
    assert speaker_weights(parties, question, 0.6, speakers, names) is not None
    assert speaker_weights(parties, question, 1.0, speakers, names) is None


def test_a_question_naming_one_person_is_answered_by_their_own_words(open_memory):
    """Between two people, the one the question names said what answers it; the
    other's long restatement of the topic outranks it without the prior."""
    on = open_memory(":memory:", "synapse", engine_options={"graph": False}, **PLAIN)
    off = open_memory(
        ":memory:", "synapse", engine_options={"graph": False, "speaker_prior": 1.0}, **PLAIN
    )
    for mem in (on, off):
        mem.add_many(_history(user="Ana", assistant="Ben"), user_id="u")
    question = "Where does Ana keep her old sneakers?"
    assert _first(off, question).startswith("Where you keep")
    assert "shoe rack" in _first(on, question)


def test_without_speakers():
    """The lexical channel leaves out the speakers' first names (possessive too, any
    case), not words that only begin with one."""
    names = {"Caroline Smith": 0, "Mel": 1}
    question = "What did Caroline's dog and caroline’s cat do in Carolineville, Mel?"
    assert without_speakers(question, names).split() == (
        ["What", "did", "dog", "and", "cat", "do", "in", "Carolineville,", "?"]
    )


def _borrowed() -> list[dict]:
    """Two people; Ben ran the charity race and says what he realised after it, Ana
    only cheered: "What did Ana realize after her charity race?" borrows Ben's words
    (LoCoMo's category 5), and the prior weighs his turn down below hers."""
    return _round(
        "race",
        0,
        CHARITY_RACE,
    )


def test_the_verdict_reads_the_ranking_without_the_prior(open_memory):
    """The "not in memory" verdict was fitted on rankings without the speaker prior:
    it reads the search without it (``Found.unweighted``), so the other person's turn
    a never-said question borrows stays in what it reads, while the hits are the
    weighed ranking's."""
    # without the neighbour context, which lifts Ana's muffins next to Ben's turn
    # above it in five turns of one session and would blur the control
    still = {"neighbour_context": 0.0}
    on = open_memory(":memory:", "synapse", engine_options=still, **PLAIN)
    off = open_memory(
        ":memory:", "synapse", engine_options={**still, "speaker_prior": 1.0}, **PLAIN
    )
    for mem in (on, off):
        mem.add_many(_borrowed(), user_id="u")
    weighed, plain = (m.recall(BORROWED, user_id="u", k=2) for m in (on, off))
    # the control: the prior moves Ben's turn out of the top 2, which it leads without
    assert "realized" in plain.hits[0].text
    assert all(h.speaker == "Ana" for h in weighed.hits)
    assert weighed.details["verdict"] == plain.details["verdict"]
    assert weighed.details["verdict"]["other"] > weighed.details["verdict"]["own"]


def test_a_search_the_prior_does_not_change_is_not_run_twice(open_memory):
    """A question naming no speaker: the prior changes nothing, and the engine
    hands no second ranking (``unweighted`` None)."""
    from remem.question import read_question

    mem = open_memory(":memory:", "synapse", **PLAIN)
    mem.add_many(_borrowed(), user_id="u")
    engine = mem._engine
    vec = mem._embedder.embed_one("What did they bake?")
    question = read_question("What did they bake?", None)
    assert engine.candidates("u", question, vec, 2, 2).unweighted is None
    named = read_question(BORROWED, None)
    assert engine.candidates("u", named, vec, 2, 2).unweighted is not None
