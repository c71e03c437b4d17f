"""One hit shape, serialised one way: ``Hit.to_dict`` (what ``--json``, the HTTP API and
the MCP tools send) and the HTTP model ``HitOut`` are both read off the ``Hit``
dataclass's fields, so a field added to Hit reaches every face without a second edit."""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from datetime import datetime, timezone

import pytest

from remem.types import Hit

WHEN = datetime(2024, 5, 8, 13, 56, tzinfo=timezone.utc)
TOLD = {
    "start": "2024-05-04T00:00:00+00:00",
    "end": "2024-05-05T00:00:00+00:00",
    "granularity": "day",
    "words": "on Saturday",
}
HIT = Hit("m1", "We met in Lisbon.", 0.75, "Ana", WHEN, "s1", {"turn": "D1:3"}, (TOLD,))
NAMES = [f.name for f in fields(Hit)]


def test_to_dict_is_every_field_in_order_with_the_time_as_iso_8601():
    assert HIT.to_dict() == {
        "id": "m1",
        "text": "We met in Lisbon.",
        "score": 0.75,
        "speaker": "Ana",
        "timestamp": "2024-05-08T13:56:00+00:00",
        "session_id": "s1",
        "metadata": {"turn": "D1:3"},
        "event_times": (TOLD,),  # a tuple: json.dumps writes it as a list
        "superseded_by": None,
    }
    assert list(HIT.to_dict()) == NAMES
    assert json.loads(json.dumps(HIT.to_dict()))["event_times"] == [TOLD]


def test_http_model_is_derived_from_the_hit_fields():
    pytest.importorskip("pydantic")
    from remem.serve.routes.models import HitOut

    assert list(HitOut.model_fields) == NAMES
    assert HitOut.model_validate(HIT.to_dict()).model_dump() == HIT.to_dict()
    schema = HitOut.model_json_schema()
    assert schema["title"] == "HitOut"
    assert schema["required"] == NAMES  # to_dict always sends every field
    assert schema["properties"]["timestamp"] == {
        "type": "string",
        "title": "Timestamp",
        "description": "ISO 8601, as stored",
    }
    # the event times: a list of objects of strings (start, end, granularity, words)
    told = schema["properties"]["event_times"]
    assert told["type"] == "array"
    assert told["items"] == {"additionalProperties": {"type": "string"}, "type": "object"}


@dataclass(frozen=True)
class _Wider(Hit):
    """Hit with one more field, as a later version might add."""

    reached: str = ""
    seen: datetime = WHEN


def test_a_field_added_to_hit_reaches_to_dict_and_the_http_model(monkeypatch):
    pytest.importorskip("pydantic")
    from remem.serve.routes import models

    wider = _Wider(**{f.name: getattr(HIT, f.name) for f in fields(Hit)}, reached="anchor")
    assert wider.to_dict()["reached"] == "anchor"
    assert wider.to_dict()["seen"] == WHEN.isoformat()
    monkeypatch.setattr(models, "Hit", _Wider)
    model = models._hit_model()
    assert list(model.model_fields) == [*NAMES, "reached", "seen"]
    assert model.model_validate(wider.to_dict()).model_dump() == wider.to_dict()
    assert model.model_json_schema()["properties"]["seen"]["type"] == "string"
