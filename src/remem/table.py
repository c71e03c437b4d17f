"""The global memory table (ILSTMA section 3.2) as one JSON file, for any engine.

Every memory of a user is a table entry: index (creation order), creation time,
days since last recall, recall times, text and embedding. The recall metadata lives
in ILSTMA's tables (``engines/ilstma/storage.py``; rows only for entries recalled at
least once; the others have recall times 1 and were last "recalled" when created),
which every store has attached, whatever the engine. ``export`` writes the paper's one-file
shape; ``read`` validates such a file before anything is written, so a broken file
imports nothing.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import IO, Any, TypeVar

import numpy as np

from .embed.base import rankable, usable
from .engines.ilstma.storage import ILSTMA_TABLES, IlstmaStorage
from .errors import InvalidInputError
from .store.base import Store, timestamp_epoch
from .types import NewMemory, Passages
from .validation import build_memory_item, is_blank_item, parse_timestamp

T = TypeVar("T")

FORMAT = "remem.global-memory-table/1"
DAY = 86_400.0
MAX_RECALL_TIMES = 2**31 - 1
"""Recall counts are 32-bit in storage, and no real memory is recalled 2 billion times."""
VECTOR_RULE = "%d numbers, finite as float32, of length at most 1 (a unit vector)"
"""What an embedding in a table must be, for messages (``%d``: the vector size)."""


def _meta(store: Store) -> IlstmaStorage:
    return IlstmaStorage(store.attach(ILSTMA_TABLES))


def write_meta(store: Store, user_id: str, rows: list[tuple[str, int, float]]) -> None:
    """Set (memory id, recall times, last recall) of imported entries."""
    _meta(store).table_meta_update(user_id, rows)


def export_rows(store: Store, user_id: str, embedder_id: str) -> dict[str, Any]:
    rows = store.load(user_id, with_embeddings=True)
    meta = _meta(store).table_meta(user_id)
    now = max((timestamp_epoch(m.timestamp) for m in rows), default=0.0)
    entries = []
    for m in rows:
        created = timestamp_epoch(m.timestamp)
        times, last = meta.get(m.id, (1, created))
        entries.append(
            {
                "index": m.seq,
                "id": m.id,
                "creation_time": m.timestamp.isoformat(),
                "time_interval": int(max(now - last, 0.0) // DAY),
                "recall_times": times,
                "last_recall": datetime.fromtimestamp(last, timezone.utc).isoformat(),
                "speaker": m.speaker,
                "session_id": m.session_id,
                "metadata": m.metadata,
                "text": m.text,
                # float32 values as exact doubles: the file round-trips bit for bit
                "embedding": _listed(m.embedding[None, :])[0] if m.embedding is not None else None,
            }
        )
        if m.passages is not None:  # a long memory: its passages and their vectors
            entries[-1]["passages"] = [list(span) for span in m.passages.spans]
            if m.passages.vectors is not None:
                entries[-1]["passage_embeddings"] = _listed(m.passages.vectors)
    return {"format": FORMAT, "user_id": user_id, "embedder": embedder_id, "entries": entries}


def _listed(vectors: np.ndarray) -> list[list[float]]:
    """Stored vectors as JSON lists, one that cannot be ranked (``embed.base.rankable``)
    as zeros, as the indexes count it: the file stays valid JSON and imports again."""
    return rankable(np.asarray(vectors, dtype=np.float32)).tolist()


def write_json(data: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write atomically (:func:`write_atomically`): a crash never leaves half a
    table. A path that cannot be written (no such folder, a folder, no permission) is
    an InvalidInputError, as a table that cannot be read is, and leaves no file."""
    write_atomically(path, lambda fh: json.dump(data, fh, ensure_ascii=False), "a memory table")


def write_atomically(path: str | os.PathLike[str], write: Callable[[IO[str]], T], what: str) -> T:
    """``write`` into a temporary file beside ``path``, then rename it there: a
    failure or an interruption leaves no half file and no temporary one; a path
    that cannot be written is an InvalidInputError naming ``what`` was written.
    Returns what ``write`` returns."""
    tmp = f"{os.fspath(path)}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            out = write(fh)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise InvalidInputError(
            f"cannot write {what} to {os.fspath(path)!r}: {exc.strerror or exc}"
        ) from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    return out


@dataclass
class ImportedTable:
    memories: list[NewMemory]
    vectors: np.ndarray | None  # None: embed again (another embedder made the file)
    meta: list[tuple[int, float]]  # (recall times, last recall) per memory
    #: per memory, its passages as the file gives them (None: none in the file)
    passages: list[Passages | None] | None = None
    #: positions (in table order) of entries left out as blank (``skip_blank``)
    skipped: list[int] = field(default_factory=list)


def read(
    path: str | os.PathLike[str],
    embedder_id: str,
    dim: int,
    max_chars: int,
    *,
    skip_blank: bool = False,
) -> ImportedTable:
    return parse(load(path), embedder_id, dim, max_chars, skip_blank=skip_blank)


def load(path: str | os.PathLike[str]) -> Any:
    """A table file's JSON, not yet checked (``remem.Client`` sends it to the server,
    which checks it as :func:`parse` does); a file that cannot be read or decoded is
    an InvalidInputError."""
    try:
        with open(path, encoding="utf-8") as fh:
            return json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(
            f"cannot read a memory table from {os.fspath(path)!r}: {exc}"
        ) from None


def parse(
    data: Any, embedder_id: str, dim: int, max_chars: int, *, skip_blank: bool = False
) -> ImportedTable:
    """Validate a table already decoded from JSON (a file or a request body).
    ``skip_blank``: an entry whose text is blank is left out (its other fields but
    its vectors still checked) rather than refusing the table."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidInputError(f"not a remem memory table (expected format {FORMAT!r})")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise InvalidInputError("the table has no 'entries' list")
    same_embedder = data.get("embedder") == embedder_id
    memories, vectors, meta, skipped = [], [], [], []
    passages: list[Passages | None] = []
    for i, e in enumerate(sorted(entries, key=_index_key)):
        if not isinstance(e, dict):
            raise InvalidInputError(f"entry {i} is not an object")
        if not isinstance(e.get("text"), str):
            raise InvalidInputError(f"entry {i} has no 'text'")
        item = {
            "text": e.get("text"),
            "speaker": e.get("speaker"),
            "timestamp": e.get("creation_time"),
            "session_id": e.get("session_id"),
            "metadata": e.get("metadata") or {},
        }
        times = _recall_times(e, i)
        if skip_blank and is_blank_item(item, i, max_chars):
            skipped.append(i)
            continue
        memories.append(build_memory_item(item, i, max_chars))
        try:
            last = timestamp_epoch(parse_timestamp(str(e["last_recall"])))
        except (KeyError, ValueError):
            last = timestamp_epoch(memories[-1].timestamp)
        meta.append((times, last))
        if same_embedder:
            vec = check_vector(e.get("embedding"), dim)
            if vec is None:
                raise InvalidInputError(f"entry {i}: embedding must be {VECTOR_RULE % dim}")
            vectors.append(vec)
            spans, vecs = e.get("passages"), e.get("passage_embeddings")
            passages.append(check_passages(spans, vecs, f"entry {i}", dim, len(memories[-1].text)))
    arr = np.stack(vectors) if same_embedder and vectors else None
    return ImportedTable(memories, arr, meta, passages if arr is not None else None, skipped)


def _recall_times(e: dict[str, Any], i: int) -> int:
    times = e.get("recall_times", 1)
    if not isinstance(times, int) or isinstance(times, bool) or not 0 <= times <= MAX_RECALL_TIMES:
        raise InvalidInputError(
            f"entry {i}: recall_times must be a whole number from 0 to {MAX_RECALL_TIMES:,}"
        )
    return times


def check_passages(spans: Any, vecs: Any, where: str, dim: int, length: int) -> Passages | None:
    """A memory's passages as a file gives them, checked (spans inside its text of
    ``length`` characters, one vector each); ``where`` names it in messages."""
    if spans is None and vecs is None:
        return None
    problem = f"{where}: passages must be [start, end] spans of its text, each with "
    problem += f"{VECTOR_RULE % dim} in its passage vectors"
    if not isinstance(spans, list) or not isinstance(vecs, list) or len(spans) != len(vecs):
        raise InvalidInputError(problem)
    checked = [check_vector(vec, dim) for vec in vecs]
    for span, vec in zip(spans, checked, strict=True):
        if (
            not isinstance(span, list)
            or len(span) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in span)
            or not 0 <= span[0] < span[1] <= length
            or vec is None
        ):
            raise InvalidInputError(problem)
    arrays = [vec for vec in checked if vec is not None]  # all of them, checked above
    return Passages(tuple((int(a), int(b)) for a, b in spans), np.stack(arrays))


def check_vector(raw: Any, dim: int) -> np.ndarray | None:
    """A vector of the file as float32, or None unless it is ``dim`` numbers (not
    booleans) that stay finite in float32 and make a vector no longer than a unit one
    (``embed.base.usable``): a component of 1e39 is finite in JSON and infinite in
    float32, and would rank that memory first for every query."""
    if (
        not isinstance(raw, list)
        or len(raw) != dim
        or any(type(x) not in (int, float) for x in raw)
    ):
        return None
    try:
        with np.errstate(over="ignore"):
            vec = np.asarray(raw, dtype=np.float32)
    except OverflowError:  # an int too large for any float
        return None
    return vec if usable(vec[None, :])[0] else None


def _index_key(e: Any) -> float:
    index = e.get("index") if isinstance(e, dict) else None
    return float(index) if isinstance(index, (int, float)) else math.inf
