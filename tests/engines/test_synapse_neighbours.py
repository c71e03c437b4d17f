"""SYNAPSE's neighbour context: a memory's similarity is raised toward the better of
the turns next to it in its session (``neighbour_context``), so the reply to a turn
that asks is found by the asking turn's words. The pure helper, then the public API
(which turns are neighbours: ``tests/index/test_index_order.py``)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from remem import InvalidInputError
from remem.engines.synapse.activation import with_neighbours

T0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
REPLY = "They loved it! Each of them shaped a little bowl and painted it blue."
PLAIN = {"time_options": {"updates": False}}


def test_a_score_rises_toward_its_best_lift_and_never_falls():
    own = np.array([0.2, 0.6, 0.4])
    near = np.array([[0.6, 0.0, 0.0], [0.0, 0.9, 0.1], [0.2, 0.2, 1.0]])
    raised = with_neighbours(own, near, np.array([0.5, 0.5, 0.25]))
    assert raised.tolist() == pytest.approx([0.4, 0.75, 0.55])
    assert (with_neighbours(own, near * 0, np.array([1.0, 1.0, 1.0])) == own).all()
    per_memory = np.array([[0.5, 0.5, 0.5], [0.5, 0.0, 0.5], [0.25, 0.25, 0.25]])
    assert with_neighbours(own, near, per_memory).tolist() == pytest.approx([0.4, 0.6, 0.55])


def _items(session: str | None, texts: list[str], day: float) -> list[dict]:
    start = T0 + timedelta(days=day)
    out = []
    for i, t in enumerate(texts):
        item = {"text": t, "timestamp": start + timedelta(seconds=30 * i)}
        if session is not None:
            item["session_id"] = session
        out.append(item)
    return out


def _history(sessions: bool = True) -> list[dict]:
    """The pottery class is named only in the turn that asks; the reply says what
    happened in words of its own. Other sessions hold turns of children and bowls."""
    name = (lambda s: s) if sessions else (lambda s: None)
    return (
        _items(name("kitchen"), ["The kids broke a bowl while unloading the dishwasher."], 0)
        + _items(name("school"), ["Each of the kids got a gold star from the teacher."], 3)
        + _items(
            name("pottery"),
            ["How did the pottery class with the kids go on Saturday?", REPLY, "Lovely!"],
            6,
        )
        + _items(name("garden"), ["We painted the garden fence blue last summer."], 9)
    )


QUESTION = "What did the kids make at the pottery class?"


def _rank_of_reply(mem) -> int:
    hits = mem.search(QUESTION, user_id="u", k=6)
    return [h.text for h in hits].index(REPLY)


@pytest.mark.parametrize("graph", [True, False])
def test_the_reply_to_the_turn_that_asks_rises(open_memory, graph):
    """Without session support (which lifts a whole session and would hide the
    mechanism): the reply ranks below turns of other sessions without the context,
    second, after the turn that asked, with it."""
    ranks = []
    for x in (0.0, 0.5):
        options = {"graph": graph, "neighbour_context": x, "session_support": 0.0}
        mem = open_memory(":memory:", "synapse", engine_options=options, **PLAIN)
        mem.add_many(_history(), user_id="u")
        ranks.append(_rank_of_reply(mem))
    assert ranks[1] < ranks[0]
    assert ranks[1] <= 1


def test_memories_without_a_session_have_no_neighbours(open_memory):
    results = []
    for x in (0.0, 0.5):
        mem = open_memory(":memory:", "synapse", engine_options={"neighbour_context": x}, **PLAIN)
        mem.add_many(_history(sessions=False), user_id="u")
        results.append([(h.text, h.score) for h in mem.search(QUESTION, user_id="u", k=6)])
    assert results[0] == results[1]


def test_another_users_turns_are_no_neighbours(open_memory):
    """Positions are per user: another user's turn about the pottery class, in a
    session of the same name, lends this user's turns nothing."""
    mem = open_memory(":memory:", "synapse", engine_options={"neighbour_context": 0.5}, **PLAIN)
    mem.add_many(_history(), user_id="u")
    before = [(h.id, h.score) for h in mem.search(QUESTION, user_id="u", k=6)]
    mem.add_many(_items("pottery", ["The pottery class with the kids was fun."], 7), user_id="v")
    assert [(h.id, h.score) for h in mem.search(QUESTION, user_id="u", k=6)] == before


def _scores(mem) -> dict[str, float]:
    return {h.text: h.score for h in mem.search(QUESTION, user_id="u", k=6)}


def test_a_long_turn_borrows_more_of_its_neighbours_and_a_short_one_less(open_memory):
    """``neighbour_length``: the long reply, next to the turn that asks, rises above
    what one weight for all gives it; "Lovely!", two turns from that turn, one word
    long, borrows less and falls. The asking turn itself, the best of its session,
    borrows nothing either way."""
    scores = []
    for e in (0.0, 0.5):
        options = {"graph": False, "session_support": 0.0, "neighbour_length": e}
        mem = open_memory(":memory:", "synapse", engine_options=options, **PLAIN)
        mem.add_many(_history(), user_id="u")
        scores.append(_scores(mem))
    flat, scaled = scores
    assert scaled[REPLY] > flat[REPLY]
    assert scaled["Lovely!"] < flat["Lovely!"]
    asking = "How did the pottery class with the kids go on Saturday?"
    assert scaled[asking] == pytest.approx(flat[asking])


@pytest.mark.parametrize(
    ("key", "bad"),
    [("neighbour_context", v) for v in (-0.1, 1.5, "high", None)]
    + [("neighbour_reach", v) for v in (0, 11, 1.5, "far")]
    + [("neighbour_length", v) for v in (-0.25, 2.5, "long", None)],
)
def test_a_bad_neighbour_setting_is_refused(open_memory, key, bad):
    with pytest.raises(InvalidInputError, match=key):
        open_memory(":memory:", "synapse", engine_options={key: bad})


def test_the_approximate_path_reads_the_neighbours_too(open_memory):
    """Above ``ann_above`` only the anchors and what activation reaches are scored;
    their neighbours' similarity is computed for them."""
    options = {"ann_above": 1, "neighbour_context": 0.5, "session_support": 0.0}
    mem = open_memory(":memory:", "synapse", engine_options=options, **PLAIN)
    mem.add_many(_history(), user_id="u")
    assert _rank_of_reply(mem) <= 1


def test_a_history_searched_as_it_grows_ranks_as_one_added_at_once(open_memory):
    """The neighbours are kept current by appends (``index.order.SessionOrder``), and
    rebuilt after an update: searched after every write, the history ranks as the same
    history written at once."""
    options = {"graph": False, "session_support": 0.0}
    grown = open_memory(":memory:", "synapse", engine_options=options, **PLAIN)
    ids = []
    for item in _history():
        ids.append(grown.add_many([item], user_id="u")[0])
        grown.search(QUESTION, user_id="u", k=3)
    grown.update(ids[1], "u", text="Each of the kids got a silver star from the teacher.")
    grown.search(QUESTION, user_id="u", k=3)
    grown.add_many(_items("pottery", ["They want to go back next month."], 6.01), user_id="u")
    whole = open_memory(":memory:", "synapse", engine_options=options, **PLAIN)
    items = _history()
    items[1]["text"] = "Each of the kids got a silver star from the teacher."
    whole.add_many([*items, *_items("pottery", ["They want to go back next month."], 6.01)], "u")
    ranked = [
        [(h.text, round(h.score, 6)) for h in m.search(QUESTION, user_id="u", k=8)]
        for m in (grown, whole)
    ]
    assert ranked[0] == ranked[1]
    assert [t for t, _ in ranked[0]].index(REPLY) <= 1
