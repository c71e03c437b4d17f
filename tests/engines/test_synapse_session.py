"""SYNAPSE's session support: a turn inherits the evidence its session holds for the
query (``session_support``), per user, through the public API."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from remem import InvalidInputError

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
ECHO = "He loves long walks along the river before breakfast."


def _items(session: str, texts: list[str], day: int) -> list[dict]:
    start = T0 + timedelta(days=day)
    return [
        {"text": t, "session_id": session, "timestamp": start + timedelta(seconds=30 * i)}
        for i, t in enumerate(texts)
    ]


def _history() -> list[dict]:
    """The same plain sentence in two sessions: one about the dog, one about a
    colleague. The copy in the colleague's session comes first, so without session
    support a tie goes its way."""
    other = _items(
        "work",
        [
            "My new colleague Tom started on the data team this week.",
            ECHO,
            "We are planning the quarterly report together.",
        ],
        0,
    )
    dog = _items(
        "dog",
        [
            "I adopted a retired racing greyhound named Biscuit last spring.",
            ECHO,
            "The vet says Biscuit is healthy but a little underweight.",
        ],
        20,
    )
    return other + dog


QUESTION = "What does my greyhound Biscuit love doing?"
#: identical texts are versions of one fact to the newest-first rule (``arrange``),
#: which would order the two copies by date; these tests look at the engine's order
PLAIN = {"time_options": {"updates": False}}


def _rank_of_echoes(mem, user: str = "u") -> tuple[int, int]:
    hits = mem.search(QUESTION, user_id=user, k=6)
    echoes = [h for h in hits if h.text == ECHO]
    assert len(echoes) == 2
    by_session = {h.session_id: hits.index(h) for h in echoes}
    return by_session["dog"], by_session["work"]


@pytest.mark.parametrize("graph", [True, False])
def test_the_turn_in_the_session_about_the_question_ranks_first(open_memory, graph):
    mem = open_memory(":memory:", "synapse", engine_options={"graph": graph}, **PLAIN)
    mem.add_many(_history(), user_id="u")
    dog, work = _rank_of_echoes(mem)
    assert dog < work


def test_without_session_support_the_two_copies_are_not_told_apart(open_memory):
    """The control: the same history with ``session_support=0``, no neighbour context
    (which would lift the dog's copy by its neighbours about Biscuit) and no graph
    ranks the two copies by position alone, the colleague's first."""
    options = {"graph": False, "session_support": 0.0, "neighbour_context": 0.0}
    mem = open_memory(":memory:", "synapse", engine_options=options, **PLAIN)
    mem.add_many(_history(), user_id="u")
    dog, work = _rank_of_echoes(mem)
    assert work < dog


def test_memories_without_a_session_keep_their_order(open_memory):
    """No session id: each memory is its own context, so support scales every score
    alike and the ranking is the one without it."""
    plain = [{k: v for k, v in item.items() if k != "session_id"} for item in _history()]
    on = open_memory(":memory:", "synapse", **PLAIN)
    off = open_memory(":memory:", "synapse", engine_options={"session_support": 0.0}, **PLAIN)
    for mem in (on, off):
        mem.add_many(plain, user_id="u")
    assert [h.id for h in on.search(QUESTION, user_id="u", k=6)] != []
    assert [h.text for h in on.search(QUESTION, user_id="u", k=6)] == [
        h.text for h in off.search(QUESTION, user_id="u", k=6)
    ]


def test_another_users_session_of_the_same_name_lends_nothing(open_memory):
    """Session ids are per user: another user's session called "work" that holds the
    question's best match does not lift this user's "work" turns, nor show up."""
    mem = open_memory(":memory:", "synapse", engine_options={"graph": False}, **PLAIN)
    mem.add_many(_history(), user_id="u")
    before = [(h.id, h.score) for h in mem.search(QUESTION, user_id="u", k=6)]
    mem.add_many(
        _items("work", ["My greyhound Biscuit loves chasing the ball in the park."], 40),
        user_id="v",
    )
    after = mem.search(QUESTION, user_id="u", k=6)
    assert [(h.id, h.score) for h in after] == before
    assert all(h.session_id in {"dog", "work"} and "chasing" not in h.text for h in after)


@pytest.mark.parametrize("bad", [-0.1, "high", None])
def test_a_bad_session_support_is_refused(open_memory, bad):
    with pytest.raises(InvalidInputError, match="session_support"):
        open_memory(":memory:", "synapse", engine_options={"session_support": bad})
