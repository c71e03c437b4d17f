"""Export and import of one user's memories as versioned JSONL, for any engine and store.

The format (``remem-jsonl``, version :data:`VERSION`), one JSON object per line:

* line 1, the header: ``{"format": "remem-jsonl", "version": 1, "user_id": ...,
  "embedder": "name/size", "dim": size, "engine": ..., "exported_at": ISO time,
  "vectors": bool}``;
* then one line per memory, in insertion order: ``id``, ``user_id``, ``text``,
  ``timestamp`` (ISO 8601, as said), ``session_id``, ``speaker``, ``metadata``,
  ``history`` (its versions, oldest first, as ``Memory.history`` gives them:
  ``version``, ``text``, ``metadata``, ``timestamp``, ``changed``, ``at``; the last is
  the memory as it is), and with ``vectors=True`` its ``vector`` (and a long memory's
  ``passages`` spans and ``passage_vectors``).

Version rule: a reader takes every version up to its own and refuses a newer one by
name; fields it does not know are ignored, so adding a field never changes the
version, and changing what a field means always does.

Both directions stream. The export reads the store a page at a time
(``Store.pages``: a cursor on the sequence number) and yields one line per memory;
the import reads one line at a time and hands memories to the write path in
batches of :data:`BATCH`, so a million memories take the memory of one batch. What
an engine derives (SYNAPSE's graph, ILSTMA's table, the event times, the slots) is
derived again by the ordinary add path; vectors of the file are used only when its
embedder and size are this Memory's, else the text is embedded again.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import IO, Any

import numpy as np

from .errors import InvalidInputError, InvalidTypeError
from .store.base import Store
from .store.history import HISTORY_TABLES, page_versions
from .table import VECTOR_RULE, check_passages, check_vector, write_atomically
from .types import NewMemory, Passages, StoredMemory, Version
from .validation import build_memory, check_id, parse_timestamp

FORMAT = "remem-jsonl"
VERSION = 1
"""The newest version this code writes and reads (the module notes say the rule)."""
BATCH = 500
"""Memories per page read by an export, and per transaction written by an import."""
CHANGED = frozenset({"text", "metadata", "timestamp"})
"""What a version may name in ``changed``."""


# -- export ---------------------------------------------------------------------------------


def header(user_id: str, embedder: str, dim: int, engine: str, vectors: bool) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "user_id": user_id,
        "embedder": embedder,
        "dim": dim,
        "engine": engine,
        "exported_at": datetime.now(timezone.utc).isoformat(),
        "vectors": vectors,
    }


def export_lines(store: Store, user_id: str, head: Mapping[str, Any]) -> Iterator[str]:
    """The header, then one line per memory of ``user_id`` (each ending in a newline),
    read a page at a time. ``head["user_id"]`` is the name the file gives the user
    (a server writes its tenant's own name, never the stored one)."""
    yield _dumps(head)
    vectors, name = bool(head.get("vectors")), str(head["user_id"])
    history = store.attach(HISTORY_TABLES)
    for page in store.pages(user_id, BATCH, with_embeddings=vectors):
        kept = page_versions(history, user_id, page)
        for m in page:
            if m.id in kept:  # else erased since the page was read
                yield _dumps(record(m, name, kept[m.id], vectors=vectors))


def record(
    m: StoredMemory, name: str, history: Sequence[Version], *, vectors: bool
) -> dict[str, Any]:
    """One memory's line (as a dict)."""
    out: dict[str, Any] = {
        "id": m.id,
        "user_id": name,
        "text": m.text,
        "timestamp": m.timestamp.isoformat(),
        "session_id": m.session_id,
        "speaker": m.speaker,
        "metadata": m.metadata,
        "history": [v.to_dict() for v in history],
    }
    if vectors and m.embedding is not None:
        out["vector"] = _floats(m.embedding[None, :])[0]
        if m.passages is not None and m.passages.vectors is not None:
            out["passages"] = [list(span) for span in m.passages.spans]
            out["passage_vectors"] = _floats(m.passages.vectors)
    return out


def _floats(vectors: np.ndarray) -> list[list[float]]:
    """float32 values as exact doubles: the file round-trips bit for bit."""
    out: list[list[float]] = np.asarray(vectors, dtype=np.float32).tolist()
    return out


def _dumps(obj: Any) -> str:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"


def write(lines: Iterable[str], target: str | os.PathLike[str] | IO[Any]) -> int:
    """Write ``lines`` (a header, then memories) to a path (atomically: a temporary
    file renamed at the end, so a failed export leaves no half file) or to an open
    file (text or binary); returns the number of memories written."""
    if not isinstance(target, (str, os.PathLike)):
        return _write_to(lines, target)
    return write_atomically(target, lambda fh: _write_to(lines, fh), "an export")


def _write_to(lines: Iterable[str], fh: IO[Any]) -> int:
    binary = isinstance(fh, (io.RawIOBase, io.BufferedIOBase)) or "b" in getattr(fh, "mode", "")
    n = -1  # the header is no memory
    for line in lines:
        fh.write(line.encode("utf-8") if binary else line)
        n += 1
    return max(n, 0)


# -- import ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Header:
    """What an import needs of a file's first line."""

    version: int
    user_id: str | None
    #: whether the file's vectors are this Memory's (same embedder and size)
    same_vectors: bool


@dataclass(frozen=True)
class Record:
    """One memory line, checked."""

    line: int
    id: str
    memory: NewMemory
    history: tuple[Version, ...]
    vector: np.ndarray | None
    passages: Passages | None

    @property
    def created_at(self) -> float | None:
        """When its row was written: its last version's time (None: no history given)."""
        return self.history[-1].at.timestamp() if self.history else None


@contextlib.contextmanager
def opened(source: Any) -> Iterator[IO[Any]]:
    """A path opened for reading (closed afterwards), or an open file as it is."""
    if isinstance(source, (str, os.PathLike)):
        try:
            fh = open(source, "rb")  # noqa: SIM115 (closed below)
        except OSError as exc:
            raise InvalidInputError(
                f"cannot read an export from {os.fspath(source)!r}: {exc.strerror or exc}"
            ) from None
        with fh:
            yield fh
    elif hasattr(source, "readline"):
        yield source
    else:
        raise InvalidTypeError(
            f"an export is read from a path or an open file, not {type(source).__name__}"
        )


def rewind(source: Any) -> int | None:
    """Where an open file can be read again from (None: it cannot, a pipe); a path
    can always be read again (0)."""
    if isinstance(source, (str, os.PathLike)):
        return 0
    try:
        return int(source.tell()) if source.seekable() else None
    except (AttributeError, OSError, ValueError):
        return None


def read(fh: IO[Any], embedder: str, dim: int, max_chars: int) -> Iterator[Header | Record]:
    """The header, then each memory line, checked as it is read: an
    :class:`InvalidInputError` names the first bad line (1 is the header)."""
    n, head = 0, None
    for n, raw in enumerate(fh, start=1):
        obj = _decode(raw, n)
        if obj is None:
            continue  # a blank line (the newline after the last one)
        if head is None:
            head = check_header(obj, n, embedder, dim)
            yield head
        else:
            yield check_record(obj, n, head, dim, max_chars)
    if head is None:
        raise InvalidInputError("line 1: an export starts with its header; this one is empty")


def _decode(raw: bytes | str, n: int) -> dict[str, Any] | None:
    try:
        text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
        if not text.strip():
            return None
        obj = json.loads(text)
    except UnicodeDecodeError:
        raise InvalidInputError(f"line {n}: not UTF-8 text") from None
    except (ValueError, RecursionError) as exc:
        raise InvalidInputError(f"line {n}: not valid JSON ({exc})") from None
    if not isinstance(obj, dict):
        raise InvalidInputError(f"line {n}: not a JSON object")
    return obj


def check_header(obj: dict[str, Any], n: int, embedder: str, dim: int) -> Header:
    if obj.get("format") != FORMAT:
        raise InvalidInputError(
            f"line {n}: not a remem export (its first line must say format {FORMAT!r})"
        )
    version = obj.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise InvalidInputError(f"line {n}: 'version' must be a whole number from 1")
    if version > VERSION:
        raise InvalidInputError(
            f"line {n}: written in version {version} of {FORMAT}, newer than this remem "
            f"reads ({VERSION}); upgrade remem"
        )
    user = obj.get("user_id")
    same = obj.get("embedder") == embedder and obj.get("dim") == dim
    return Header(version, user if isinstance(user, str) else None, same)


def check_record(obj: dict[str, Any], n: int, head: Header, dim: int, max_chars: int) -> Record:
    """One memory line: its fields as ``add`` checks them, a timestamp required."""
    try:
        memory_id = check_id(obj.get("id"), "id")
        if not isinstance(obj.get("text"), str):
            raise InvalidInputError("has no 'text' (a str)")
        if obj.get("timestamp") is None:
            raise InvalidInputError("has no 'timestamp'")
        memory = build_memory(
            obj["text"],
            speaker=obj.get("speaker"),
            timestamp=obj["timestamp"],
            session_id=obj.get("session_id"),
            metadata=obj.get("metadata") or {},
            max_text_chars=max_chars,
        )
        history = _history(obj.get("history"), memory, max_chars)
        vector, passages = _vectors(obj, head, dim, len(memory.text))
    except (InvalidInputError, InvalidTypeError) as exc:
        raise _in_file(exc, f"line {n}") from None
    return Record(n, memory_id, memory, history, vector, passages)


def _in_file(exc: Exception, where: str) -> InvalidInputError:
    """A field's error as the file's: an InvalidInputError (a wrong type in a file is
    bad input, not a caller's wrong argument) saying where."""
    kind = type(exc) if isinstance(exc, InvalidInputError) else InvalidInputError
    return kind(f"{where}: {exc}")


def _history(raw: Any, memory: NewMemory, max_chars: int) -> tuple[Version, ...]:
    """The versions of a line, oldest first, numbered from 1; the last must be the
    memory as the line gives it."""
    if raw is None:
        return ()
    if not isinstance(raw, list) or not raw:
        raise InvalidInputError("'history' must be a non-empty list of versions")
    out = tuple(_version(v, i, max_chars) for i, v in enumerate(raw, start=1))
    last = out[-1]
    if (last.text, last.metadata, last.timestamp.isoformat()) != (
        memory.text,
        memory.metadata,
        memory.timestamp.isoformat(),
    ):
        raise InvalidInputError("the last version of 'history' is not the memory itself")
    return out


def _version(v: Any, number: int, max_chars: int) -> Version:
    if not isinstance(v, dict) or v.get("version") != number:
        raise InvalidInputError(f"history: version {number} must be an object numbered {number}")
    changed = v.get("changed", [])
    if not isinstance(changed, list) or not set(changed) <= CHANGED:
        raise InvalidInputError(f"history: version {number}'s 'changed' names {sorted(CHANGED)}")
    try:
        checked = build_memory(
            v.get("text"),
            timestamp=v.get("timestamp"),
            metadata=v.get("metadata") or {},
            max_text_chars=max_chars,
        )
        at = parse_timestamp(v.get("at"), what="at")
    except (InvalidInputError, InvalidTypeError) as exc:
        raise _in_file(exc, f"history: version {number}") from None
    if v.get("timestamp") is None or v.get("at") is None:
        raise InvalidInputError(f"history: version {number} needs 'timestamp' and 'at'")
    if at.tzinfo is None:
        at = at.replace(tzinfo=timezone.utc)
    return Version(number, checked.text, checked.metadata, checked.timestamp, tuple(changed), at)


def _vectors(
    obj: dict[str, Any], head: Header, dim: int, length: int
) -> tuple[np.ndarray | None, Passages | None]:
    """A line's vectors when they are this Memory's kind (else None: embed again)."""
    if not head.same_vectors or obj.get("vector") is None:
        return None, None
    vector = check_vector(obj["vector"], dim)
    if vector is None:
        raise InvalidInputError(f"'vector' must be {VECTOR_RULE % dim}")
    where = "its passages"
    return vector, check_passages(
        obj.get("passages"), obj.get("passage_vectors"), where, dim, length
    )


def batches(records: Iterator[Header | Record], size: int | None = None) -> Iterator[list[Record]]:
    """The memory lines of :func:`read`, ``size`` (default :data:`BATCH`) at a time
    (the header dropped)."""
    size = size or BATCH
    batch: list[Record] = []
    for item in records:
        if isinstance(item, Record):
            batch.append(item)
            if len(batch) >= size:
                yield batch
                batch = []
    if batch:
        yield batch


def parts(fh: IO[Any], limit: int) -> Iterator[bytes]:
    """An export's lines as request bodies of about ``limit`` bytes, each starting
    with the header line (a client sends a large export in several requests)."""
    head: bytes | None = None
    part: list[bytes] = []
    size = 0
    for raw in fh:
        line = raw.encode("utf-8") if isinstance(raw, str) else raw
        if not line.strip():
            continue
        if not line.endswith(b"\n"):
            line += b"\n"
        if head is None:
            head = line
            continue
        if part and size + len(line) > limit:
            yield head + b"".join(part)
            part, size = [], 0
        part.append(line)
        size += len(line)
    if head is not None and part:
        yield head + b"".join(part)
