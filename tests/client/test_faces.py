"""One suite over ``Memory``'s shared methods, run on four faces: ``Memory`` itself,
``AsyncMemory``, and ``Client`` and ``AsyncClient`` talking to a real ``remem
serve`` process (conftest.py). Each face starts empty; the same calls must give the
same results, and the same bad input the same error class."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest

from remem import (
    Answer,
    Filters,
    Hit,
    InvalidFilterError,
    InvalidInputError,
    InvalidTypeError,
    NotFoundError,
    Recall,
    TextTooLongError,
    Trace,
    Version,
)
from sample_conversation import BOB

TURNS = BOB


def _stored(face: Any, user: str = "bob") -> list[str]:
    return list(face.add_many(TURNS, user))


def test_add_then_get_gives_back_every_field(face: Any):
    when = datetime(2023, 5, 8, 13, 56, tzinfo=timezone.utc)
    mid = face.add(
        "I'm picking up the keys on Saturday",
        "bob",
        speaker="Bob",
        timestamp=when,
        session_id="s1",
        metadata={"n": 1, "tags": ["home"]},
    )
    hit = face.get(mid, "bob")
    assert isinstance(hit, Hit)
    assert (hit.id, hit.text, hit.score) == (mid, "I'm picking up the keys on Saturday", 1.0)
    assert (hit.speaker, hit.timestamp, hit.session_id) == ("Bob", when, "s1")
    assert hit.metadata == {"n": 1, "tags": ["home"]}
    assert hit.event_times[0]["start"].startswith("2023-05-13")  # the Saturday after


def test_search_recall_trace_and_answer_give_the_library_types(face: Any):
    ids = _stored(face)
    hits = face.search("What is the name of Bob's greyhound?", "bob", k=2)
    assert [type(h) for h in hits] == [Hit, Hit] and hits[0].id == ids[0]
    assert hits[0].metadata == TURNS[0]["metadata"]
    rec = face.recall("What is the name of Bob's greyhound?", "bob", k=3)
    assert isinstance(rec, Recall) and rec.hits[0].id == ids[0]
    assert set(rec.explanations) == {h.id for h in rec.hits}
    trace = face.trace("greyhound", "bob", k=2, limit=5)
    assert isinstance(trace, Trace) and trace.graph is False and trace.recall.hits
    ans = face.answer("What is the name of Bob's greyhound?", "bob", k=3)
    assert isinstance(ans, Answer) and "Biscuit" in ans.text and not ans.refused
    assert ans.evidence[0].id == ids[0]


def test_the_four_faces_rank_alike(face: Any):
    _stored(face)
    rec = face.recall("doctors and allergies", "bob", k=3)
    assert [h.text for h in rec.hits][0] == TURNS[2]["text"]
    assert len(rec.hits) == 3 and rec.refuse is False


def test_now_and_filters_travel(face: Any):
    ids = _stored(face)
    june = datetime(2023, 6, 1, tzinfo=timezone.utc)
    hits = face.search("anything about Bob", "bob", k=5, filters={"before": june})
    assert {h.id for h in hits} == set(ids[:2])
    typed = Filters(session_id="s2", metadata={"source": "intake form"})
    assert [h.id for h in face.search("Bob", "bob", filters=typed)] == [ids[2]]
    later = june + timedelta(days=10)
    assert face.recall("penicillin", "bob", k=1, now=later).hits[0].id == ids[2]
    listed = face.memories("bob", filters={"session_id": ["s1"]})
    assert [h.id for h in listed] == ids[:2]


def test_context_gives_the_same_block_on_every_face(face: Any):
    assert face.context("What is the name of Bob's greyhound?", "bob") == ""
    _stored(face)
    block = face.context("What is the name of Bob's greyhound?", "bob", k=2, max_tokens=60)
    assert isinstance(block, str) and len(block) <= 4 * 60
    assert f"[8 May 2023] Bob: {TURNS[0]['text']}" in block.splitlines()
    assert face.context("greyhound", "bob", filters={"session_id": "s2"}).count("\n") == 1
    assert face.context("greyhound", "someone else") == ""
    face.add_many(
        [
            {"text": "I live in Lisbon", "timestamp": "2023-01-10T12:00:00+00:00"},
            {"text": "I moved to Porto", "timestamp": "2023-06-10T12:00:00+00:00"},
        ],
        "ana",
    )
    lines = face.context("Where do I live now?", "ana", k=2, now="2023-07-01").splitlines()
    assert lines[1:] == [
        "[10 June 2023, latest] I moved to Porto",
        "[10 January 2023, superseded by a later memory] I live in Lisbon",
    ]


def test_listing_pages_and_counts(face: Any):
    ids = _stored(face)
    assert [h.id for h in face.memories("bob")] == ids
    assert [h.id for h in face.memories("bob", limit=1, offset=1)] == ids[1:2]
    assert face.memories("bob", offset=5) == []
    assert face.count("bob") == 3 and face.count("nobody") == 0
    assert face.users() == ["bob"]


def test_add_many_skips_blank_items_and_says_where(face: Any):
    added = face.add_many(["one thing", " \u200b ", {"text": "another"}], "bob", skip_blank=True)
    assert len(added) == 2 and added.skipped == [1]
    only_blank = face.add_many(["  "], "bob", skip_blank=True)
    assert list(only_blank) == [] and only_blank.skipped == [0]


def test_delete_get_and_erase(face: Any):
    ids = _stored(face)
    assert face.delete(ids[0], "bob") is True
    assert face.delete(ids[0], "bob") is False
    assert face.get(ids[0], "bob") is None
    assert face.get(ids[1], "someone else") is None
    assert face.delete_user("bob") == 2
    assert face.users() == [] and face.search("greyhound", "bob") == []


def test_export_and_import_round_trip(face: Any, tmp_path: Path):
    _stored(face)
    data = face.export_data("bob")
    assert len(data["entries"]) == 3
    assert list(face.import_data(data, "ann")) and face.count("ann") == 3
    path = tmp_path / "table.json"
    assert face.export_table("bob", path) == 3
    assert json.loads(path.read_text())["entries"][0]["text"] == TURNS[0]["text"]
    assert len(face.import_table(path, "cy", skip_blank=True)) == 3
    assert sorted(face.users()) == ["ann", "bob", "cy"]


def test_jsonl_export_and_import_keep_ids_times_and_history(face: Any, tmp_path: Path):
    ids = _stored(face)
    face.update(ids[0], "bob", text="I adopted a retired racing whippet named Pretzel.")
    path = tmp_path / "bob.jsonl"
    assert face.export_jsonl("bob", path, vectors=True) == 3
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert lines[0]["format"] == "remem-jsonl" and lines[0]["user_id"] == "bob"
    assert {r["id"] for r in lines[1:]} == set(ids)
    assert all(r["user_id"] == "bob" and len(r["vector"]) == 384 for r in lines[1:])
    assert face.import_jsonl(path, "ann") == 3
    # the ids are bob's in this store: ann's memories get ids of their own
    assert not {h.id for h in face.memories("ann")} & set(ids)
    by_text = {h.text: h for h in face.memories("ann")}
    for hit in face.memories("bob"):
        twin = by_text[hit.text]
        assert (twin.timestamp, twin.speaker, twin.session_id, twin.metadata) == (
            hit.timestamp,
            hit.speaker,
            hit.session_id,
            hit.metadata,
        )
        mine, theirs = face.history(hit.id, "bob"), face.history(twin.id, "ann")
        assert [(v.text, v.changed, v.at) for v in mine] == [
            (v.text, v.changed, v.at) for v in theirs
        ]
    with pytest.raises(InvalidInputError, match="line 1"):
        face.import_jsonl(_bad(tmp_path), "cy")
    assert face.count("cy") == 0


def _bad(tmp_path: Path) -> Path:
    path = tmp_path / "bad.jsonl"
    path.write_text('{"format": "remem-jsonl", "version": 99}\n')
    return path


def test_update_then_history_shows_both_versions_oldest_first(face: Any):
    ids = _stored(face)
    old, new = TURNS[0]["text"], "I adopted a retired racing whippet named Pretzel."
    hit = face.update(ids[0], "bob", text=new)
    assert isinstance(hit, Hit) and (hit.id, hit.text, hit.score) == (ids[0], new, 1.0)
    assert (hit.speaker, hit.session_id, hit.metadata) == ("Bob", "s1", TURNS[0]["metadata"])
    assert face.get(ids[0], "bob") == hit
    versions = face.history(ids[0], "bob")
    assert [type(v) for v in versions] == [Version, Version]
    assert [(v.version, v.text, v.changed) for v in versions] == [
        (1, old, ()),
        (2, new, ("text",)),
    ]
    assert versions[0].at <= versions[1].at and versions[1].at.utcoffset() is not None
    assert {v.timestamp for v in versions} == {datetime.fromisoformat(TURNS[0]["timestamp"])}


def test_search_finds_the_new_text_and_not_the_old(face: Any):
    ids = _stored(face)
    face.update(ids[0], "bob", text="I adopted a retired racing whippet named Pretzel.")
    top = face.search("What is the name of Bob's whippet?", "bob", k=1)[0]
    assert (top.id, top.text) == (ids[0], "I adopted a retired racing whippet named Pretzel.")
    hits = face.search("greyhound Biscuit", "bob", k=3)
    assert all("Biscuit" not in h.text and "greyhound" not in h.text for h in hits)


def test_update_metadata_and_time_travel(face: Any):
    ids = _stored(face)
    # the same instant in another zone is another time of saying: the offset must arrive
    later = "2023-05-08T15:56:00+02:00"
    hit = face.update(ids[0], "bob", metadata={}, timestamp=later)
    assert hit.metadata == {} and hit.timestamp == datetime.fromisoformat(later)
    assert hit.timestamp.utcoffset() == timedelta(hours=2)
    last = face.history(ids[0], "bob")[-1]
    assert (last.version, last.changed, last.metadata) == (2, ("metadata", "timestamp"), {})
    assert face.update(ids[1], "bob", metadata={"n": 2}).metadata == {"n": 2}


def _not_found(call: Any) -> str:
    with pytest.raises(NotFoundError) as caught:
        call()
    assert type(caught.value) is NotFoundError
    return str(caught.value)


def test_a_wrong_user_gets_the_same_not_found_as_a_missing_id(face: Any):
    ids = _stored(face)
    face.add("the intruder's own memory", "intruder")
    missing = "0" * 32
    for verb, kwargs in (("update", {"text": "stolen"}), ("history", {})):
        theirs = _not_found(lambda v=verb, k=kwargs: getattr(face, v)(ids[0], "intruder", **k))
        absent = _not_found(lambda v=verb, k=kwargs: getattr(face, v)(missing, "intruder", **k))
        assert theirs.replace(ids[0], "ID") == absent.replace(missing, "ID")
        assert "bob" not in theirs
    assert face.get(ids[0], "bob").text == TURNS[0]["text"]
    assert len(face.history(ids[0], "bob")) == 1


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"text": ""}, InvalidInputError),
        ({"text": " \u200b "}, InvalidInputError),
        ({}, InvalidInputError),
        ({"text": None, "metadata": None, "timestamp": None}, InvalidInputError),
        ({"timestamp": "yesterday"}, InvalidInputError),
        ({"timestamp": 1700000000}, InvalidTypeError),
        ({"text": 42}, InvalidTypeError),
        ({"metadata": "topic=job"}, InvalidTypeError),
        ({"text": "x" * 100_001}, TextTooLongError),
    ],
)
def test_a_bad_update_raises_the_same_error_and_changes_nothing(
    face: Any, kwargs: dict, error: type[Exception]
):
    ids = _stored(face)
    before = face.get(ids[0], "bob")
    with pytest.raises(error) as caught:
        face.update(ids[0], "bob", **kwargs)
    assert type(caught.value) is error
    assert face.get(ids[0], "bob") == before
    assert len(face.history(ids[0], "bob")) == 1


def test_ping_answers(face: Any):
    assert face.ping() is None


BAD = [
    ("add", ("", "bob"), {}, InvalidInputError),
    ("add", (5, "bob"), {}, InvalidTypeError),
    ("add", ("x" * 100_001, "bob"), {}, TextTooLongError),
    ("add", ("text", ""), {}, InvalidInputError),
    ("add", ("text", 7), {}, InvalidTypeError),
    ("add", ("text", "bob"), {"metadata": ["not", "a", "dict"]}, InvalidTypeError),
    ("add", ("text", "bob"), {"timestamp": "not a time"}, InvalidInputError),
    ("add", ("text", "bob"), {"speaker": "\u200b"}, InvalidInputError),
    ("add_many", ("just a string", "bob"), {}, InvalidTypeError),
    ("add_many", ([{"txt": "typo"}], "bob"), {}, InvalidInputError),
    ("add_many", (["ok"], "bob"), {"skip_blank": 1}, InvalidTypeError),
    ("search", ("q", "bob"), {"k": 0}, InvalidInputError),
    ("search", ("q", "bob"), {"k": "5"}, InvalidTypeError),
    ("search", ("  ", "bob"), {}, InvalidInputError),
    ("search", ("q", "bob"), {"filters": {"colour": "red"}}, InvalidFilterError),
    ("search", ("q", "bob"), {"filters": "s1"}, InvalidFilterError),
    ("recall", ("q", "bob"), {"now": "soon"}, InvalidInputError),
    ("trace", ("q", "bob"), {"limit": 0}, InvalidInputError),
    ("context", ("", "bob"), {}, InvalidInputError),
    ("context", ("q", ""), {}, InvalidInputError),
    ("context", ("q", "bob"), {"max_tokens": 0}, InvalidInputError),
    ("context", ("q", "bob"), {"max_tokens": "100"}, InvalidTypeError),
    ("context", ("q", "bob"), {"max_tokens": True}, InvalidTypeError),
    ("context", ("q", "bob"), {"k": 0}, InvalidInputError),
    ("context", ("q", "bob"), {"filters": {"colour": "red"}}, InvalidFilterError),
    (
        "answer",
        ("q", "bob"),
        {"filters": {"after": "2024-01-01", "before": "2023-01-01"}},
        InvalidFilterError,
    ),  # noqa: E501
    ("get", ("", "bob"), {}, InvalidInputError),
    ("delete", (None, "bob"), {}, InvalidTypeError),
    ("update", ("", "bob"), {"text": "x"}, InvalidInputError),
    ("update", ("some-id", "bob"), {}, InvalidInputError),
    ("update", ("some-id", "bob"), {"text": ""}, InvalidInputError),
    ("update", ("some-id", "bob"), {"timestamp": "not a time"}, InvalidInputError),
    ("history", (None, "bob"), {}, InvalidTypeError),
    ("history", ("some-id", ""), {}, InvalidInputError),
    ("memories", ("bob",), {"limit": 0}, InvalidInputError),
    ("memories", ("bob",), {"offset": -1}, InvalidInputError),
    ("short_term", ("bob",), {}, InvalidInputError),  # hybrid has no short-term memory
    ("import_data", ({"format": "something else"}, "bob"), {}, InvalidInputError),
    ("import_table", ("/no/such/table.json", "bob"), {}, InvalidInputError),
    ("export_table", ("bob", 42), {}, InvalidTypeError),
]


@pytest.mark.parametrize(
    ("method", "args", "kwargs", "error"), BAD, ids=[f"{b[0]}-{i}" for i, b in enumerate(BAD)]
)
def test_bad_input_raises_the_same_error_on_every_face(
    face: Any, method: str, args: tuple, kwargs: dict, error: type[Exception]
):
    with pytest.raises(error) as caught:
        getattr(face, method)(*args, **kwargs)
    assert type(caught.value) is error
    assert face.users() == []  # nothing stored
