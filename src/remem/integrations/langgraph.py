"""LangGraph: :class:`RememStore`, a ``BaseStore`` whose items are remem memories.

LangGraph's long-term memory is a store of JSON items under namespaces (tuples of
labels). Here **the first label of a namespace is the remem user**: an item under
``("u1", "memories")`` is a memory of user ``u1``, so every get, search and put
runs inside remem's hard per-user filter, and one user's items can never come back
for another (a search must name its user; ``namespace_prefix=()`` is refused).

Each indexed item is one memory: its text is the text to embed (the value's
``fields``, configured like LangGraph's own stores: ``index={"fields": ["text"]}``,
default ``["$"]``, the whole value as JSON; ``put(..., index=[...])`` per item), and
its metadata holds the item itself under ``"langgraph"`` (namespace below the user,
key, value, created and updated times), so values come back exactly as stored and
the items are ordinary memories too: ``remem search`` finds them, ``delete_user``
erases them. An item *not* indexed (``index=False``, or none of the fields in its
value) has no text to stand for it, so it is no memory: it is kept in the table
``langgraph_items`` beside the memories (the store's extension hook), where get,
list and filters find it and no search, recall or answer of remem does, as in
LangGraph's own stores. The table's erasure rule is recorded in the database, so
``delete_user`` erases those items too, from any process. Earlier versions kept
them as memories "langgraph item KEY"; the store moves such memories into the
table when it first reads their user, or all at once with :meth:`RememStore.migrate`.
A put replaces the item (the new copy is written before the old one is deleted, so
a crash between leaves both and the newer wins; nothing is lost) and keeps its
``created_at``.

Search with a ``query`` ranks by the Memory's engine (its scores are the engine's,
comparable within one result); without one, items come in the order they were
put. ``filter`` follows LangGraph's semantics (exact values, nested dicts,
``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``).

Cost: each batch reads the touched users' memories once (without vectors), so
the store suits agent memories (thousands of items a user), not bulk key-value
data. Values are limited as remem's metadata is (64,000 characters of JSON) and
the text to embed as its texts are (``Memory(max_text_chars=...)``); a value over
either is refused with a :class:`remem.RememError` before anything is written.
TTLs are not supported (``supports_ttl`` is False, as the base class expects).

Requires the ``langgraph`` extra.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from ._common import check_memory, require

require("langgraph.store.base", "langgraph")

from langgraph.store.base import (  # noqa: E402
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    MatchCondition,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)
from langgraph.store.base.embed import get_text_at_path, tokenize_path  # noqa: E402

from ..errors import InvalidInputError, InvalidTypeError  # noqa: E402
from ..memory import Memory  # noqa: E402
from ..store.extension import Extension, Tables, Tx  # noqa: E402
from ..types import Hit  # noqa: E402
from ..validation import check_metadata, check_text, check_user_id  # noqa: E402

#: The metadata key under which a memory holds its LangGraph item.
ITEM_KEY = "langgraph"

_OPERATORS = ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte")


_SQLITE_V1 = """
CREATE TABLE IF NOT EXISTS langgraph_items (
    user_id   TEXT NOT NULL,
    namespace TEXT NOT NULL,
    item_key  TEXT NOT NULL,
    record    TEXT NOT NULL,
    PRIMARY KEY (user_id, namespace, item_key)
)
"""
_POSTGRES_V1 = """
CREATE TABLE IF NOT EXISTS langgraph_items (
    user_id   TEXT COLLATE "C" NOT NULL,
    namespace TEXT COLLATE "C" NOT NULL,
    item_key  TEXT COLLATE "C" NOT NULL,
    record    TEXT NOT NULL,
    PRIMARY KEY (user_id, namespace, item_key)
)
"""

#: The items not indexed: one row each (``namespace`` is the JSON list of labels below
#: the user, ``record`` the item as a memory's metadata would hold it), erased with
#: their user.
ITEM_TABLES = Extension(
    name="langgraph",
    migrations={"sqlite": [(1, _SQLITE_V1)], "postgres": [(1, _POSTGRES_V1)]},
    user_tables=("langgraph_items",),
    doc="LangGraph items that are not indexed (remem.integrations.langgraph)",
)


@dataclass(frozen=True)
class _Stored:
    """One item as read back: from its memory (``memory_id``) or from the table of
    items not indexed (``memory_id`` None). A memory not indexed is one an earlier
    version wrote, to be moved into the table."""

    memory_id: str | None
    item: Item
    indexed: bool


@dataclass(frozen=True)
class _Prepared:
    """A put's checked value and, for an indexed item, the text its memory holds."""

    value: dict[str, Any]
    body: str | None

    @property
    def indexed(self) -> bool:
        return self.body is not None


#: the longest time text, for checking a record's size before its times are known
_LONGEST = "2000-01-01T00:00:00.000000+00:00"


class RememStore(BaseStore):
    """A LangGraph ``BaseStore`` over a :class:`remem.Memory` (see the module notes).

    ``index`` takes LangGraph's ``IndexConfig`` shape, of which only ``fields``
    applies: remem embeds with the Memory's own embedder, so ``dims`` and ``embed``
    are refused rather than silently ignored.
    """

    supports_ttl = False

    def __init__(self, memory: Memory, *, index: Mapping[str, Any] | None = None) -> None:
        self.memory = check_memory(memory)
        self._fields = _index_fields(index)
        self._shelf = _Shelf(self.memory.attach(ITEM_TABLES), self.memory.user_ref)
        # one batch at a time in this process: a put reads, writes, then deletes
        self._lock = threading.Lock()

    # -- BaseStore -----------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        """Run the operations in order (a get after a put in the same batch sees it)."""
        ops = list(ops)
        for op in ops:
            _check_op(op)
        # every value is checked before the first write: a bad one changes nothing
        prepared = {i: self._prepare(op) for i, op in enumerate(ops) if isinstance(op, PutOp)}
        with self._lock:
            return _Batch(self).run(ops, prepared)

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # remem is synchronous (SQLite, numpy): a worker thread keeps the loop free
        return await asyncio.to_thread(self.batch, list(ops))

    def migrate(self) -> int:
        """Move every user's items not indexed that an earlier version kept as memories
        ("langgraph item KEY", found by remem's searches) into the table of items not
        indexed now, rather than user by user as batches first read them; returns how
        many moved. Reads every user's memories once."""
        with self._lock:
            batch = _Batch(self)
            for user_id in self.memory.users():
                batch.load(user_id)
            return batch.moved

    # -- item <-> memory -----------------------------------------------------------

    def _prepare(self, op: PutOp) -> _Prepared | None:
        """A put's value, text and metadata, checked with remem's rules (None: a delete)."""
        if op.value is None:
            return None
        value = _check_value(op.value)
        text = self._text(op)
        body = None
        if text is not None:
            body = check_text(text, self.memory.max_text_chars, what="the text to embed")
        # the record as _put writes it, its times as long as any: within remem's limit
        longest = {"created_at": _LONGEST, "updated_at": _LONGEST, "indexed": False}
        record = {"namespace": list(op.namespace[1:]), "key": op.key, "value": value}
        check_metadata({ITEM_KEY: {**record, **longest}})
        return _Prepared(value, body)

    def _text(self, op: PutOp) -> str | None:
        """The text to embed for a put, or None when the item is not indexed."""
        if op.index is False:
            return None
        fields = self._fields if op.index is None else _index_fields({"fields": op.index})
        assert op.value is not None
        texts = [t for _, path in fields for t in get_text_at_path(op.value, path) if t.strip()]
        return "\n".join(texts) if texts else None


class _Shelf:
    """The table of items not indexed, through the store's extension hook (its
    queries run in the store's transactions, serialised with the user's writes)."""

    def __init__(self, tables: Tables, ref: Callable[[str], str]) -> None:
        self.tables = tables
        #: a user id as the store's user columns hold it (a keyed hash when encrypted)
        self.ref = ref

    def load(self, user_id: str) -> list[dict[str, Any]]:
        user_id = self.ref(user_id)
        with self.tables.read() as tx:
            rows = tx.all(
                "SELECT namespace, item_key, record FROM langgraph_items WHERE user_id = ?",
                (user_id,),
            )
            return [json.loads(_open_record(tx, user_id, *r)) for r in rows]

    def users(self, named: Iterable[str]) -> list[str]:
        """The users holding items here, by their plain ids: a user column holding a
        keyed hash is named by the store's users (``named``; an encrypted store lists
        every user who ever wrote, items here included)."""
        names = {self.ref(n): n for n in named}
        with self.tables.read() as tx:
            rows = tx.all("SELECT DISTINCT user_id FROM langgraph_items")
        return [names.get(r[0], r[0]) for r in rows]

    def put(self, user_id: str, record: dict[str, Any]) -> None:
        user_id = self.ref(user_id)
        record_json = json.dumps(record, ensure_ascii=False)
        with self.tables.write(user_id) as tx:
            row = _sealed_row(tx, user_id, _labels(record["namespace"]), record["key"], record_json)
            tx.run(
                "INSERT INTO langgraph_items (user_id, namespace, item_key, record) "
                "VALUES (?, ?, ?, ?) ON CONFLICT (user_id, namespace, item_key) "
                "DO UPDATE SET record = excluded.record",
                row,
            )

    def remove(self, namespace: tuple[str, ...], key: str) -> None:
        ref = self.ref(namespace[0])
        with self.tables.write(ref) as tx:
            user_id, labels, item_key, _ = _sealed_row(tx, ref, _labels(namespace[1:]), key, "")
            tx.run(
                "DELETE FROM langgraph_items WHERE user_id = ? AND namespace = ? AND item_key = ?",
                (user_id, labels, item_key),
            )


def _sealed_row(tx: Tx, user_id: str, labels: str, key: str, record: str) -> tuple:
    """A row as an encrypted store keeps it (``Tx.seal_text``; itself in a plain one):
    the namespace and key sealed for lookups (SQL matches them), the item sealed
    bound to them."""
    return (
        user_id,
        tx.seal_text(user_id, "langgraph.namespace", labels, lookup=True),
        tx.seal_text(user_id, "langgraph.key", key, lookup=True),
        tx.seal_text(user_id, f"langgraph_items.record:{labels}\0{key}", record) if record else "",
    )


def _open_record(tx: Tx, user_id: str, labels: str, key: str, record: str) -> str:
    labels = tx.open_text(user_id, "langgraph.namespace", labels)
    key = tx.open_text(user_id, "langgraph.key", key)
    return tx.open_text(user_id, f"langgraph_items.record:{labels}\0{key}", record)


_Where = tuple[tuple[str, ...], str]


class _Batch:
    """One batch's view of the users it touches: their items, read once and kept in
    step with the batch's own writes."""

    def __init__(self, store: RememStore) -> None:
        self.store = store
        self.mem = store.memory
        self.shelf = store._shelf
        self.items: dict[str, dict[_Where, _Stored]] = {}
        #: every memory holding a key (more than one only after a crash mid-put)
        self.copies: dict[str, dict[_Where, list[str]]] = {}
        #: the keys the table of items not indexed holds
        self.shelved: dict[str, set[_Where]] = {}
        #: memories of earlier versions moved into that table
        self.moved = 0

    def run(self, ops: list[Op], prepared: dict[int, _Prepared | None]) -> list[Result]:
        results: list[Result] = []
        for i, op in enumerate(ops):
            if isinstance(op, GetOp):
                found = self.load(op.namespace[0]).get((op.namespace, op.key))
                results.append(found.item if found else None)
            elif isinstance(op, SearchOp):
                results.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                results.append(self._list_namespaces(op))
            else:
                self._put(op, prepared[i])
                results.append(None)
        return results

    def load(self, user_id: str) -> dict[_Where, _Stored]:
        """The user's items, read once: from their memories and the table, in the order
        put (a later copy of a key wins); earlier versions' items not indexed leave
        the memories on the way."""
        if user_id not in self.items:
            found = [s for hit in self.mem.memories(user_id) if (s := _read(user_id, hit))]
            found += [s for r in self.shelf.load(user_id) if (s := _parse(user_id, None, r))]
            found.sort(key=lambda s: s.item.updated_at.timestamp())  # stable
            mine: dict[_Where, _Stored] = {}
            copies: dict[_Where, list[str]] = {}
            shelved: set[_Where] = set()  # a row also where a newer memory wins
            for stored in found:
                where = (stored.item.namespace, stored.item.key)
                mine[where] = stored
                if stored.memory_id is None:
                    shelved.add(where)
                else:
                    copies.setdefault(where, []).append(stored.memory_id)
            self.items[user_id], self.copies[user_id] = mine, copies
            self.shelved[user_id] = shelved
            self._move_out(user_id, [s for s in found if s.memory_id and not s.indexed])
        return self.items[user_id]

    def _move_out(self, user_id: str, old: list[_Stored]) -> None:
        """Move the memories earlier versions kept for items not indexed into the table
        (the row first: a crash between leaves both, and they hold the same item)."""
        mine, copies = self.items[user_id], self.copies[user_id]
        for stored in old:
            where = (stored.item.namespace, stored.item.key)
            if mine[where] is stored:
                self.shelf.put(user_id, _record(stored.item, indexed=False))
                mine[where] = _Stored(None, stored.item, False)
                self.shelved[user_id].add(where)
            assert stored.memory_id is not None
            copies[where].remove(stored.memory_id)
            self.mem.delete(stored.memory_id, user_id)
            self.moved += 1

    def _put(self, op: PutOp, new: _Prepared | None) -> None:
        user_id = op.namespace[0]
        where = (op.namespace, op.key)
        mine = self.load(user_id)
        old = self.copies[user_id].pop(where, [])
        shelved = where in self.shelved[user_id]
        if new is not None:
            stored = mine[where] = self._write(op, new, mine.get(where))
            if stored.memory_id is not None:
                self.copies[user_id][where] = [stored.memory_id]
        else:
            mine.pop(where, None)
        # after the write: a failure between leaves a duplicate, and the newer wins
        if shelved and (new is None or new.indexed):
            self.shelf.remove(op.namespace, op.key)
            self.shelved[user_id].discard(where)
        for memory_id in old:
            self.mem.delete(memory_id, user_id)

    def _write(self, op: PutOp, new: _Prepared, before: _Stored | None) -> _Stored:
        """Write a put's item: a memory when indexed, else a row of the table."""
        now = datetime.now(timezone.utc)
        created = before.item.created_at if before else now
        item = Item(
            value=new.value, key=op.key, namespace=op.namespace, created_at=created, updated_at=now
        )
        record = _record(item, indexed=new.indexed)
        if new.body is None:
            self.shelf.put(op.namespace[0], record)
            self.shelved[op.namespace[0]].add((op.namespace, op.key))
            return _Stored(None, item, False)
        metadata = {ITEM_KEY: record}
        new_id = self.mem.add(new.body, op.namespace[0], timestamp=now, metadata=metadata)
        return _Stored(new_id, item, True)

    def _search(self, op: SearchOp) -> list[SearchItem]:
        prefix = op.namespace_prefix
        if not prefix:
            raise InvalidInputError(
                "RememStore searches one user's items: namespace_prefix must start with the user id"
            )
        limit, offset = _check_page(op.limit, op.offset)
        candidates = [
            s
            for s in self.load(prefix[0]).values()
            if s.item.namespace[: len(prefix)] == prefix and _matches(s.item.value, op.filter)
        ]
        if not op.query:
            return [_search_item(s.item, None) for s in candidates[offset : offset + limit]]
        indexed = {s.memory_id: s for s in candidates if s.indexed and s.memory_id}
        ranked = self._ranked(prefix[0], op.query, indexed, offset + limit)
        unscored = [s for s in candidates if not s.indexed]
        # as LangGraph's own stores do: items without a vector fill a short page
        rows = [(s, score) for s, score in ranked] + [(s, None) for s in unscored]
        return [_search_item(s.item, score) for s, score in rows[offset : offset + limit]]

    def _ranked(
        self, user_id: str, query: str, candidates: dict[str, _Stored], wanted: int
    ) -> list[tuple[_Stored, float]]:
        """The candidates (indexed, by memory id) in the engine's order, enough to fill
        the page: the engine ranks all the user's memories, so ask for more until the
        candidates among them fill it or the user has no more."""
        if wanted == 0 or not candidates:
            return []
        total = self.mem.count(user_id)
        k = max(wanted * 4, 20)
        while True:
            hits = self.mem.search(query, user_id, k=min(k, max(total, 1)))
            ranked = [(candidates[h.id], h.score) for h in hits if h.id in candidates]
            if len(ranked) >= wanted or k >= total:
                return ranked
            k *= 4

    def _list_namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        limit, offset = _check_page(op.limit, op.offset)
        if op.max_depth is not None and (
            not isinstance(op.max_depth, int) or isinstance(op.max_depth, bool) or op.max_depth < 1
        ):
            raise InvalidInputError(f"max_depth must be a positive int, not {op.max_depth!r}")
        conditions = tuple(op.match_conditions or ())
        users = _named_users(conditions)
        if users is None:  # a user may hold only items not indexed, and no memory
            named = self.mem.users()
            users = sorted({*named, *self.shelf.users(named)})
        found = {
            ns
            for user_id in users
            for ns, _ in self.load(user_id)
            if all(_does_match(c, ns) for c in conditions)
        }
        if op.max_depth is not None:
            found = {ns[: op.max_depth] for ns in found}
        return sorted(found)[offset : offset + limit]


# -- helpers --------------------------------------------------------------------------


def _index_fields(index: Mapping[str, Any] | None) -> list[tuple[str, Any]]:
    """The tokenized paths of ``index["fields"]`` (default ``["$"]``, the whole value)."""
    if index is None:
        return [("$", "$")]
    if not isinstance(index, Mapping):
        raise InvalidTypeError(f"index must be a dict, not {type(index).__name__}")
    unknown = set(index) - {"fields"}
    if unknown:
        raise InvalidInputError(
            f"RememStore's index takes only 'fields' (remem embeds with the Memory's own "
            f"embedder), not {sorted(unknown)}"
        )
    fields = index.get("fields") or ["$"]
    if isinstance(fields, str) or not all(isinstance(f, str) and f for f in fields):
        raise InvalidTypeError("index fields must be a list of non-empty path strings")
    return [(f, "$" if f == "$" else tokenize_path(f)) for f in fields]


def _check_op(op: Any) -> None:
    """The checks LangGraph's methods make, for ops given to ``batch`` directly, and the
    user every op needs."""
    if isinstance(op, (GetOp, PutOp)):
        _check_labels(op.namespace)
        if not op.namespace:
            raise InvalidNamespaceError("Namespace cannot be empty: its first label is the user")
        check_user_id(op.namespace[0])
        if not isinstance(op.key, str):
            raise InvalidTypeError(f"key must be a str, not {type(op.key).__name__}")
        if isinstance(op, PutOp):
            if op.namespace[0] == "langgraph":
                raise InvalidNamespaceError(
                    f'Root label for namespace cannot be "langgraph". Got: {op.namespace}'
                )
            if op.ttl is not None:
                raise NotImplementedError("TTL is not supported by RememStore")
            if op.index not in (None, False) and (
                isinstance(op.index, str) or not isinstance(op.index, list)
            ):
                raise InvalidTypeError("index must be None, False or a list of field paths")
    elif isinstance(op, SearchOp):
        _check_labels(op.namespace_prefix)
        if op.namespace_prefix:
            check_user_id(op.namespace_prefix[0])
        if op.query is not None and not isinstance(op.query, str):
            raise InvalidTypeError(f"query must be a str, not {type(op.query).__name__}")
        if op.filter is not None and not isinstance(op.filter, dict):
            raise InvalidTypeError(f"filter must be a dict, not {type(op.filter).__name__}")
    elif isinstance(op, ListNamespacesOp):
        for condition in op.match_conditions or ():
            if condition.match_type not in ("prefix", "suffix"):
                raise InvalidInputError(f"unsupported match type {condition.match_type!r}")
            _check_labels(condition.path, wildcard=True)
    else:
        raise InvalidTypeError(f"unknown store operation: {type(op).__name__}")


def _check_labels(namespace: Any, *, wildcard: bool = False) -> None:
    if not isinstance(namespace, tuple):
        raise InvalidTypeError(f"a namespace must be a tuple, not {type(namespace).__name__}")
    for label in namespace:
        if not isinstance(label, str):
            raise InvalidNamespaceError(
                f"Namespace labels must be strings, but got {type(label).__name__} in {namespace}"
            )
        if not label or "." in label or "\x00" in label:
            raise InvalidNamespaceError(
                f"Invalid namespace label {label!r} in {namespace}: labels are non-empty "
                "and hold no period or NUL"
            )


def _check_page(limit: Any, offset: Any) -> tuple[int, int]:
    for name, v in (("limit", limit), ("offset", offset)):
        if not isinstance(v, int) or isinstance(v, bool):
            raise InvalidTypeError(f"{name} must be an int, not {type(v).__name__}")
        if v < 0:
            raise InvalidInputError(f"{name} must be >= 0, not {v}")
    return limit, offset


def _check_value(value: Any) -> dict[str, Any]:
    """A value as LangGraph defines one (a mapping of str keys to JSON), as a plain
    dict that survives the JSON round trip unchanged."""
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"a store value must be a dict, not {type(value).__name__}")
    try:
        text = json.dumps(dict(value), allow_nan=False, ensure_ascii=False)
    except (TypeError, ValueError) as exc:
        raise InvalidTypeError(f"a store value must be JSON: {exc}") from None
    out = json.loads(text)
    if out != dict(value):  # non-str keys are converted by json.dumps, not refused
        raise InvalidTypeError("a store value must be JSON with string keys throughout")
    return dict(out)


def _labels(namespace: Iterable[str]) -> str:
    """A namespace below the user as the table's key column holds it."""
    return json.dumps(list(namespace), ensure_ascii=False)


def _record(item: Item, *, indexed: bool) -> dict[str, Any]:
    """An item as stored: a memory's metadata under ``"langgraph"``, or a table row."""
    return {
        "namespace": list(item.namespace[1:]),
        "key": item.key,
        "value": item.value,
        "created_at": item.created_at.isoformat(),
        "updated_at": item.updated_at.isoformat(),
        "indexed": indexed,
    }


def _read(user_id: str, hit: Hit) -> _Stored | None:
    """The item a memory holds, or None for a memory the store did not write."""
    record = hit.metadata.get(ITEM_KEY) if isinstance(hit.metadata, dict) else None
    return _parse(user_id, hit.id, record)


def _parse(user_id: str, memory_id: str | None, record: Any) -> _Stored | None:
    """The item a stored record holds (of a memory, or of the table: ``memory_id``
    None), or None for one that is not an item."""
    if not isinstance(record, dict):
        return None
    try:
        item = Item(
            value=record["value"],
            key=record["key"],
            namespace=(user_id, *record["namespace"]),
            created_at=datetime.fromisoformat(record["created_at"]),
            updated_at=datetime.fromisoformat(record["updated_at"]),
        )
    except (KeyError, TypeError, ValueError):
        return None
    indexed = memory_id is not None and bool(record.get("indexed", True))
    return _Stored(memory_id, item, indexed)


def _search_item(item: Item, score: float | None) -> SearchItem:
    return SearchItem(
        namespace=item.namespace,
        key=item.key,
        value=item.value,
        created_at=item.created_at,
        updated_at=item.updated_at,
        score=score,
    )


def _named_users(conditions: tuple[MatchCondition, ...]) -> list[str] | None:
    """The one user a prefix condition names (its first label), else None (all users)."""
    for c in conditions:
        if c.match_type == "prefix" and c.path and c.path[0] != "*":
            return [c.path[0]]
    return None


def _does_match(condition: MatchCondition, ns: tuple[str, ...]) -> bool:
    path = tuple(condition.path)
    if len(ns) < len(path):
        return False
    if condition.match_type == "suffix":
        ns, path = ns[::-1], path[::-1]
    pairs = zip(ns[: len(path)], path, strict=True)
    return all(p == "*" or n == p for n, p in pairs)


def _matches(value: dict[str, Any], filter: dict[str, Any] | None) -> bool:
    return not filter or all(_compare(value.get(k), v) for k, v in filter.items())


def _compare(actual: Any, wanted: Any) -> bool:
    """LangGraph's filter semantics (JSONB-like): operators, nested dicts, lists."""
    if isinstance(wanted, dict):
        if any(k.startswith("$") for k in wanted):
            return all(_operator(actual, k, v) for k, v in wanted.items())
        return isinstance(actual, dict) and all(
            _compare(actual.get(k), v) for k, v in wanted.items()
        )
    if isinstance(wanted, (list, tuple)):
        return (
            isinstance(actual, (list, tuple))
            and len(actual) == len(wanted)
            and all(_compare(a, w) for a, w in zip(actual, wanted, strict=True))
        )
    return bool(actual == wanted)


def _operator(actual: Any, op: str, wanted: Any) -> bool:
    if op not in _OPERATORS:
        raise InvalidInputError(f"unsupported filter operator {op!r} (use one of {_OPERATORS})")
    if op == "$eq":
        return bool(actual == wanted)
    if op == "$ne":
        return bool(actual != wanted)
    if not _number(actual) or not _number(wanted):
        return False  # an order needs numbers on both sides; a missing field never matches
    a, w = float(actual), float(wanted)
    return {"$gt": a > w, "$gte": a >= w, "$lt": a < w, "$lte": a <= w}[op]


def _number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)
