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
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

import numpy as np

from .engines.ilstma.storage import ILSTMA_TABLES, IlstmaStorage
from .errors import InvalidInputError
from .store.base import Store, timestamp_epoch
from .types import NewMemory, Passages
from .validation import build_memory_item, parse_timestamp

FORMAT = "remem.global-memory-table/1"
DAY = 86_400.0
MAX_RECALL_TIMES = 2**31 - 1
"""Recall counts are 32-bit in storage, and no real memory is recalled 2 billion times."""


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
                "embedding": m.embedding.astype(np.float32).tolist()
                if m.embedding is not None
                else None,
            }
        )
        if m.passages is not None:  # a long memory: its passages and their vectors
            entries[-1]["passages"] = [list(span) for span in m.passages.spans]
            if m.passages.vectors is not None:
                entries[-1]["passage_embeddings"] = m.passages.vectors.astype(np.float32).tolist()
    return {"format": FORMAT, "user_id": user_id, "embedder": embedder_id, "entries": entries}


def write_json(data: dict[str, Any], path: str | os.PathLike[str]) -> None:
    """Write atomically (temp file + rename): a crash never leaves half a table. A
    path that cannot be written (no such folder, a folder, no permission) is an
    InvalidInputError, as a table that cannot be read is, and leaves no file behind."""
    tmp = f"{os.fspath(path)}.tmp-{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(data, fh, ensure_ascii=False)
        os.replace(tmp, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise InvalidInputError(
            f"cannot write a memory table to {os.fspath(path)!r}: {exc.strerror or exc}"
        ) from None


@dataclass
class ImportedTable:
    memories: list[NewMemory]
    vectors: np.ndarray | None  # None: embed again (another embedder made the file)
    meta: list[tuple[int, float]]  # (recall times, last recall) per memory
    #: per memory, its passages as the file gives them (None: none in the file)
    passages: list[Passages | None] | None = None


def read(path: str | os.PathLike[str], embedder_id: str, dim: int, max_chars: int) -> ImportedTable:
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidInputError(
            f"cannot read a memory table from {os.fspath(path)!r}: {exc}"
        ) from None
    return parse(data, embedder_id, dim, max_chars)


def parse(data: Any, embedder_id: str, dim: int, max_chars: int) -> ImportedTable:
    """Validate a table already decoded from JSON (a file or a request body)."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InvalidInputError(f"not a remem memory table (expected format {FORMAT!r})")
    entries = data.get("entries")
    if not isinstance(entries, list):
        raise InvalidInputError("the table has no 'entries' list")
    same_embedder = data.get("embedder") == embedder_id
    memories, vectors, meta = [], [], []
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
        memories.append(build_memory_item(item, i, max_chars))
        times = e.get("recall_times", 1)
        if (
            not isinstance(times, int)
            or isinstance(times, bool)
            or not 0 <= times <= MAX_RECALL_TIMES
        ):
            raise InvalidInputError(
                f"entry {i}: recall_times must be a whole number from 0 to {MAX_RECALL_TIMES:,}"
            )
        try:
            last = timestamp_epoch(parse_timestamp(str(e["last_recall"])))
        except (KeyError, ValueError):
            last = timestamp_epoch(memories[-1].timestamp)
        meta.append((times, last))
        if same_embedder:
            vec = e.get("embedding")
            if (
                not isinstance(vec, list)
                or len(vec) != dim
                or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in vec)
            ):
                raise InvalidInputError(f"entry {i}: embedding must be {dim} finite numbers")
            vectors.append(vec)
            passages.append(_passages(e, i, dim, len(memories[-1].text)))
    arr = np.asarray(vectors, dtype=np.float32) if same_embedder and vectors else None
    return ImportedTable(memories, arr, meta, passages if arr is not None else None)


def _passages(e: dict[str, Any], i: int, dim: int, length: int) -> Passages | None:
    """An entry's passages, checked (spans inside its text, one vector each)."""
    spans, vecs = e.get("passages"), e.get("passage_embeddings")
    if spans is None and vecs is None:
        return None
    problem = f"entry {i}: passages must be [start, end] spans of its text, each with {dim} "
    problem += "finite numbers in passage_embeddings"
    if not isinstance(spans, list) or not isinstance(vecs, list) or len(spans) != len(vecs):
        raise InvalidInputError(problem)
    for span, vec in zip(spans, vecs, strict=True):
        if (
            not isinstance(span, list)
            or len(span) != 2
            or not all(isinstance(x, int) and not isinstance(x, bool) for x in span)
            or not 0 <= span[0] < span[1] <= length
            or not isinstance(vec, list)
            or len(vec) != dim
            or not all(isinstance(x, (int, float)) and math.isfinite(x) for x in vec)
        ):
            raise InvalidInputError(problem)
    return Passages(tuple((int(a), int(b)) for a, b in spans), np.asarray(vecs, dtype=np.float32))


def _index_key(e: Any) -> float:
    index = e.get("index") if isinstance(e, dict) else None
    return float(index) if isinstance(index, (int, float)) else math.inf
