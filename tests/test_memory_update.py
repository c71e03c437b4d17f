"""``Memory.update`` and ``Memory.history`` (``writes.py`` ``Writer.update``,
``store/history.py``): an update replaces the memory everywhere recall looks, on every
engine; the history keeps every version; a wrong user or id is one not-found; bad
input changes nothing; other users' recall is untouched; erasure takes the history."""

from __future__ import annotations

import threading
from datetime import datetime
from pathlib import Path

import pytest

from remem import (
    InvalidInputError,
    InvalidTypeError,
    Memory,
    NotFoundError,
    TextTooLongError,
    Version,
)
from remem.errors import RememError

ENGINES = ["hybrid", "dense", "bm25", "synapse", "ilstma"]
JAN, JUN = "2023-01-10T10:00:00+00:00", "2023-06-10T10:00:00+00:00"
NOW = "2023-12-01T00:00:00Z"
MARKER = "zqxvorpal"  # appears in no other text, id or metadata

FILLER = [
    "We watched a documentary about whales on Sunday evening.",
    "My sister bakes sourdough bread every weekend.",
    "The printer on the third floor jams every morning.",
    "I started learning the cello last spring.",
    "Our neighbours painted their fence bright yellow.",
    "The train to the airport leaves every twenty minutes.",
]


def _user(m: Memory, user: str = "u") -> tuple[str, list[str]]:
    """A job memory amid filler: (its id, the filler's ids)."""
    filler = list(m.add_many(FILLER, user_id=user))
    job = m.add(
        "I work as a baker at the Acme bakery downtown.",
        user_id=user,
        speaker="Ana",
        session_id="s1",
        timestamp=JAN,
        metadata={"topic": "job"},
    )
    return job, filler


# -- what an update does ------------------------------------------------------------------


def test_update_replaces_text_and_keeps_the_rest(mem):
    job, filler = _user(mem)
    hit = mem.update(job, "u", text="I work as a nurse at the city hospital.")
    assert hit.id == job and hit.score == 1.0
    assert hit.text == "I work as a nurse at the city hospital."
    assert (hit.speaker, hit.session_id, hit.metadata) == ("Ana", "s1", {"topic": "job"})
    assert hit.timestamp == datetime.fromisoformat(JAN)
    assert mem.get(job, "u") == hit
    assert mem.count("u") == len(filler) + 1
    # the id moved to the end of insertion order, as a new memory would
    assert [h.id for h in mem.memories("u")] == [*filler, job]


def test_history_lists_every_version_oldest_first(mem):
    job, _ = _user(mem)
    [only] = mem.history(job, "u")
    assert isinstance(only, Version)
    assert (only.version, only.text, only.changed) == (1, mem.get(job, "u").text, ())
    mem.update(job, "u", text="I work as a nurse.")
    mem.update(job, "u", metadata={"topic": "work", "n": 2})
    mem.update(job, "u", timestamp=JUN)
    mem.update(job, "u", text="I work as a pilot.", metadata={}, timestamp=JAN)
    versions = mem.history(job, "u")
    assert [v.version for v in versions] == [1, 2, 3, 4, 5]
    assert [v.changed for v in versions] == [
        (),
        ("text",),
        ("metadata",),
        ("timestamp",),
        ("text", "metadata", "timestamp"),
    ]
    assert versions[0].text == "I work as a baker at the Acme bakery downtown."
    assert [v.text for v in versions[1:4]] == ["I work as a nurse."] * 3
    assert versions[2].metadata == {"topic": "work", "n": 2}
    assert versions[3].timestamp == datetime.fromisoformat(JUN)
    assert versions[-1].text == mem.get(job, "u").text == "I work as a pilot."
    assert versions[-1].metadata == {} and versions[-1].timestamp == datetime.fromisoformat(JAN)
    ats = [v.at for v in versions]
    assert ats == sorted(ats) and all(a.tzinfo is not None for a in ats)
    d = versions[1].to_dict()
    assert d["changed"] == ["text"] and isinstance(d["at"], str) and d["version"] == 2


def test_an_update_to_the_same_values_writes_nothing(mem):
    job, _ = _user(mem)
    before = mem.get(job, "u")
    same = mem.update(job, "u", text=before.text, metadata=dict(before.metadata), timestamp=JAN)
    assert same == before
    assert len(mem.history(job, "u")) == 1
    assert [h.id for h in mem.memories("u")][-1] == job


def test_the_same_instant_in_another_zone_is_a_change(mem):
    job, _ = _user(mem)  # said at JAN, in UTC
    hit = mem.update(job, "u", timestamp="2023-01-10T11:00:00+01:00")
    assert hit.timestamp.isoformat() == "2023-01-10T11:00:00+01:00"
    assert [v.changed for v in mem.history(job, "u")] == [(), ("timestamp",)]


def test_updates_from_two_threads_both_land(open_memory, db_path):
    m = open_memory(db_path, "hybrid")
    job, _ = _user(m)
    errors: list[BaseException] = []

    def change(n: int) -> None:
        try:
            m.update(job, "u", metadata={"writer": n})
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=change, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    versions = m.history(job, "u")
    assert [v.version for v in versions] == [1, 2, 3, 4, 5]
    assert m.get(job, "u").metadata == versions[-1].metadata
    assert len([h for h in m.search("baker", "u", k=20) if h.id == job]) <= 1


def test_another_process_sees_the_update(open_memory, db_path):
    writer, reader = open_memory(db_path, "hybrid"), open_memory(db_path, "hybrid")
    job, _ = _user(writer)
    assert reader.search("Acme bakery", "u", k=1)[0].id == job  # its index is built
    writer.update(job, "u", text="I fly planes for a small airline.")
    hits = reader.search("airline pilot planes", "u", k=3)
    assert hits[0].id == job and hits[0].text == "I fly planes for a small airline."
    assert len({h.id for h in reader.search("work", "u", k=20)}) == len(FILLER) + 1
    assert [v.version for v in reader.history(job, "u")] == [1, 2]


# -- on every engine ----------------------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_a_history_of_changes_ranks_the_updated_text(open_memory, engine):
    """A hand-made history (baker at Acme -> nurse -> pilot at Skyline): every read
    returns the memory with its newest text, found by the newest words and never
    again by words only the old versions had."""
    m = open_memory(":memory:", engine)
    job, _ = _user(m)
    m.add_many(FILLER[:3], user_id="u")  # more after it: its position matters too
    m.consolidate("u")
    m.search("Acme bakery baker", "u", k=3)  # caches, graphs and short-term memory built
    m.recall("Acme bakery baker", "u", k=3)
    m.update(job, "u", text="I work as a nurse at the Mercy hospital.")
    m.update(job, "u", text="I now fly as a pilot for Skyline airways.")
    m.consolidate("u")
    for read in (m.search, m.recall, m.recall):  # ILSTMA: its cache, a second time
        hits = read("Which airline does Ana fly for as a pilot?", "u", k=3)
        hits = getattr(hits, "hits", hits)
        assert hits[0].id == job, engine
        assert hits[0].text == "I now fly as a pilot for Skyline airways."
    for old in ("Acme bakery baker downtown", "Mercy hospital nurse"):
        hits = m.search(old, "u", k=20)
        assert len({h.id for h in hits}) == len(hits)  # no stale second entry
        assert all("Acme" not in h.text and "Mercy" not in h.text for h in hits)
        rec = m.recall(old, "u", k=5)
        assert all("Acme" not in h.text and "Mercy" not in h.text for h in rec.hits)
        assert not any("acme" in c.lower() or "mercy" in c.lower() for c, _ in rec.concepts)
    assert m.count("u") == len(FILLER) + 4
    assert [v.text for v in m.history(job, "u")][-1] == "I now fly as a pilot for Skyline airways."


@pytest.mark.parametrize("engine", ENGINES)
def test_update_leaves_other_users_recall_unchanged(open_memory, engine):
    m = open_memory(":memory:", engine)
    mine, _ = _user(m, "u")
    _user(m, "other")
    m.consolidate("other")
    queries = ["Where does Ana work?", "whales documentary", "bread on weekends"]

    def seen() -> list:
        out = []
        for q in queries:
            out.append([h.to_dict() for h in m.search(q, "other", k=5, now=NOW)])
            rec = m.recall(q, "other", k=5, now=NOW)
            out.append(([h.to_dict() for h in rec.hits], rec.confidence, rec.refuse))
        return out

    before = seen()
    m.update(mine, "u", text="I teach chemistry at the high school.", metadata={"v": 2})
    m.update(mine, "u", timestamp=JUN)
    m.consolidate("u")
    assert seen() == before


@pytest.mark.parametrize("engine", ["hybrid", "synapse", "ilstma"])
def test_event_times_and_slots_follow_the_update(open_memory, engine):
    m = open_memory(":memory:", engine)
    old = m.add("I live in Lisbon", user_id="u", timestamp=JAN)
    new = m.add("I moved to Porto", user_id="u", timestamp=JUN)
    hits = m.search("Where do I live now?", "u", k=5, now=NOW)
    assert {h.id: h.superseded_by for h in hits} == {old: new, new: None}
    m.update(new, "u", text="I adopted a dog named Rex on 3 March 2023.")
    hits = {h.id: h for h in m.search("Where do I live now?", "u", k=5, now=NOW)}
    assert hits[old].superseded_by is None
    assert [t["start"][:10] for t in hits[new].event_times] == ["2023-03-03"]
    m.update(new, "u", text="I relocated to Braga")
    hits = {h.id: h for h in m.search("Where do I live now?", "u", k=5, now=NOW)}
    assert hits[old].superseded_by == new and hits[new].event_times == ()


# -- who may update, and what input ---------------------------------------------------------


def _not_found(call) -> str:
    with pytest.raises(NotFoundError) as info:
        call()
    return str(info.value)


def test_another_user_gets_the_same_not_found_as_a_missing_id(mem):
    job, _ = _user(mem, "owner")
    missing = "0" * 32
    for verb in ("update", "history"):
        kw = {"text": "stolen"} if verb == "update" else {}
        theirs = _not_found(lambda v=verb, k=kw: getattr(mem, v)(job, "intruder", **k))
        absent = _not_found(lambda v=verb, k=kw: getattr(mem, v)(missing, "intruder", **k))
        assert theirs.replace(job, "ID") == absent.replace(missing, "ID")
        # an intruder holding memories of its own learns no more
        mem.add("intruder's own memory", user_id="intruder")
        assert _not_found(lambda v=verb, k=kw: getattr(mem, v)(job, "intruder", **k)) == theirs
    assert mem.get(job, "owner").text == "I work as a baker at the Acme bakery downtown."
    assert len(mem.history(job, "owner")) == 1
    assert all(h.id != job for h in mem.memories("intruder"))


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({}, InvalidInputError),
        ({"text": None, "metadata": None, "timestamp": None}, InvalidInputError),
        ({"text": ""}, InvalidInputError),
        ({"text": "   \n\t"}, InvalidInputError),
        ({"text": "\u200b"}, InvalidInputError),
        ({"text": "x" * 100_001}, TextTooLongError),
        ({"text": 42}, InvalidTypeError),
        ({"text": b"bytes"}, InvalidTypeError),
        ({"metadata": "topic=job"}, InvalidTypeError),
        ({"metadata": {"when": datetime(2023, 1, 1)}}, InvalidTypeError),
        ({"metadata": {1: "not a str key"}}, InvalidTypeError),
        ({"timestamp": "yesterday"}, InvalidInputError),
        ({"timestamp": "2023-13-45"}, InvalidInputError),
        ({"timestamp": 1700000000}, InvalidTypeError),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(mem, kwargs, error):
    job, _ = _user(mem)
    before = mem.get(job, "u")
    with pytest.raises(error):
        mem.update(job, "u", **kwargs)
    assert mem.get(job, "u") == before
    assert len(mem.history(job, "u")) == 1
    assert mem.search("Acme bakery", "u", k=1)[0].id == job


@pytest.mark.parametrize(
    ("memory_id", "user_id", "error"),
    [
        ("", "u", InvalidInputError),
        (None, "u", InvalidTypeError),
        (42, "u", InvalidTypeError),
        ("x" * 10_000, "u", InvalidInputError),
        ("JOB", "", InvalidInputError),
        ("JOB", None, InvalidTypeError),
        ("JOB", ["u"], InvalidTypeError),
    ],
)
def test_bad_ids_are_refused(mem, memory_id, user_id, error):
    job, _ = _user(mem)
    memory_id = job if memory_id == "JOB" else memory_id
    with pytest.raises(error):
        mem.update(memory_id, user_id, text="changed")
    with pytest.raises(error):
        mem.history(memory_id, user_id)
    assert mem.get(job, "u").text.startswith("I work as a baker")


def test_an_unknown_id_is_not_found(mem):
    _user(mem)
    with pytest.raises(NotFoundError):
        mem.update("f" * 32, "u", text="anything")
    with pytest.raises(NotFoundError):
        mem.history("f" * 32, "u")
    with pytest.raises(NotFoundError):
        mem.update("f" * 32, "nobody", metadata={})


def test_a_closed_memory_refuses(open_memory):
    m = open_memory(":memory:", "bm25")
    job, _ = _user(m)
    m.close()
    with pytest.raises(RememError):
        m.update(job, "u", text="after close")
    with pytest.raises(RememError):
        m.history(job, "u")


# -- erasure ------------------------------------------------------------------------------


def _assert_absent(raw: bytes, *needles: str) -> None:
    for needle in needles:
        for enc in ("utf-8", "utf-16-le", "utf-16-be"):
            assert needle.encode(enc) not in raw, f"{needle!r} ({enc}) still on disk"


def _versions_of_a_secret(m: Memory, user: str) -> str:
    secret = m.add(f"first {MARKER}one version", user_id=user, metadata={"k": f"{MARKER}m1"})
    m.update(secret, user, text=f"second {MARKER}two version", metadata={"k": f"{MARKER}m2"})
    m.update(secret, user, text=f"third {MARKER}three version")
    return secret


@pytest.mark.parametrize("engine", ["hybrid", "synapse", "ilstma"])
def test_delete_erases_every_version(db_path: Path, embedder, raw_bytes, sql, engine):
    with Memory(db_path, engine=engine, embedder=embedder, llm="none") as m:
        keep = m.add_many(FILLER, user_id="u")
        secret = _versions_of_a_secret(m, "u")
        m.consolidate("u")
        assert f"{MARKER}one".encode() in raw_bytes(db_path)  # the history holds it
        assert m.delete(secret, "u") is True
        with pytest.raises(NotFoundError):
            m.history(secret, "u")
        _assert_absent(raw_bytes(db_path), MARKER, secret)
        assert [h.id for h in m.memories("u")] == keep
    _assert_absent(raw_bytes(db_path), MARKER, secret)
    assert sql(db_path, "SELECT COUNT(*) FROM memory_history") == [(0,)]


def test_delete_user_erases_every_version(db_path: Path, embedder, raw_bytes, sql):
    victim = f"victim-{MARKER}"
    with Memory(db_path, engine="hybrid", embedder=embedder, llm="none") as m:
        kept = m.add("the keeper's first words", user_id="keeper")
        m.update(kept, "keeper", text="the keeper's own words")
        _versions_of_a_secret(m, victim)
        assert m.delete_user(victim) == 1
        _assert_absent(raw_bytes(db_path), MARKER)
        assert len(m.history(kept, "keeper")) == 2
    _assert_absent(raw_bytes(db_path), MARKER)
    rows = sql(db_path, "SELECT DISTINCT user_id FROM memory_history")
    assert rows == [("keeper",)]


def test_a_process_without_the_history_still_erases_it(db_path: Path, embedder, sql):
    """The history's erasure rule is recorded in the file (``store/extension.py``): a
    store that never attached it (older code, a tool) erases the versions too."""
    from remem.store.sqlite import SQLiteStore

    with Memory(db_path, engine="bm25", embedder=embedder, llm="none") as m:
        secret = _versions_of_a_secret(m, "u")
    store = SQLiteStore(db_path)
    try:
        assert store.delete("u", [secret]) == [secret]
    finally:
        store.close()
    assert sql(db_path, "SELECT COUNT(*) FROM memory_history") == [(0,)]


def test_update_and_history_on_postgres(pg_url, open_memory):
    m = open_memory(pg_url, "synapse")
    other = open_memory(pg_url, "synapse")  # a second worker on the same database
    job, filler = _user(m)
    assert other.search("Acme bakery", "u", k=1)[0].id == job
    m.update(job, "u", text="I now fly as a pilot for Skyline airways.", metadata={"v": 2})
    m.update(job, "u", timestamp=JUN)
    hits = other.search("Which airline does Ana fly for?", "u", k=3)
    assert hits[0].id == job and hits[0].text.startswith("I now fly")
    assert [v.changed for v in other.history(job, "u")] == [
        (),
        ("text", "metadata"),
        ("timestamp",),
    ]
    with pytest.raises(NotFoundError):
        other.update(job, "intruder", text="x")
    assert m.delete(job, "u") is True
    with pytest.raises(NotFoundError):
        other.history(job, "u")
    assert [h.id for h in other.memories("u")] == filler
