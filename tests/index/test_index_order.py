"""Which turns a memory was said between (``index/order.py``, ``UserIndex.session_beside``):
by session and time, not by the order memories were added, updated or imported in."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import numpy as np
import pytest

from remem.index.order import SessionOrder, beside_in_time, step_along


def test_neighbours_are_of_the_same_session_in_time_order():
    session = np.array([0, 0, 0, 1, 1, -1, -1, 2, 0])
    times = np.array([1.0, 3.0, 4.0, 1.0, 2.0, 1.0, 2.0, 1.0, 2.0])  # position 8 came second
    alive = np.ones(9, dtype=bool)
    before, after = beside_in_time(session, times, alive)
    assert before.tolist() == [-1, 8, 1, -1, 3, -1, -1, -1, 0]
    assert after.tolist() == [8, 2, -1, 4, -1, -1, -1, -1, 1]
    assert step_along(after, np.arange(9), 2).tolist() == [1, -1, -1, -1, -1, -1, -1, -1, 2]
    assert step_along(before, np.array([2, 5]), 3).tolist() == [0, -1]


def test_a_deleted_memory_is_skipped_and_has_no_neighbours():
    session = np.array([0, 0, 0])
    before, after = beside_in_time(session, np.array([1.0, 2.0, 3.0]), np.array([1, 0, 1], bool))
    assert after.tolist() == [2, -1, -1]
    assert before.tolist() == [-1, -1, 0]


def test_ties_in_time_keep_the_order_added():
    before, after = beside_in_time(np.zeros(3, dtype=np.int64), np.zeros(3), np.ones(3, bool))
    assert after.tolist() == [1, 2, -1]


def test_an_updated_memory_keeps_its_place_in_the_session(open_memory):
    """An update is a new index position at the end; its neighbours are still the
    turns it was said between, as in a history imported with it in place."""
    mem = open_memory(":memory:", "synapse")
    t0 = datetime(2024, 3, 1, 9, tzinfo=timezone.utc)
    ids = mem.add_many(
        [
            {
                "text": f"turn {i} about the garden",
                "session_id": "s",
                "timestamp": t0 + timedelta(minutes=i),
            }
            for i in range(4)
        ],
        user_id="u",
    )
    mem.update(ids[1], "u", text="turn 1 about the greenhouse, corrected")
    mem.search("garden", user_id="u", k=2)  # the index is built
    with mem._engine.ctx.indexes.use("u") as idx:
        before, after = idx.session_beside()
        at = {memory_id: idx.pos[memory_id] for memory_id in ids}
        assert after[at[ids[0]]] == at[ids[1]] and before[at[ids[2]]] == at[ids[1]]
        assert (before[at[ids[1]]], after[at[ids[1]]]) == (at[ids[0]], at[ids[2]])


@pytest.mark.parametrize("seed", range(6))
def test_appends_in_time_order_keep_the_tables_a_rebuild_would_make(seed):
    """Turns appended each at or after its session's latest (several sessions
    interleaved, some without one) extend the tables to what sorting every turn
    again gives; a turn older than its session's latest asks for the rebuild."""
    rng = np.random.default_rng(seed)
    n, start = 60, 20
    session = rng.integers(-1, 4, size=n)
    times = np.zeros(n)
    clock = dict.fromkeys(range(-1, 4), 0.0)
    for p in range(n):  # each session's clock only moves forward
        clock[int(session[p])] += float(rng.integers(0, 3))
        times[p] = clock[int(session[p])]
    alive = np.ones(n, dtype=bool)
    order = SessionOrder(session[:start], times[:start], alive[:start])
    assert order.extend(session, list(times))
    want = beside_in_time(session, times, alive)
    assert order.before.tolist() == want[0].tolist()
    assert order.after.tolist() == want[1].tolist()
    late = SessionOrder(session, times, alive)
    older = int(times[session == 0].max()) - 1
    assert not late.extend(np.append(session, 0), [*times, older])
