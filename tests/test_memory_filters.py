"""Hard filters on search, recall, answer, trace and memories (``remem/filters.py``,
``index/restrict.py``): every key on every engine, applied before the top-k so k
results come back whenever k memories pass, thread-safe, tenant-isolated."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

import numpy as np
import pytest

from remem import Filters, InvalidFilterError, InvalidInputError, Memory
from remem.engines import register_engine
from remem.engines.base import Engine, Scored

ENGINES = ["hybrid", "dense", "bm25", "synapse", "ilstma"]
MONDAY = datetime(2025, 3, 3, 10, 0, tzinfo=timezone.utc)


def _crowded(m: Memory, user: str = "u") -> list[str]:
    """43 memories about coffee in session "a" (what the query finds first) and 7
    about the garden in session "b", spoken by Bea (what a filter asks for)."""
    items = [
        {
            "text": f"I drank coffee number {i} at the coffee bar, strong coffee.",
            "session_id": "a",
            "speaker": "Al",
            "metadata": {"topic": "coffee", "n": i},
            "timestamp": datetime(2025, 1, 1 + i % 28, tzinfo=timezone.utc),
        }
        for i in range(43)
    ] + [
        {
            "text": f"Bea planted row {i} of the garden with beans and a coffee plant.",
            "session_id": "b",
            "speaker": "Bea",
            "metadata": {"topic": "garden", "n": i, "sunny": i % 2 == 0},
            "timestamp": datetime(2025, 2, 1 + i, tzinfo=timezone.utc),
        }
        for i in range(7)
    ]
    return list(m.add_many(items, user_id=user))


@pytest.fixture(params=ENGINES)
def crowded(request, open_memory) -> Memory:
    m = open_memory(":memory:", request.param)
    _crowded(m)
    return m


def _texts_pass(hits, pred) -> bool:
    return bool(hits) and all(pred(h) for h in hits)


def test_k_comes_back_full_when_passing_ones_rank_low(crowded):
    plain = crowded.search("strong coffee at the coffee bar", user_id="u", k=5)
    assert all(h.session_id == "a" for h in plain)  # unfiltered, session b ranks low
    hits = crowded.search(
        "strong coffee at the coffee bar", user_id="u", k=5, filters={"session_id": "b"}
    )
    assert len(hits) == 5 and all(h.session_id == "b" for h in hits)


@pytest.mark.parametrize(
    ("filters", "pred", "expected"),
    [
        ({"speaker": "Bea"}, lambda h: h.speaker == "Bea", 5),
        ({"speaker": ["Nobody", "Bea"]}, lambda h: h.speaker == "Bea", 5),
        ({"metadata": {"topic": "garden"}}, lambda h: h.metadata["topic"] == "garden", 5),
        ({"metadata": {"n": [1, 2]}}, lambda h: h.metadata["n"] in (1, 2), 4),
        ({"metadata": {"sunny": True}}, lambda h: h.metadata.get("sunny") is True, 4),
        (
            {"after": "2025-02-03", "before": "2025-02-05"},
            lambda h: h.session_id == "b" and h.metadata["n"] in (2, 3),
            2,
        ),
        (
            Filters(session_id=["b"], metadata={"n": 0}),
            lambda h: h.metadata == {"topic": "garden", "n": 0, "sunny": True},
            1,
        ),
    ],
)
def test_each_key_on_every_engine(crowded, filters, pred, expected):
    hits = crowded.search("coffee", user_id="u", k=5, filters=filters)
    assert len(hits) == expected and _texts_pass(hits, pred)
    rec = crowded.recall("coffee", user_id="u", k=5, filters=filters)
    assert len(rec.hits) == expected and _texts_pass(rec.hits, pred)


def test_metadata_true_is_not_one(open_memory):
    m = open_memory(":memory:", "bm25")
    m.add("tea one", user_id="u", metadata={"x": 1})
    m.add("tea true", user_id="u", metadata={"x": True})
    assert [h.text for h in m.search("tea", user_id="u", filters={"metadata": {"x": 1}})] == [
        "tea one"
    ]
    assert [h.text for h in m.search("tea", "u", filters={"metadata": {"x": True}})] == ["tea true"]


def test_no_match_gives_nothing_and_empty_filters_are_none(crowded):
    assert crowded.search("coffee", user_id="u", filters={"session_id": "zzz"}) == []
    assert crowded.recall("coffee", user_id="u", filters={"speaker": "zzz"}).refuse
    plain = [h.id for h in crowded.search("coffee", user_id="u", k=5)]
    assert [h.id for h in crowded.search("coffee", user_id="u", k=5, filters={})] == plain
    assert [h.id for h in crowded.search("coffee", "u", k=5, filters=Filters())] == plain


@pytest.mark.parametrize("engine", ENGINES)
def test_event_time_with_relative_dates(open_memory, engine):
    m = open_memory(":memory:", engine)
    coming = m.add("We are going hiking in the hills on Saturday.", "u", timestamp=MONDAY)
    m.add("We went hiking in the hills last Saturday.", "u", timestamp=MONDAY)
    m.add("I love hiking in the hills.", "u", timestamp=MONDAY)  # names no time
    window = {"event_after": "2025-03-08", "event_before": "2025-03-09"}
    hits = m.search("hiking in the hills", "u", k=3, filters=window)
    assert [h.id for h in hits] == [coming]
    assert hits[0].event_times and hits[0].event_times[0]["start"].startswith("2025-03-08")
    # open-ended: anything talked about from March on (the coming Saturday only)
    assert [h.id for h in m.search("hiking", "u", filters={"event_after": "2025-03-04"})] == [
        coming
    ]
    # epoch seconds, like datetimes
    after = datetime(2025, 2, 28, tzinfo=timezone.utc).timestamp()
    both = m.search("hiking", "u", filters={"event_after": after, "event_before": "2025-03-10"})
    assert len(both) == 2 and all(h.event_times for h in both)


@pytest.mark.parametrize(
    ("filters", "message"),
    [
        ({"sesion_id": "a"}, "unknown filter keys"),
        ("session_id=a", "must be a mapping"),
        ({"session_id": 3}, "'session_id' must be a str"),
        ({"speaker": []}, "'speaker' must be a str"),
        ({"speaker": ["ok", ""]}, "non-empty str"),
        ({"metadata": ["topic"]}, "'metadata' must be a mapping"),
        ({"metadata": {"topic": {"a": 1}}}, "not a JSON scalar"),
        ({"metadata": {"topic": []}}, "must list 1 to"),
        ({"after": "yesterday"}, "not ISO-8601"),
        ({"before": [2025]}, "must be a datetime"),
        ({"event_after": float("nan")}, "finite"),
        ({"after": "2025-02-02", "before": "2025-02-01"}, "'after' must be before 'before'"),
    ],
)
def test_bad_filters_are_refused_on_every_read(mem, filters, message):
    mem.add("something", "u")
    for read in (
        lambda: mem.search("x", "u", filters=filters),
        lambda: mem.recall("x", "u", filters=filters),
        lambda: mem.answer("x", "u", filters=filters),
        lambda: mem.trace("x", "u", filters=filters),
        lambda: mem.memories("u", filters=filters),
    ):
        with pytest.raises(InvalidFilterError, match=message) as exc:
            read()
        assert isinstance(exc.value, InvalidInputError) and isinstance(exc.value, TypeError)


def test_memories_lists_and_pages_what_passes(crowded):
    listed = crowded.memories("u", filters={"session_id": "b"})
    assert [h.metadata["n"] for h in listed] == list(range(7))
    page = crowded.memories("u", filters={"session_id": "b"}, limit=2, offset=3)
    assert [h.metadata["n"] for h in page] == [3, 4]
    assert len(crowded.memories("u", filters={"before": "2025-01-02"})) == 2


def test_answer_and_trace_read_only_what_passes(crowded):
    ans = crowded.answer("what did Bea plant?", "u", filters={"metadata": {"n": 6}})
    assert "row 6" in ans.text
    tr = crowded.trace("coffee", "u", k=3, filters={"session_id": "b"})
    assert len(tr.recall.hits) == 3 and all(h.session_id == "b" for h in tr.recall.hits)


@pytest.mark.parametrize("engine", ["hybrid", "synapse"])
def test_two_threads_with_different_filters(open_memory, engine):
    m = open_memory(":memory:", engine)
    _crowded(m)
    errors: list[str] = []
    go = threading.Barrier(2)

    def run(session: str) -> None:
        go.wait()
        for _ in range(15):
            hits = m.search("coffee", "u", k=5, filters={"session_id": session})
            if len(hits) != 5 or any(h.session_id != session for h in hits):
                errors.append(f"{session}: {[h.session_id for h in hits]}")

    threads = [threading.Thread(target=run, args=(s,)) for s in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


@pytest.mark.parametrize("engine", ENGINES)
def test_tenant_isolation_unchanged(open_memory, engine):
    m = open_memory(":memory:", engine)
    _crowded(m, "u1")
    m.add("Bea planted a secret coffee garden.", "u2", session_id="b", speaker="Bea")
    hits = m.search("secret coffee garden", "u1", k=10, filters={"session_id": "b"})
    assert len(hits) == 7 and all("secret" not in h.text for h in hits)
    only = m.search("coffee", "u2", k=10, filters={"speaker": "Bea"})
    assert [h.text for h in only] == ["Bea planted a secret coffee garden."]


class Blind(Engine):
    """A third party's engine that cannot filter: it ranks by the number in its text
    (lowest first), so the memories a filter wants come last."""

    name = "blind"
    needs_query_vector = False
    asked: list[int] = []

    def search(self, user_id, query, query_vec, k):
        Blind.asked.append(k)
        rows = self.ctx.store.load(user_id, with_embeddings=False)
        rows.sort(key=lambda r: r.seq)
        return [Scored(r.id, 1.0 / (1 + i)) for i, r in enumerate(rows[:k])]


register_engine("blind", Blind)


def test_engine_that_cannot_filter_is_asked_deeper(open_memory):
    m = open_memory(":memory:", "blind")
    _crowded(m)
    Blind.asked.clear()
    hits = m.search("anything", "u", k=5, filters={"session_id": "b"})
    assert len(hits) == 5 and all(h.session_id == "b" for h in hits)
    # the pipeline's depth first (the time stage orders versions among the first 10
    # whatever k is asked), then deeper rounds
    assert Blind.asked[0] == 10 and len(Blind.asked) > 1 and Blind.asked[1] > 10
    rec = m.recall("anything", "u", k=3, filters={"speaker": "Bea"})
    assert len(rec.hits) == 3 and all(h.speaker == "Bea" for h in rec.hits)


def test_exact_stage_never_lifts_a_masked_memory(open_memory):
    m = open_memory(":memory:", "hybrid")
    m.add("My locker code is QX-7731.", "u", session_id="a")
    m.add_many([{"text": f"note {i} about codes", "session_id": "b"} for i in range(4)], "u")
    hits = m.search("what is QX-7731?", "u", k=3, filters={"session_id": "b"})
    assert len(hits) == 3 and all(h.session_id == "b" for h in hits)
    assert m.search("what is QX-7731?", "u", k=1)[0].session_id == "a"


def test_restriction_mask_is_per_call(open_memory):
    """The mask belongs to the call: the index holds none (no state to leak)."""
    m = open_memory(":memory:", "hybrid")
    _crowded(m)
    m.search("coffee", "u", filters={"session_id": "b"})
    idx = m._indexes.get("u")
    assert not any(isinstance(v, np.ndarray) and v.dtype == bool and v.sum() == 7
                   for v in vars(idx).values())  # fmt: skip
