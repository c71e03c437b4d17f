"""``Memory``'s methods as exchanges with the HTTP API, each written once for the
sync and the async client (``exchange.py``): the same names, arguments and
defaults as ``Memory``'s, checked by the same rules, and results of the same types
as far as the JSON carries them (a ``Recall``'s ``segments`` and ``details``, an
engine's internal state, are not sent).

Adding a method is a function here that yields its request and returns its result,
and one line in each client class (``clients.py``).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import IO, Any

from ..answer.reader import Answer
from ..errors import InvalidTypeError, StoreError
from ..filters import Filters
from ..types import Added, Hit, Recall, Trace, Version
from ..validation import (
    MAX_TRACE_NODES,
    build_batch,
    build_memory,
    check_between,
    check_changes,
    check_choice,
    check_count,
    check_path,
    check_switch,
    check_user_id,
)
from .exchange import Exchange, Request
from .wire import UNCAPPED, filters_json, jsonable, memory_json, memory_path, query_json

PAGE = 1000
"""The most memories one listing request asks for: the server's cap on a page
(``serve/schema.py``'s ``MAX_PAGE``; a test holds the two equal)."""

IMPORT_PART_BYTES = 4 << 20
"""The most bytes of memory lines one import request carries: half the server's
default body cap (8 MiB), so the header line and a long last line still fit."""
NDJSON = "application/x-ndjson"

FiltersArg = Mapping[str, Any] | Filters | None

# -- writes -----------------------------------------------------------------------------


def add(
    text: str,
    user_id: str,
    *,
    speaker: str | None = None,
    timestamp: Any = None,
    session_id: str | None = None,
    metadata: dict[str, Any] | None = None,
) -> Exchange[str]:
    """Store one memory and return its id (its time is the caller's now when not given)."""
    user = check_user_id(user_id)
    new = build_memory(
        text,
        speaker=speaker,
        timestamp=timestamp,
        session_id=session_id,
        metadata=metadata,
        max_text_chars=UNCAPPED,
    )
    reply = yield Request("POST", "/v1/memories", body={"user_id": user, **memory_json(new)})
    return str(reply["id"])


def add_many(
    items: Iterable[Mapping[str, Any] | str], user_id: str, *, skip_blank: bool = False
) -> Exchange[Added]:
    """Store many memories in one transaction (all or none); ids come back in order.
    Blank items left out by ``skip_blank`` are left out here, before sending."""
    user = check_user_id(user_id)
    skip_blank = check_switch(skip_blank, "skip_blank")
    new, skipped = build_batch(items, UNCAPPED, skip_blank=skip_blank)
    if not new:
        return Added([], skipped)
    body = {"user_id": user, "items": [memory_json(m) for m in new]}
    reply = yield Request("POST", "/v1/memories/batch", body=body)
    return Added(reply["ids"], skipped)


def delete(memory_id: str, user_id: str) -> Exchange[bool]:
    """Delete one memory; False when the user has no memory with that id."""
    user = check_user_id(user_id)
    path = memory_path(memory_id)
    reply = yield Request("DELETE", path, params={"user_id": user}, missing=True)
    return reply is not None and bool(reply["deleted"])


def update(
    memory_id: str,
    user_id: str,
    *,
    text: str | None = None,
    metadata: dict[str, Any] | None = None,
    timestamp: Any = None,
) -> Exchange[Hit]:
    """Change a memory's text, metadata or time of saying (None: kept; metadata is
    replaced whole) and return it as it now is (score 1.0). ``NotFoundError`` when
    the user has no memory with that id; ``InvalidInputError`` when nothing is given
    to change."""
    user = check_user_id(user_id)
    path = memory_path(memory_id)
    text, metadata, when = check_changes(text, metadata, timestamp, UNCAPPED)
    changes = {"text": text, "metadata": metadata, "timestamp": when}
    body = {"user_id": user, **jsonable({k: v for k, v in changes.items() if v is not None})}
    return Hit.from_dict((yield Request("PATCH", path, body=body)))


def delete_user(user_id: str) -> Exchange[int]:
    """Erase everything of the user; returns the memories removed."""
    reply = yield Request("DELETE", "/v1/users", params={"user_id": check_user_id(user_id)})
    return int(reply["deleted"])


def import_data(
    data: Mapping[str, Any], user_id: str, *, skip_blank: bool = False
) -> Exchange[Added]:
    """Add every entry of an exported table (decoded JSON) to the user, all or nothing."""
    params = {"user_id": check_user_id(user_id), "skip_blank": _flag(skip_blank)}
    reply = yield Request("POST", "/v1/import", params=params, body=data)
    return Added(reply["ids"], reply.get("skipped", ()))


def import_table(
    path: str | os.PathLike[str], user_id: str, *, skip_blank: bool = False
) -> Exchange[Added]:
    """``import_data`` of a table file read here, on the client's machine."""
    from ..table import load

    data = load(check_path(path))
    return (yield from import_data(data, user_id, skip_blank=skip_blank))


def _flag(value: Any, what: str = "skip_blank") -> str:
    return "true" if check_switch(value, what) else "false"


# -- reads ------------------------------------------------------------------------------


def search(
    query: str, user_id: str, k: int = 10, *, now: Any = None, filters: FiltersArg = None
) -> Exchange[list[Hit]]:
    """The user's k most relevant memories for the query, best first."""
    reply = yield Request(
        "POST", "/v1/search", body=query_json("query", query, user_id, k, now, filters)
    )
    return [Hit.from_dict(h) for h in reply["hits"]]


def recall(
    query: str,
    user_id: str,
    k: int = 10,
    *,
    now: Any = None,
    explain: bool = True,
    filters: FiltersArg = None,
) -> Exchange[Recall]:
    """Search plus the engine's confidence, refusal verdict and explanations (the
    server always explains: ``explain`` is accepted for ``Memory``'s signature)."""
    body = query_json("query", query, user_id, k, now, filters)
    return Recall.from_dict((yield Request("POST", "/v1/recall", body=body)))


def trace(
    query: str,
    user_id: str,
    k: int = 10,
    *,
    now: Any = None,
    limit: int = 40,
    filters: FiltersArg = None,
) -> Exchange[Trace]:
    """The recall plus the part of the engine's graph the query activated."""
    check_user_id(user_id)
    limit = check_between(limit, "limit", 1, MAX_TRACE_NODES)
    body = {**query_json("query", query, user_id, k, now, filters), "limit": limit}
    return Trace.from_dict((yield Request("POST", "/v1/trace", body=body)))


def answer(
    question: str, user_id: str, k: int = 10, *, now: Any = None, filters: FiltersArg = None
) -> Exchange[Answer]:
    """Answer from the user's memory, or refuse ("Not mentioned in the conversation")."""
    body = query_json("question", question, user_id, k, now, filters)
    return Answer.from_dict((yield Request("POST", "/v1/answer", body=body)))


def context(
    query: str,
    user_id: str,
    *,
    k: int = 10,
    max_tokens: int = 1000,
    now: Any = None,
    filters: FiltersArg = None,
) -> Exchange[str]:
    """A prompt-ready block of the user's memory within ``max_tokens`` ("" when
    nothing is recalled)."""
    body = query_json("query", query, user_id, k, now, filters)
    body["max_tokens"] = check_count(max_tokens, "max_tokens")
    return str((yield Request("POST", "/v1/context", body=body))["context"])


def get(memory_id: str, user_id: str) -> Exchange[Hit | None]:
    """One memory by id (score 1.0), or None; another user's id looks missing."""
    user = check_user_id(user_id)
    path = memory_path(memory_id)
    reply = yield Request("GET", path, params={"user_id": user}, missing=True)
    return None if reply is None else Hit.from_dict(reply)


def history(memory_id: str, user_id: str) -> Exchange[list[Version]]:
    """The memory's versions, oldest first (the last is the memory as it is now);
    ``NotFoundError`` as :func:`update`."""
    user = check_user_id(user_id)
    path = memory_path(memory_id) + "/history"
    reply = yield Request("GET", path, params={"user_id": user})
    return [Version.from_dict(v) for v in reply["versions"]]


def memories(
    user_id: str, *, limit: int | None = None, offset: int = 0, filters: FiltersArg = None
) -> Exchange[list[Hit]]:
    """The user's memories in insertion order; ``limit=None`` reads them all, a page
    of at most :data:`PAGE` per request."""
    params: dict[str, Any] = {"user_id": check_user_id(user_id)}
    want = None if limit is None else check_count(limit, "limit")
    offset = check_count(offset, "offset", zero=True)
    shown = filters_json(filters)
    if shown is not None:
        params["filters"] = _compact(shown)
    out: list[Hit] = []
    while want is None or len(out) < want:
        page = PAGE if want is None else min(PAGE, want - len(out))
        reply = yield Request(
            "GET", "/v1/memories", params={**params, "limit": page, "offset": offset + len(out)}
        )
        out += [Hit.from_dict(h) for h in reply["memories"]]
        if len(reply["memories"]) < page:
            break
    return out


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def count(user_id: str) -> Exchange[int]:
    """The user's memories in all."""
    params = {"user_id": check_user_id(user_id), "limit": 1}
    return int((yield Request("GET", "/v1/memories", params=params))["count"])


def users() -> Exchange[list[str]]:
    """The users of the key's tenant (their own names, never the stored ones)."""
    return list((yield Request("GET", "/v1/users"))["users"])


def short_term(user_id: str) -> Exchange[dict[str, Any]]:
    """The engine's short-term memory of the user (ILSTMA)."""
    params = {"user_id": check_user_id(user_id)}
    return dict((yield Request("GET", "/v1/short-term", params=params)))


def export_data(user_id: str) -> Exchange[dict[str, Any]]:
    """The user's global memory table as a JSON-ready dict."""
    params = {"user_id": check_user_id(user_id)}
    return dict((yield Request("GET", "/v1/export", params=params)))


def export_table(user_id: str, path: str | os.PathLike[str]) -> Exchange[int]:
    """Write the user's global memory table to ``path`` on the client's machine;
    returns the number of entries."""
    from ..table import write_json

    path = check_path(path)
    data = yield from export_data(user_id)
    write_json(data, path)
    return len(data["entries"])


def export_jsonl(
    user_id: str, target: str | os.PathLike[str] | IO[Any], *, vectors: bool = False
) -> Exchange[int]:
    """The user's JSONL export (``GET /v1/export/jsonl``) written to ``target`` on the
    client's machine (a path, written atomically, or an open file); returns the
    number of memories. The answer is read whole before it is written."""
    from ..transfer import write

    params = {"user_id": check_user_id(user_id), "vectors": _flag(vectors, "vectors")}
    if not isinstance(target, (str, os.PathLike)) and not hasattr(target, "write"):
        raise InvalidTypeError(
            f"target must be a path or an open file, not {type(target).__name__}"
        )
    text = yield Request("GET", "/v1/export/jsonl", params=params, raw=True)
    return write(str(text).splitlines(keepends=True), target)


def import_jsonl(
    source: str | os.PathLike[str] | IO[Any], user_id: str, *, on_conflict: str = "error"
) -> Exchange[int]:
    """Add a JSONL export read here (a path or an open file) to the user; returns the
    number added. Every line is checked here first when the file can be read twice
    (a bad one sends nothing); it is then sent in parts under the server's body cap
    (:data:`IMPORT_PART_BYTES`), each with the header line and each all or nothing on
    the server, so a conflict the server finds in a later part leaves the earlier
    parts imported (``on_conflict="skip"`` runs it again)."""
    from .. import transfer

    params = {
        "user_id": check_user_id(user_id),
        "on_conflict": check_choice(on_conflict, "on_conflict", ("error", "skip")),
    }
    start = transfer.rewind(source)
    if start is not None:
        with transfer.opened(source) as fh:
            for _ in transfer.read(fh, "", 0, UNCAPPED):
                pass
        if not isinstance(source, (str, os.PathLike)):
            source.seek(start)
    n = 0
    with transfer.opened(source) as fh:
        for part in transfer.parts(fh, IMPORT_PART_BYTES):
            reply = yield Request(
                "POST", "/v1/import/jsonl", params=params, content=part, content_type=NDJSON
            )
            n += int(reply["imported"])
    return n


def ping() -> Exchange[None]:
    """Raise unless the server and its store answer (``StoreError`` when they do not)."""
    reply = yield Request("GET", "/v1/health")
    if not isinstance(reply, dict) or reply.get("status") != "ok":
        raise StoreError("the server's health check did not answer ok")
