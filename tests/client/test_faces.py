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
    Recall,
    TextTooLongError,
    Trace,
)

TURNS = [
    {
        "text": "I adopted a retired racing greyhound named Biscuit last spring.",
        "speaker": "Bob",
        "timestamp": "2023-05-08T13:56:00+00:00",
        "session_id": "s1",
        "metadata": {"source": "chat", "turn": 1, "tags": ["pets", "dog"]},
    },
    {
        "text": "My sister is getting married in Lisbon next September.",
        "speaker": "Bob",
        "timestamp": "2023-05-09T10:00:00+00:00",
        "session_id": "s1",
    },
    {
        "text": "I'm allergic to penicillin, so I always tell new doctors.",
        "speaker": "Bob",
        "timestamp": "2023-06-01T09:30:00+00:00",
        "session_id": "s2",
        "metadata": {"source": "intake form"},
    },
]


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
    (
        "answer",
        ("q", "bob"),
        {"filters": {"after": "2024-01-01", "before": "2023-01-01"}},
        InvalidFilterError,
    ),  # noqa: E501
    ("get", ("", "bob"), {}, InvalidInputError),
    ("delete", (None, "bob"), {}, InvalidTypeError),
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
