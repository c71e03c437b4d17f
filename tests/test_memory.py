"""The public Memory API: contract, engines, persistence, ordering, metadata, timestamps."""

from __future__ import annotations

import json
import math
import sqlite3
from datetime import date, datetime, timedelta, timezone

import numpy as np
import pytest

import remem
from remem import Hit, InvalidInputError, InvalidTypeError, Memory, StoreError
from remem.embed import Embedder

ENGINES = ["dense", "bm25", "hybrid"]


def _ids(hits: list[Hit]) -> list[str]:
    return [h.id for h in hits]


# -- API contract -------------------------------------------------------------------


def test_public_surface_exports():
    for name in (
        "Memory",
        "Hit",
        "RememError",
        "InvalidInputError",
        "InvalidTypeError",
        "TextTooLongError",
        "UnknownComponentError",
        "StoreError",
        "NotFoundError",
        "EmbedderError",
    ):
        assert hasattr(remem, name)
    assert remem.__version__ == "0.1.0"


@pytest.mark.parametrize("engine", ENGINES)
def test_memory_on_file_and_in_memory(open_memory, db_path, engine):
    for path in (db_path, ":memory:"):
        m = open_memory(path, engine)
        mid = m.add("I keep my passport in the blue drawer.", user_id="u1")
        assert m.count("u1") == 1
        assert m.get(mid, user_id="u1").text == "I keep my passport in the blue drawer."
    assert db_path.exists()


def test_memory_accepts_string_path(open_memory, tmp_path):
    m = open_memory(str(tmp_path / "s.db"), "bm25")
    m.add("string path works", user_id="u")
    assert (tmp_path / "s.db").exists()
    assert "s.db" in repr(m) and "bm25" in repr(m)


def test_add_returns_str_id_and_get_returns_all_fields(mem):
    ts = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    mid = mem.add(
        "I'm moving to Lisbon in May",
        user_id="u1",
        speaker="Ana",
        timestamp=ts,
        session_id="s1",
        metadata={"source": "chat", "turn": 3},
    )
    assert isinstance(mid, str) and mid
    hit = mem.get(mid, user_id="u1")
    assert isinstance(hit, Hit)
    assert hit.id == mid
    assert hit.text == "I'm moving to Lisbon in May"
    assert hit.speaker == "Ana"
    assert hit.timestamp == ts
    assert hit.session_id == "s1"
    assert hit.metadata == {"source": "chat", "turn": 3}
    assert hit.score == 1.0
    d = hit.to_dict()
    assert d["timestamp"] == ts.isoformat() and d["id"] == mid and d["metadata"]["turn"] == 3


def test_optional_fields_default_to_none_and_empty(mem):
    mid = mem.add("just text", user_id="u1")
    hit = mem.get(mid, user_id="u1")
    assert hit.speaker is None and hit.session_id is None and hit.metadata == {}


def test_ids_are_unique(mem):
    ids = [mem.add(f"memory number {i}", user_id="u") for i in range(5)]
    ids += mem.add_many([f"batch memory {i}" for i in range(5)], user_id="u")
    assert len(set(ids)) == 10


def test_add_many_returns_ids_in_order(mem):
    items = [
        {"text": "first", "speaker": "A", "metadata": {"i": 0}},
        {"text": "second", "speaker": "B", "metadata": {"i": 1}},
        "third as a plain string",
        {"text": "fourth", "session_id": "s2", "timestamp": "2024-01-02T03:04:05"},
    ]
    ids = mem.add_many(items, user_id="u1")
    assert len(ids) == 4 and all(isinstance(i, str) for i in ids)
    assert [mem.get(i, user_id="u1").text for i in ids] == [
        "first",
        "second",
        "third as a plain string",
        "fourth",
    ]
    assert mem.get(ids[1], user_id="u1").metadata == {"i": 1}
    assert mem.get(ids[3], user_id="u1").timestamp == datetime(2024, 1, 2, 3, 4, 5)


def test_add_many_empty_and_generator(mem):
    assert mem.add_many([], user_id="u1") == []
    assert mem.count("u1") == 0
    ids = mem.add_many((f"generated {i}" for i in range(3)), user_id="u1")
    assert [h.id for h in mem.memories("u1")] == ids


@pytest.mark.parametrize("engine", ENGINES)
def test_search_returns_hits_best_first_at_most_k(open_memory, sentences, engine):
    m = open_memory(":memory:", engine)
    m.add_many(sentences, user_id="u")
    for k in (1, 3, 7, 50):
        hits = m.search("my dog, my sister's wedding and playing music", user_id="u", k=k)
        assert 0 < len(hits) <= min(k, len(sentences))
        assert all(isinstance(h, Hit) for h in hits)
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)
        assert len(set(_ids(hits))) == len(hits)
        assert set(h.text for h in hits) <= set(sentences)


def test_dense_search_with_large_k_returns_every_memory(open_memory, sentences):
    m = open_memory(":memory:", "dense")
    m.add_many(sentences, user_id="u")
    hits = m.search("anything at all", user_id="u", k=100)
    assert sorted(h.text for h in hits) == sorted(sentences)


@pytest.mark.parametrize("engine", ENGINES)
def test_search_of_user_without_memories_is_empty(open_memory, engine):
    m = open_memory(":memory:", engine)
    assert m.search("where is my passport", user_id="nobody", k=5) == []


# A paraphrase with no shared content word (dense) and a rare keyword (bm25).
PARAPHRASES = [
    ("What kind of pet dog do I own?", "greyhound"),
    ("Which antibiotic am I not able to take?", "penicillin"),
    ("Where will my sibling's wedding be?", "Lisbon"),
    ("What musical instrument am I studying?", "cello"),
]
KEYWORDS = [
    ("cello", "cello"),
    ("telescope", "telescope"),
    ("Dolomites", "Dolomites"),
    ("volcanoes", "volcanoes"),
]


@pytest.mark.parametrize("engine", ["dense", "hybrid"])
def test_dense_and_hybrid_find_paraphrase(open_memory, sentences, engine):
    m = open_memory(":memory:", engine)
    m.add_many(sentences, user_id="u")
    for query, needle in PARAPHRASES:
        hits = m.search(query, user_id="u", k=3)
        assert needle in hits[0].text or needle in hits[1].text, (query, _ids(hits))


@pytest.mark.parametrize("engine", ["bm25", "hybrid"])
def test_bm25_and_hybrid_find_keyword(open_memory, sentences, engine):
    m = open_memory(":memory:", engine)
    m.add_many(sentences, user_id="u")
    for query, needle in KEYWORDS:
        hits = m.search(query, user_id="u", k=5)
        assert needle in hits[0].text, (query, [h.text for h in hits])


def test_bm25_returns_only_memories_sharing_a_word(open_memory, sentences):
    m = open_memory(":memory:", "bm25")
    m.add_many(sentences, user_id="u")
    hits = m.search("telescope", user_id="u", k=10)
    assert [h.text for h in hits] == ["My daughter wants a telescope for her tenth birthday."]
    assert hits[0].score > 0
    assert m.search("zebra xylophone", user_id="u", k=10) == []


def test_speaker_is_searchable(open_memory):
    m = open_memory(":memory:", "bm25")
    m.add("I love sushi", user_id="u", speaker="Bartholomew")
    m.add("I love pizza", user_id="u", speaker="Cassandra")
    hits = m.search("what does Bartholomew love", user_id="u", k=1)
    assert hits[0].speaker == "Bartholomew"


def test_get_unknown_id_is_none_and_delete_unknown_is_false(mem):
    mem.add("something", user_id="u")
    assert mem.get("0" * 32, user_id="u") is None
    assert mem.delete("0" * 32, user_id="u") is False
    assert mem.count("u") == 1


@pytest.mark.parametrize("engine", ENGINES)
def test_delete_removes_memory_from_get_and_search(open_memory, sentences, engine):
    m = open_memory(":memory:", engine)
    ids = m.add_many(sentences, user_id="u")
    target = ids[2]  # the cello sentence
    assert target in _ids(m.search("cello", user_id="u", k=20))
    assert m.delete(target, user_id="u") is True
    assert m.get(target, user_id="u") is None
    assert target not in _ids(m.search("cello", user_id="u", k=20))
    assert m.delete(target, user_id="u") is False
    assert m.count("u") == len(sentences) - 1
    assert [h.id for h in m.memories("u")] == ids[:2] + ids[3:]


def test_delete_user_removes_everything_of_that_user_only(mem):
    mem.add_many(["alpha one", "alpha two", "alpha three"], user_id="a")
    kept = mem.add("alpha kept", user_id="b")
    assert mem.delete_user("a") == 3
    assert mem.count("a") == 0
    assert mem.memories("a") == []
    assert mem.search("alpha", user_id="a", k=5) == []
    assert mem.users() == ["b"]
    assert mem.get(kept, user_id="b").text == "alpha kept"
    assert mem.delete_user("a") == 0
    assert mem.delete_user("never-existed") == 0


def test_user_can_be_recreated_after_delete_user(mem):
    old = mem.add("old life in Paris", user_id="a")
    mem.search("Paris", user_id="a", k=3)  # warm the cache
    mem.delete_user("a")
    new = mem.add("new life in Rome", user_id="a")
    assert mem.get(old, user_id="a") is None
    assert _ids(mem.search("life", user_id="a", k=5)) == [new]


def test_users_lists_users_sorted(mem):
    for u in ("carol", "alice", "bob"):
        mem.add(f"hello from {u}", user_id=u)
    assert mem.users() == ["alice", "bob", "carol"]


def test_context_manager_closes(open_memory, db_path, embedder):
    with Memory(db_path, engine="hybrid", embedder=embedder) as m:
        mid = m.add("inside the with block", user_id="u")
    for call in (
        lambda: m.add("after close", user_id="u"),
        lambda: m.add_many(["after close"], user_id="u"),
        lambda: m.search("with block", user_id="u"),
        lambda: m.get(mid, user_id="u"),
        lambda: m.delete(mid, user_id="u"),
        lambda: m.delete_user("u"),
        lambda: m.memories("u"),
        lambda: m.count("u"),
        lambda: m.users(),
    ):
        with pytest.raises(StoreError, match="closed"):
            call()
    m.close()  # idempotent
    with Memory(db_path, engine="hybrid", embedder=embedder) as again:
        assert again.count("u") == 1


def test_context_manager_closes_on_exception(db_path, embedder):
    with pytest.raises(RuntimeError), Memory(db_path, engine="bm25", embedder=embedder) as m:
        m.add("kept despite the error", user_id="u")
        raise RuntimeError("boom")
    with pytest.raises(StoreError):
        m.count("u")
    with Memory(db_path, engine="bm25", embedder=embedder) as again:
        assert again.count("u") == 1


def test_default_embedder_is_minilm_by_name(db_path):
    with Memory(db_path, engine="bm25") as m:
        m.add("default embedder", user_id="u")
        assert m.count("u") == 1


# -- persistence ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_persistence_across_close_and_reopen(db_path, embedder, sentences, engine):
    ts = datetime(2024, 2, 29, 23, 59, 59, 123456, tzinfo=timezone(timedelta(hours=-3)))
    meta = {"nested": {"list": [1, 2.5, "three", None, True]}, "ü": "ñ"}
    with Memory(db_path, engine=engine, embedder=embedder) as m:
        ids = m.add_many(sentences, user_id="u")
        special = m.add(
            "The spare key is under the ceramic frog.",
            user_id="u",
            speaker="Ana",
            timestamp=ts,
            session_id="s9",
            metadata=meta,
        )
        before = m.search("where is the spare key hidden", user_id="u", k=5)
        before_all = m.memories("u")
    assert before[0].id == special
    with Memory(db_path, engine=engine, embedder=embedder) as m:
        assert m.count("u") == len(sentences) + 1
        assert m.memories("u") == before_all
        hit = m.get(special, user_id="u")
        assert hit.metadata == meta
        assert hit.timestamp == ts and hit.timestamp.utcoffset() == timedelta(hours=-3)
        assert hit.speaker == "Ana" and hit.session_id == "s9"
        after = m.search("where is the spare key hidden", user_id="u", k=5)
        assert _ids(after) == _ids(before)
        assert [h.score for h in after] == pytest.approx([h.score for h in before], abs=1e-6)
        assert [h.id for h in m.memories("u")] == ids + [special]


def test_reopen_with_other_engine_searches_stored_vectors(db_path, embedder, sentences):
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        m.add_many(sentences, user_id="u")
    with Memory(db_path, engine="dense", embedder=embedder) as m:
        hits = m.search("What kind of pet dog do I own?", user_id="u", k=1)
        assert "greyhound" in hits[0].text


def test_reopen_add_more_then_search(db_path, embedder):
    with Memory(db_path, engine="hybrid", embedder=embedder) as m:
        first = m.add("I bought a red kayak", user_id="u")
    with Memory(db_path, engine="hybrid", embedder=embedder) as m:
        assert _ids(m.search("kayak", user_id="u", k=5)) == [first]
        second = m.add("I sold the red kayak", user_id="u")
        assert set(_ids(m.search("kayak", user_id="u", k=5))) == {first, second}
        assert [h.id for h in m.memories("u")] == [first, second]


# -- ordering -------------------------------------------------------------------------


def test_memories_keep_insertion_order_across_calls(mem):
    expected = []
    # Timestamps deliberately run backwards: order is insertion, not time.
    t0 = datetime(2030, 1, 1)
    n = 0
    for round_ in range(3):
        for _ in range(2):
            expected.append(mem.add(f"single {n}", user_id="u", timestamp=t0 - timedelta(days=n)))
            n += 1
        batch = [
            {"text": f"batch {n + i}", "timestamp": t0 - timedelta(days=n + i)} for i in range(3)
        ]
        expected += mem.add_many(batch, user_id="u")
        n += 3
        mem.add(f"other user {round_}", user_id="v")
    got = mem.memories("u")
    assert [h.id for h in got] == expected
    assert [h.text for h in got][:3] == ["single 0", "single 1", "batch 2"]
    assert all(h.score == 1.0 for h in got)
    assert len(mem.memories("v")) == 3


def test_insertion_order_survives_deletes_and_reopen(db_path, embedder):
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        ids = m.add_many([f"note {i}" for i in range(6)], user_id="u")
        m.delete(ids[1], user_id="u")
        m.delete(ids[4], user_id="u")
        ids.append(m.add("note 6", user_id="u"))
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        assert [h.id for h in m.memories("u")] == [ids[0], ids[2], ids[3], ids[5], ids[6]]


# -- metadata ------------------------------------------------------------------------

ROUND_TRIP_METADATA = [
    {},
    {"a": 1},
    {"nested": {"deeper": {"deepest": [1, [2, [3, {"x": None}]]]}}},
    {"unicode": "日本語 🎉 café", "emoji key 😀": ["ü", "ß", "\u200b"]},
    {"int": 2**62, "negative": -17, "big": 10**30, "zero": 0},
    {"float": 3.141592653589793, "tiny": 5e-324, "neg": -0.5, "exp": 1.5e300},
    {"bools": [True, False], "none": None, "mixed": [1, "1", 1.0, None, False, {}, []]},
    {"empty_list": [], "empty_dict": {}, "empty_str": ""},
    {"quotes": 'she said "hi"\n\ttab\\backslash', "bell": "a\x07b"},
]


@pytest.mark.parametrize("metadata", ROUND_TRIP_METADATA)
def test_metadata_round_trip_exact(db_path, embedder, metadata):
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        mid = m.add("metadata carrier", user_id="u", metadata=metadata)
        assert m.get(mid, user_id="u").metadata == metadata
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        got = m.get(mid, user_id="u").metadata
        assert got == metadata
        assert _types(got) == _types(metadata)  # 1 stays int, 1.0 stays float, True stays bool
        assert m.search("metadata carrier", user_id="u", k=1)[0].metadata == metadata


def _types(value):
    if isinstance(value, dict):
        return {k: _types(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_types(v) for v in value]
    return type(value).__name__


def test_metadata_is_copied_not_aliased(mem):
    meta = {"tags": ["a"]}
    mid = mem.add("aliasing check", user_id="u", metadata=meta)
    meta["tags"].append("b")
    meta["new"] = 1
    assert mem.get(mid, user_id="u").metadata == {"tags": ["a"]}


BAD_METADATA = [
    ({"s": {1, 2}}, remem.InvalidTypeError),
    ({"t": (1, 2)}, remem.InvalidTypeError),
    ({"d": datetime(2024, 1, 1)}, remem.InvalidTypeError),
    ({"deep": [{"x": date(2024, 1, 1)}]}, remem.InvalidTypeError),
    ({"b": b"bytes"}, remem.InvalidTypeError),
    ({"o": object()}, remem.InvalidTypeError),
    ({1: "int key"}, remem.InvalidTypeError),
    ({"nan": float("nan")}, remem.InvalidInputError),
    ({"inf": [float("inf")]}, remem.InvalidInputError),
    ({"ninf": {"x": -math.inf}}, remem.InvalidInputError),
    ({"surrogate": "\ud800"}, remem.InvalidInputError),
    ({"\udfff": "key surrogate"}, remem.InvalidInputError),
    ({"big": "x" * 70_000}, remem.InvalidInputError),
    (["not", "a", "dict"], remem.InvalidTypeError),
    ("a string", remem.InvalidTypeError),
]


@pytest.mark.parametrize(("metadata", "error"), BAD_METADATA)
def test_bad_metadata_rejected_and_nothing_stored(mem, metadata, error):
    mem.add("already here", user_id="u")
    with pytest.raises(error, match="metadata"):
        mem.add("should not be stored", user_id="u", metadata=metadata)
    with pytest.raises(error, match="metadata"):
        mem.add_many(["fine", {"text": "bad", "metadata": metadata}], user_id="u")
    assert mem.count("u") == 1
    assert [h.text for h in mem.memories("u")] == ["already here"]


# -- timestamps -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (datetime(2023, 5, 8, 13, 56), datetime(2023, 5, 8, 13, 56)),
        (
            datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc),
            datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc),
        ),
        ("2023-05-08T13:56:00", datetime(2023, 5, 8, 13, 56)),
        ("2023-05-08 13:56:00", datetime(2023, 5, 8, 13, 56)),
        ("2023-05-08", datetime(2023, 5, 8)),
        (
            "2023-05-08T13:56:00+02:00",
            datetime(2023, 5, 8, 13, 56, tzinfo=timezone(timedelta(hours=2))),
        ),
        ("2023-05-08T13:56:00Z", datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)),
        ("2023-05-08T13:56:00.250z", datetime(2023, 5, 8, 13, 56, 0, 250000, tzinfo=timezone.utc)),
        ("  2023-05-08T13:56:00Z  ", datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)),
        (date(2023, 5, 8), datetime(2023, 5, 8)),
    ],
)
def test_timestamps_accepted_and_round_trip(db_path, embedder, given, expected):
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        mid = m.add("timed memory", user_id="u", timestamp=given)
        batch_id = m.add_many([{"text": "timed batch", "timestamp": given}], user_id="u")[0]
    with Memory(db_path, engine="bm25", embedder=embedder) as m:
        for i in (mid, batch_id):
            got = m.get(i, user_id="u").timestamp
            assert got == expected
            assert got.utcoffset() == expected.utcoffset()


def test_omitted_timestamp_is_now_utc(mem):
    before = datetime.now(timezone.utc)
    mid = mem.add("no timestamp given", user_id="u")
    batch = mem.add_many(["batch without timestamp"], user_id="u")[0]
    after = datetime.now(timezone.utc)
    for i in (mid, batch):
        ts = mem.get(i, user_id="u").timestamp
        assert ts.tzinfo is not None
        assert before - timedelta(seconds=1) <= ts <= after + timedelta(seconds=1)


@pytest.mark.parametrize(
    "bad",
    [
        "yesterday",
        "2023-13-45",
        "",
        "   ",
        "8 May 2023",
        "2023-05-08T25:00:00",
        "2023-05-08T13:56:00ZZ",
    ],
)
def test_bad_timestamp_text_rejected(mem, bad):
    mem.add("present", user_id="u")
    with pytest.raises(remem.InvalidInputError, match="timestamp"):
        mem.add("bad time", user_id="u", timestamp=bad)
    with pytest.raises(remem.InvalidInputError, match="timestamp"):
        mem.add_many([{"text": "bad time", "timestamp": bad}], user_id="u")
    assert mem.count("u") == 1


@pytest.mark.parametrize("bad", [1683554160, 1.5, ["2023-05-08"], object()])
def test_timestamp_of_wrong_type_rejected(mem, bad):
    with pytest.raises(remem.InvalidTypeError, match="timestamp"):
        mem.add("bad time", user_id="u", timestamp=bad)
    assert mem.count("u") == 0


def test_memories_pages_and_checks_its_arguments(open_memory):
    m = open_memory(":memory:", "bm25")
    ids = m.add_many([f"note {i}" for i in range(5)], user_id="u")
    assert [h.id for h in m.memories("u")] == ids
    assert [h.id for h in m.memories("u", limit=2, offset=1)] == ids[1:3]
    assert [h.id for h in m.memories("u", offset=4)] == ids[4:]
    assert m.memories("v", limit=3) == []
    with pytest.raises(InvalidInputError):
        m.memories("u", limit=0)
    with pytest.raises(InvalidInputError):
        m.memories("u", offset=-1)
    with pytest.raises(InvalidTypeError):
        m.memories("u", offset="1")


# -- vectors: only ones a dot product can rank (issue 34, finding 5) ------------------------


class _Fixed(Embedder):
    """An embedder whose every text gets the same, given vector."""

    name, dim = "fixed", 4

    def __init__(self, vec: list[float]):
        self.vec = vec

    def embed(self, texts):
        return np.array([self.vec] * len(texts), dtype=np.float64).reshape(len(texts), -1)


@pytest.mark.parametrize(
    "vec",
    [[math.inf, 0, 0, 0], [math.nan, 0, 0, 0], [1e39, 0, 0, 0], [2.0, 0, 0, 0], [1.0, 0, 0]],
    ids=["inf", "nan", "1e39", "length 2", "too short"],
)
def test_an_embedder_returning_vectors_that_cannot_rank_stores_nothing(vec):
    with Memory(":memory:", engine="dense", embedder=_Fixed(vec), llm="none") as mem:
        with pytest.raises(remem.EmbedderError, match="fixed returned"):
            mem.add("the cellar door squeaks", user_id="u")
        with pytest.raises(remem.EmbedderError, match="fixed returned"):
            mem.add_many(["one", "two"], user_id="u")
        assert mem.count("u") == 0
        with pytest.raises(remem.EmbedderError, match="fixed returned"):
            mem.search("door", user_id="u")


def test_an_embedders_unit_vectors_are_taken(open_memory):
    with Memory(":memory:", engine="dense", embedder=_Fixed([0.6, 0.8, 0, 0]), llm="none") as mem:
        mid = mem.add("the cellar door squeaks", user_id="u")
        assert mem.search("door", user_id="u")[0].score == pytest.approx(1.0)
        assert mem.get(mid, user_id="u") is not None


def test_a_vector_damaged_in_the_file_ranks_as_nothing_and_exports_as_zeros(open_memory, db_path):
    """A vector that was stored broken (by hand, or imported before vectors were
    checked) must not outrank every memory on every query, nor break an export."""
    texts = ["the cellar door squeaks", "my bike is red", "I drink green tea", "we rent a flat"]
    first = open_memory(db_path, "dense")
    ids = first.add_many(texts, user_id="u")
    first.close()
    damaged = {ids[1]: np.full(384, np.inf), ids[2]: np.full(384, 30.0)}  # infinite; long
    with sqlite3.connect(db_path) as con:
        for mid, vec in damaged.items():
            blob = vec.astype("<f4").tobytes()
            con.execute("UPDATE memories SET embedding = ? WHERE id = ?", (blob, mid))
    mem = open_memory(db_path, "dense")
    hits = mem.search("which door squeaks?", user_id="u", k=4)
    assert hits[0].id == ids[0]
    assert all(math.isfinite(h.score) and -1.0 <= h.score <= 1.0 for h in hits)
    data = mem.export_data("u")
    json.dumps(data, allow_nan=False)  # JSON that any parser reads
    exported = {e["id"]: e["embedding"] for e in data["entries"]}
    assert all(x == 0.0 for mid in damaged for x in exported[mid])
    assert len(mem.import_data(data, user_id="v")) == 4  # and imports again


# -- add_many(skip_blank=True): a history with blank turns (issue 34, finding 14) -----------


def test_add_many_refuses_a_blank_item_by_default_naming_it(mem):
    with pytest.raises(InvalidInputError, match="item 1: text must not be empty"):
        mem.add_many(["hello", "\u200b", "world"], user_id="u")
    assert mem.count("u") == 0


def test_add_many_skip_blank_stores_the_rest_and_says_which_were_skipped(mem):
    items = ["hello", "\u200b", {"text": " \n", "speaker": "Ana"}, {"text": "world"}, ""]
    ids = mem.add_many(items, user_id="u", skip_blank=True)
    assert isinstance(ids, list) and len(ids) == 2 and ids.skipped == [1, 2, 4]
    assert [h.text for h in mem.memories("u")] == ["hello", "world"]
    assert [h.id for h in mem.memories("u")] == ids
    plain = mem.add_many(["again"], user_id="u")
    assert plain.skipped == [] and plain == [mem.memories("u")[-1].id]


def test_add_many_skip_blank_of_only_blank_items_stores_nothing(mem):
    ids = mem.add_many(["\u200b", "  "], user_id="u", skip_blank=True)
    assert ids == [] and ids.skipped == [0, 1]
    assert mem.count("u") == 0


@pytest.mark.parametrize(
    ("items", "error", "message"),
    [
        (["ok", {"text": "\u200b", "timestamp": "soon"}], InvalidInputError, "item 1: timestamp"),
        (["ok", {"text": "\u200b", "spaeker": "Ana"}], InvalidInputError, "item 1 has unknown"),
        (["ok", {"text": None}], InvalidTypeError, "item 1: text must be a str"),
        (["ok", 5], InvalidTypeError, "item 1 must be a dict or str"),
    ],
)  # fmt: skip
def test_add_many_skip_blank_still_refuses_every_other_problem(mem, items, error, message):
    with pytest.raises(error, match=message):
        mem.add_many(items, user_id="u", skip_blank=True)
    assert mem.count("u") == 0


def test_add_many_skip_blank_must_be_a_bool(mem):
    with pytest.raises(InvalidTypeError, match="skip_blank must be True or False"):
        mem.add_many(["x"], user_id="u", skip_blank="yes")
    assert mem.count("u") == 0


def test_answer_each_reads_one_recall_with_each_reader(open_memory):
    """Readers side by side: the same recall, each read as Memory.answer reads it."""
    from remem import create_llm
    from remem.answer import Answerer

    mem = open_memory(engine="hybrid", llm="none")
    mem.add("My cello teacher is called Ines Duarte.", user_id="u")
    mem.add("I had my first cello lesson on Sunday.", user_id="u")
    readers = {
        "typed": Answerer(create_llm("none")),
        "sentence": Answerer(create_llm("none"), mode="extract"),
    }
    got = mem.answer_each(readers, "Who is my cello teacher?", user_id="u")
    assert got["typed"].text == mem.answer("Who is my cello teacher?", user_id="u").text
    assert got["typed"].text == "Ines Duarte"
    assert got["sentence"].text.startswith("My cello teacher is called Ines Duarte")
    assert [h.id for h in got["typed"].evidence] == [h.id for h in got["sentence"].evidence]
