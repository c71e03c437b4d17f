"""Arguments as the HTTP API's JSON takes them, checked first by the library's own
rules (``validation.py``, ``filters.py``): a bad argument raises the very error
``Memory`` raises for it, before any request is sent. The server checks again; what
only it can know (its ``max_text_chars``, its caps on ``k`` and pages) comes back
as its error code (``failures.py``).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from datetime import date, datetime
from typing import Any
from urllib.parse import quote

from ..filters import check_filters
from ..types import NewMemory
from ..validation import check_id, check_k, check_text, check_user_id, parse_timestamp

UNCAPPED = sys.maxsize
"""The text limit checked here: the server holds the real one (its
``max_text_chars``) and answers ``text_too_long`` over it."""


def memory_json(new: NewMemory) -> dict[str, Any]:
    """A checked memory as the API's memory object (``MemoryIn``): its time as ISO 8601,
    the fields it does not have left out."""
    out: dict[str, Any] = {"text": new.text, "timestamp": new.timestamp.isoformat()}
    if new.speaker is not None:
        out["speaker"] = new.speaker
    if new.session_id is not None:
        out["session_id"] = new.session_id
    if new.metadata:
        out["metadata"] = new.metadata
    return out


def jsonable(value: Any) -> Any:
    """A checked value as JSON carries it: times as ISO 8601, tuples as lists."""
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    return value


def filters_json(filters: Any) -> dict[str, Any] | None:
    """``filters=`` checked as ``Memory`` checks it, then as JSON (None: no filter)."""
    checked = check_filters(filters)
    return None if checked is None else jsonable(checked.shown)


def query_json(
    field: str, query: Any, user_id: Any, k: Any, now: Any, filters: Any
) -> dict[str, Any]:
    """The body of a search, recall, trace or answer (``field``: ``query`` or
    ``question``), its arguments checked in ``Memory``'s order."""
    query = check_text(query, UNCAPPED, what="query" if field == "query" else "question")
    body: dict[str, Any] = {"user_id": check_user_id(user_id), field: query, "k": check_k(k)}
    if now is not None:
        body["now"] = parse_timestamp(now, what="now").isoformat()
    shown = filters_json(filters)
    if shown is not None:
        body["filters"] = shown
    return body


def memory_path(memory_id: Any) -> str:
    """``/v1/memories/{id}`` for a checked id, quoted: an id may hold any character."""
    return "/v1/memories/" + quote(check_id(memory_id, "memory id"), safe="")
