"""The SQL both backends share: one text of every query, with small dialect hooks.

SQLite and PostgreSQL hold the same tables with the same meaning (see ``sqlite.py``
and ``postgres.py`` for why each is laid out as it is), so the statements that read
and write them are written once, here, in the common subset of the two dialects
(``ON CONFLICT`` upserts, ``NOT EXISTS``, ``CAST``) with ``?`` placeholders. A
backend supplies only what really differs:

* how a connection is held: :meth:`SqlStore._open_read` (latest commits),
  :meth:`SqlStore._open_snapshot` (several reads that agree) and
  :meth:`SqlStore._open_write` (one transaction; SQLite locks the file, PostgreSQL
  one user);
* how a list of ids is matched: :meth:`SqlStore._in` (SQLite binds ``IN (?, ...)`` in
  chunks under its variable limit, PostgreSQL binds one array to ``= ANY(...)``);
* a few words: the placeholder, the two-argument max/min (``MAX``/``GREATEST``),
  ``FOR UPDATE`` (a row lock PostgreSQL needs and SQLite's file lock makes moot),
  and what "no limit" is;
* inserting memory rows (PostgreSQL may fill its pgvector column too), what a
  duplicate key looks like, what follows an erase (a WAL checkpoint, a VACUUM), and
  how schema changes are serialised.

Statements run through :class:`SqlTx`, the same object extensions get (see
``extension.py``): the store's own queries and an engine's are written the same way.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import numpy as np

from ..errors import DatabaseKeyError, ErasureIncompleteError, StoreError
from ..types import NewMemory, Passages, StoredMemory
from .base import (
    MEMORY_COLUMNS,
    VECTOR_COLUMNS,
    Store,
    UpdateConflict,
    UserState,
    new_rows,
    row_to_memory,
)
from .envelope import (
    ENVELOPE_V2,
    USER_IDS_ENTRY,
    Envelope,
    UserRefs,
    open_row,
    seal_insert,
)
from .extension import ErasureRule, Extension, Tables, check_identifier

#: ``meta`` keys of extension records: ``ext:<name>`` -> JSON (see ``ErasureRule``).
EXT_PREFIX = "ext:"
EXT_END = "ext;"  # the first key after every "ext:..." (";" follows ":")
#: ``meta`` key holding the store version a database had before extensions existed.
LEGACY_KEY = "legacy_schema"


class SqlTx:
    """One connection of a :class:`SqlStore`, in a transaction or a read (the
    :class:`~remem.store.extension.Tx` every query of the store and its extensions
    runs through)."""

    def __init__(self, store: SqlStore, con: Any):
        self.con = con
        self._store = store
        self.dialect = store.dialect
        self.greatest = store._greatest
        self.least = store._least
        self.for_update = store._for_update

    def run(self, sql: str, args: Sequence[Any] = ()) -> Any:
        return self.con.execute(self._store._sql(sql), tuple(args))

    def one(self, sql: str, args: Sequence[Any] = ()) -> tuple | None:
        return self.run(sql, args).fetchone()

    def all(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]:
        return self.run(sql, args).fetchall()

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self._store._many(self.con, sql, rows)

    def rows_in(self, sql: str, args: Sequence[Any], ids: Sequence[str]) -> list[tuple]:
        return self._store._in(self.con, sql, args, ids)

    def seal_text(self, user_id: str, place: str, text: str, *, lookup: bool = False) -> str:
        return self._store._seal_text(user_id, place, text, lookup)

    def open_text(self, user_id: str, place: str, value: str) -> str:
        return self._store._open_text(user_id, place, value)

    def seal_bytes(self, user_id: str, place: str, data: bytes) -> bytes:
        return self._store._seal_bytes(user_id, place, data)

    def open_bytes(self, user_id: str, place: str, value: bytes) -> bytes:
        return self._store._open_bytes(user_id, place, value)

    def existing(self, user_id: str, ids: Sequence[str]) -> list[str]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return []
        sql = f"SELECT id FROM memories WHERE {self._store._uid_pk} = ? AND id {{in}}"
        have = {r[0] for r in self.rows_in(sql, (user_id,), unique)}
        return [i for i in unique if i in have]


class _Tables:
    """What :meth:`SqlStore.attach` returns: the store's three ways to a connection."""

    def __init__(self, store: SqlStore):
        self._store = store

    def read(self) -> AbstractContextManager[SqlTx]:
        return self._store._read()

    def snapshot(self) -> AbstractContextManager[SqlTx]:
        return self._store._snapshot()

    def write(self, user_id: str | None = None) -> AbstractContextManager[SqlTx]:
        return self._store._write(user_id, name=True)


class SqlStore(Store):
    """A :class:`Store` over a DB-API connection; subclasses fill in the hooks."""

    #: "sqlite" or "postgres": which of an extension's schemas this backend runs.
    dialect = ""
    #: SQL for the larger / smaller of two values.
    _greatest = "MAX"
    _least = "MIN"
    #: Appended to a compare-and-swap read of a revision row.
    _for_update = ""
    #: The user column in lookups by primary key (SQLite: "+user_id", see ``get``).
    _uid_pk = "user_id"
    #: LIMIT's value for "every row".
    _no_limit: int | None = None

    # -- hooks ------------------------------------------------------------------------

    def _open_read(self) -> AbstractContextManager[Any]:
        """A connection whose statements each see the latest commits."""
        raise NotImplementedError

    def _open_snapshot(self) -> AbstractContextManager[Any]:
        """A connection whose statements all see one consistent state."""
        raise NotImplementedError

    def _open_write(self, user_id: str | None = None) -> AbstractContextManager[Any]:
        """One transaction; with ``user_id``, serialised against that user's writes."""
        raise NotImplementedError

    def _sql(self, sql: str) -> str:
        """``sql`` in this backend's placeholder style (written with ``?``)."""
        return sql

    def _many(self, con: Any, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        con.executemany(self._sql(sql), rows)

    def _in(self, con: Any, sql: str, args: Sequence[Any], ids: Sequence[str]) -> list[tuple]:
        """Run ``sql`` whose ``{in}`` matches a column against ``ids`` (bound after
        ``args``); the rows of every part, for a SELECT."""
        raise NotImplementedError

    def _insert_memories(self, con: Any, rows: list[tuple[StoredMemory, list[Any]]]) -> None:
        raise NotImplementedError

    # -- envelope encryption (store/envelope.py): identity without one -----------------

    #: The per-user data keys' envelope; None: nothing is sealed (a plain store).
    _envelope: Envelope | None = None
    #: A v2 sealed store's keyed hash of user ids; None: ids are stored as given.
    _refs: UserRefs | None = None

    def _check_envelope(self, con: Any) -> None:
        """A database is sealed or plain for good: the first store opened with a key
        store marks an empty one sealed (meta ``envelope``); a key store for a database
        holding plain memories, or none for a sealed one, is refused before anything
        is written (plain and sealed rows never mix). Runs in the opening's
        transaction, under the backend's schema lock."""
        row = con.execute("SELECT value FROM meta WHERE key = 'envelope'").fetchone()
        mark = row[0] if row else None
        if self._envelope is None:
            if mark is not None:
                raise DatabaseKeyError(
                    f"{self._where()} seals each user's rows (envelope {mark}): open it "
                    "with its key store (keyring=, and the master key: key=)",
                    "missing",
                )
            return
        if mark is None:
            if con.execute("SELECT 1 FROM memories LIMIT 1").fetchone() is not None:
                raise DatabaseKeyError(
                    f"{self._where()} holds plain memories; a key store seals a new, empty "
                    "database only (export, then import into a sealed one)",
                    "unexpected",
                )
            con.execute(f"INSERT INTO meta (key, value) VALUES ('envelope', '{ENVELOPE_V2}')")
            mark = ENVELOPE_V2
        if mark == ENVELOPE_V2:  # v1 (user ids in clear) stays as it was made
            con.execute(
                "CREATE TABLE IF NOT EXISTS user_names "
                "(user_id TEXT PRIMARY KEY, name TEXT NOT NULL)"
            )
            self._refs = UserRefs(self._ids_secret(con))

    def _ids_secret(self, con: Any) -> bytes:
        """The user ids' hash secret from the key store, checked against the database's
        fingerprint of it (meta ``user_ids``), made with the first: a key store from
        another deployment (a wrong ``REMEM_KEYRING``) would hash every id otherwise
        and show an empty database, so it is refused before anything is written."""
        assert self._envelope is not None
        row = con.execute("SELECT value FROM meta WHERE key = 'user_ids'").fetchone()
        if row is None:
            secret = self._envelope.user_key(USER_IDS_ENTRY, create=True)
            mark = UserRefs.fingerprint(secret)
            con.execute(f"INSERT INTO meta (key, value) VALUES ('user_ids', '{mark}')")
            return secret
        kept = self._envelope.keyring.get(USER_IDS_ENTRY)
        if kept is None or UserRefs.fingerprint(kept) != row[0]:
            raise DatabaseKeyError(
                f"the key store is not {self._where()}'s: the secret its user ids are "
                "hashed with is missing or another (a wrong keyring / REMEM_KEYRING?)",
                "wrong",
            )
        return kept

    def user_ref(self, user_id: str) -> str:
        """The id the user columns hold for ``user_id``: a keyed hash in a v2 sealed
        store (``envelope.UserRefs``), else ``user_id`` itself."""
        return user_id if self._refs is None else self._refs.ref(user_id)

    def _name_user(self, tx: SqlTx, ref: str) -> None:
        """Record the plain id of ``ref`` (sealed under the user's data key) the first
        time the user writes, for :meth:`users`; nothing when this process did not hash
        ``ref`` (a bare store given its own ids) or the store hashes none."""
        name = self._refs.name(ref) if self._refs is not None else None
        if name is None or tx.one("SELECT 1 FROM user_names WHERE user_id = ?", (ref,)):
            return
        tx.run(
            "INSERT INTO user_names (user_id, name) VALUES (?, ?) ON CONFLICT (user_id) DO NOTHING",
            (ref, self._seal_text(ref, f"user_names.name:{ref}", name)),
        )

    def _named_users(self) -> list[str]:
        """A v2 sealed store's users, by their plain ids; one whose data key is gone (a
        ``delete_user`` killed after destroying it, before its commit: its rows can no
        longer be read, and the next ``delete_user`` removes them) is left out."""
        assert self._envelope is not None
        with self._read() as tx:
            rows = tx.all("SELECT user_id, name FROM user_names")
        names = []
        for ref, sealed in rows:
            try:
                names.append(self._open_text(ref, f"user_names.name:{ref}", sealed))
            except DatabaseKeyError as exc:
                if exc.reason != "missing":
                    raise
        return sorted(names)

    def _sealed_values(self, rows: list[tuple[StoredMemory, list[Any]]]) -> list[list[Any]]:
        """The ``INSERT_COLUMNS`` values of one user's new rows, sealed with an envelope;
        called under the user's write lock (every insert is: see ``_forget_user``)."""
        params = [values for _, values in rows]
        env = self._envelope
        if env is None or not rows:
            return params
        key = env.user_key(rows[0][0].user_id, create=True)
        return [seal_insert(key, values) for values in params]

    def _memories(self, rows: Sequence[Sequence[Any]], vectors: bool = False) -> list[StoredMemory]:
        """Stored memories from ``MEMORY_COLUMNS`` rows (and the ``VECTOR_COLUMNS`` last,
        with ``vectors``), their sealed columns opened (one key read per user)."""
        env = self._envelope
        if env is not None and rows:
            keys: dict[str, bytes] = {}
            opened = []
            for r in rows:  # r[1]: the user id
                key = keys.get(r[1]) or keys.setdefault(r[1], env.user_key(r[1]))
                opened.append(open_row(key, r, vectors))
            rows = opened
        if vectors:
            return [row_to_memory(r[:-2], r[-2], r[-1]) for r in rows]
        return [row_to_memory(r) for r in rows]

    def _seal_text(self, user_id: str, place: str, text: str, lookup: bool = False) -> str:
        """``text`` as an extension's sealed column holds it (itself: no envelope)."""
        if self._envelope is None:
            return text
        key = self._envelope.user_key(user_id, create=True)
        return Envelope.seal_text(key, text, place, lookup=lookup)

    def _open_text(self, user_id: str, place: str, value: str) -> str:
        if self._envelope is None:
            return value
        return Envelope.open_text(self._envelope.user_key(user_id), value, place)

    def _seal_bytes(self, user_id: str, place: str, data: bytes) -> bytes:
        if self._envelope is None:
            return data
        return Envelope.seal(self._envelope.user_key(user_id, create=True), data, place)

    def _open_bytes(self, user_id: str, place: str, value: bytes) -> bytes:
        if self._envelope is None:
            return value
        return Envelope.open(self._envelope.user_key(user_id), value, place)

    def _forget_user(self, tx: SqlTx, user_id: str) -> list[str]:
        """In ``delete_user``'s transaction, after every row of the user is deleted:
        destroy the user's data key (crypto-shredding). Under the user's lock, before
        the erase commits: an add waiting for the lock then makes a new key instead of
        sealing with the destroyed one. Also drops the user's sealed name; returns the
        tables it erased from."""
        if self._envelope is None:
            return []
        if self._refs is not None:
            tx.run("DELETE FROM user_names WHERE user_id = ?", (user_id,))
        if self._refs is None or user_id != USER_IDS_ENTRY:  # never the ids' hash secret
            self._envelope.keyring.destroy(user_id)
        return ["user_names"] if self._refs is not None else []

    def _after_erase(self, tables: Sequence[str]) -> str | None:
        """Make erased bytes leave the files (see each backend's notes), after the
        erase committed; ``tables`` are every table that may have held them. None when
        done as far as this backend goes, else why not yet (the erase then raises
        :class:`ErasureIncompleteError`)."""
        return None

    def _note_erase(
        self, tx: SqlTx, user_id: str, ids: Sequence[str] = (), count: int | None = None
    ) -> None:
        """In the erase's own transaction: record that the user's erase (of ``ids``, or
        of the whole user and its ``count`` memories) may still be in the files, so a
        retry learns what the erase did and any process finishes the scrub (SQLite;
        nothing here, where an erase never stays pending)."""

    def _pending_erase(self, tx: SqlTx, user_id: str) -> dict[str, Any] | None:
        """What ``_note_erase`` recorded of the user's erases whose scrub has not
        finished yet: ``ids`` (deleted memories) and ``count`` (when the user was
        erased); None when nothing of this user is pending."""
        return None

    def _erased(self, tables: Sequence[str], result: object, what: str) -> None:
        """After an erase committed: scrub, or say that the rows are gone but their
        bytes are not yet (never report a clean erase that did not happen)."""
        why = self._after_erase(tables)
        if why is not None:
            raise ErasureIncompleteError(f"{what} deleted, but {why}", result)

    def _fetch_memories(self, con: Any, sql: str, args: Sequence[Any]) -> list[tuple]:
        return con.execute(self._sql(sql), tuple(args)).fetchall()

    def _lock_schema(self, tx: SqlTx) -> None:
        """Serialise schema changes of several processes (inside the transaction)."""

    def _run_script(self, tx: SqlTx, sql: str) -> None:
        """A migration step: each statement of ``sql`` on the transaction's connection
        (``executescript`` would COMMIT the migration transaction, and psycopg runs
        one statement per call)."""
        script(sql)(tx.con)

    # -- connections --------------------------------------------------------------------

    @contextmanager
    def _read(self) -> Iterator[SqlTx]:
        with self._open_read() as con:
            yield SqlTx(self, con)

    @contextmanager
    def _snapshot(self) -> Iterator[SqlTx]:
        with self._open_snapshot() as con:
            yield SqlTx(self, con)

    @contextmanager
    def _write(self, user_id: str | None = None, *, name: bool = False) -> Iterator[SqlTx]:
        """One write transaction; with ``name``, the user's plain id is recorded (a
        write that may add the user's first row: ``_name_user``)."""
        with self._open_write(user_id) as con:
            tx = SqlTx(self, con)
            if name and user_id is not None and self._refs is not None:
                self._name_user(tx, user_id)
            yield tx

    def _one(self, sql: str, args: Sequence[Any]) -> tuple | None:
        with self._read() as tx:
            return tx.one(sql, args)

    # -- extensions ---------------------------------------------------------------------

    def _init_extensions(self) -> None:
        """Backends call this first in ``__init__``: no extension attached yet."""
        #: extensions attached through this instance, by name
        self._attached: dict[str, Extension] = {}
        self._attach_lock = threading.Lock()

    def attach(self, extension: Extension) -> Tables:
        attached = self._attached
        with self._attach_lock:
            have = attached.get(extension.name)
            if have is not None:
                if have != extension:
                    raise StoreError(f"another extension is attached as {extension.name!r}")
                return _Tables(self)
            steps = extension.steps(self.dialect)
            latest = steps[-1][0] if steps else 0
            with self._write() as tx:
                self._lock_schema(tx)
                key = EXT_PREFIX + extension.name
                row = tx.one("SELECT value FROM meta WHERE key = ?", (key,))
                if row is not None:
                    version = ErasureRule.from_json(extension.name, json.loads(row[0])).version
                else:
                    legacy = tx.one("SELECT value FROM meta WHERE key = ?", (LEGACY_KEY,))
                    version = extension.legacy_version(int(legacy[0]) if legacy else 0)
                if version > latest:
                    raise StoreError(
                        f"{self._where()} holds extension {extension.name!r} at schema version "
                        f"{version}, newer than this code understands ({latest}); upgrade it"
                    )
                for target, sql in steps:
                    if version < target:
                        self._run_script(tx, sql)
                        version = target
                record = json.dumps(ErasureRule.of(extension, version).to_json())
                self._set_meta(tx, key, record)
            attached[extension.name] = extension
            return _Tables(self)

    def _erasure_rules(self, tx: SqlTx) -> list[tuple[ErasureRule, Extension | None]]:
        """Every extension recorded in this database, with this process's instance of
        it when attached here (its own rule then runs too)."""
        rows = tx.all(
            "SELECT key, value FROM meta WHERE key >= ? AND key < ? ORDER BY key",
            (EXT_PREFIX, EXT_END),
        )
        attached = self._attached
        out = []
        for key, value in rows:
            name = key[len(EXT_PREFIX) :]
            out.append((ErasureRule.from_json(name, json.loads(value)), attached.get(name)))
        return out

    # -- writes ---------------------------------------------------------------------------

    def add(
        self,
        user_id: str,
        memories: Sequence[NewMemory],
        embeddings: np.ndarray | None,
        passages: Sequence[Passages | None] | None = None,
        *,
        ids: Sequence[str] | None = None,
        created_at: Sequence[float] | None = None,
    ) -> list[StoredMemory]:
        for given, what in ((embeddings, "embedding"), (passages, "passages entry")):
            if given is not None and len(given) != len(memories):
                raise StoreError(f"one {what} per memory is required")
        if ids is not None and (len(ids) != len(memories) or len(set(ids)) != len(ids)):
            raise StoreError("one distinct id per memory is required")
        with self._write(user_id, name=True) as tx:
            tx.run(
                "INSERT INTO users (user_id, epoch, next_seq, del_rev) VALUES (?, ?, 0, 0) "
                "ON CONFLICT (user_id) DO NOTHING",
                (user_id, uuid.uuid4().hex),
            )
            row = tx.one(f"SELECT next_seq FROM users WHERE user_id = ?{tx.for_update}", (user_id,))
            seq0 = row[0] if row else 0
            rows = new_rows(user_id, memories, embeddings, seq0, passages, ids, created_at)
            if rows:
                if ids is not None and tx.rows_in("SELECT id FROM memories WHERE id {in}", (), ids):
                    raise StoreError("a memory with one of these ids exists already")
                self._insert_memories(tx.con, rows)
                added = [stored for stored, _ in rows]
                for ext in list(self._attached.values()):
                    ext.on_add(tx, user_id, added)  # in this transaction: all or nothing
            tx.run(
                "UPDATE users SET next_seq = ? WHERE user_id = ?", (seq0 + len(memories), user_id)
            )
        return [stored for stored, _ in rows]

    def delete(self, user_id: str, ids: Sequence[str]) -> list[str]:
        """Each call answers about its own erase only: the scrub may be pending for the
        whole file (another user's erase under an old snapshot), yet a delete that finds
        nothing of this user is a plain "not there", with no error and no waiting for
        someone else's scrub, which would tell one user (or tenant) about another's
        erase. A retry of this user's erase whose scrub is still pending finds no rows
        but the record of the erase: it reports the ids that erase deleted, as a 503
        again until the scrub finishes and then as a success."""
        if not ids:
            return []
        tables = ["memories", "users"]
        earlier: list[str] = []
        with self._write(user_id) as tx:
            found = tx.existing(user_id, ids)
            if found:
                tables += self._drop_derived(tx, user_id, found)
                tx.rows_in("DELETE FROM memories WHERE user_id = ? AND id {in}", (user_id,), found)
                tx.run("UPDATE users SET del_rev = del_rev + 1 WHERE user_id = ?", (user_id,))
                self._note_erase(tx, user_id, ids=found)
            else:
                record = self._pending_erase(tx, user_id)
                if record is not None:
                    erased = set(record.get("ids", ()))
                    earlier = [i for i in dict.fromkeys(ids) if i in erased]
        if found:
            self._erased(tables, found, _memories(len(found)))
        elif earlier:  # a retry: how did the earlier erase of these ids end?
            self._erased(tables, earlier, f"{_memories(len(earlier))} (by an earlier call)")
        return found or earlier

    def _drop_derived(
        self, tx: SqlTx, user_id: str, ids: list[str], *, updating: bool = False
    ) -> list[str]:
        """Every extension's rows of the memories ``ids`` (its recorded rule, then its
        own ``on_delete``), before the memories' rows go; the tables that may have held
        them. ``updating``: the extensions attached here that keep their rows across
        versions (the history) are left alone; a rule recorded by an extension this
        process does not know is applied, as on a delete (its rows are derived state,
        as far as anyone here can tell)."""
        tables: list[str] = []
        for rule, ext in self._erasure_rules(tx):
            if updating and ext is not None and ext.keep_on_update:
                continue
            rule.erase(tx, user_id, ids)
            if ext is not None:
                ext.on_delete(tx, user_id, ids)
            # on_delete may change any of the extension's tables
            tables += rule.user_tables
        return tables

    def update(
        self,
        user_id: str,
        memory_id: str,
        memory: NewMemory,
        embedding: np.ndarray | None,
        passages: Passages | None,
        *,
        expect_seq: int,
        changed: tuple[str, ...],
    ) -> StoredMemory | None:
        """A delete and an add of the same id in one transaction (``Store.update``):
        the extensions' rows of the old version go as on a delete, the new row takes
        the next sequence number, and the user's ``next_seq`` and ``del_rev`` both move,
        so every process's caches see exactly what they see of a delete and an add.
        The old version's text is kept only where an extension keeps it (the history);
        no scrub runs: an update erases nothing the history does not still hold."""
        with self._write(user_id) as tx:
            sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {self._uid_pk} = ? AND id = ?"
            row = tx.one(sql + tx.for_update, (user_id, memory_id))
            if row is None:
                return None
            old = self._memories([row])[0]
            if old.seq != expect_seq:
                raise UpdateConflict(f"memory {memory_id} was updated meanwhile")
            state = tx.one(
                f"SELECT next_seq FROM users WHERE user_id = ?{tx.for_update}", (user_id,)
            )
            seq = state[0] if state else old.seq + 1
            vectors = None if embedding is None else np.asarray(embedding).reshape(1, -1)
            rows = new_rows(user_id, [memory], vectors, seq, [passages], ids=[memory_id])
            new = rows[0][0]
            attached = list(self._attached.values())
            for ext in attached:
                ext.on_update(tx, user_id, old, new, changed)
            self._drop_derived(tx, user_id, [memory_id], updating=True)
            tx.run("DELETE FROM memories WHERE user_id = ? AND id = ?", (user_id, memory_id))
            self._insert_memories(tx.con, rows)
            for ext in attached:
                ext.on_add(tx, user_id, [new])
            tx.run(
                "UPDATE users SET next_seq = ?, del_rev = del_rev + 1 WHERE user_id = ?",
                (seq + 1, user_id),
            )
        return new

    def delete_user(self, user_id: str) -> int:
        """As :meth:`delete`: a user with no rows anywhere is no erase (0, no error),
        unless an erase of that user is still pending: a retry reports that erase's
        count, not the 0 it finds."""
        earlier: int | None = None
        with self._write(user_id) as tx:
            n = max(tx.run("DELETE FROM memories WHERE user_id = ?", (user_id,)).rowcount, 0)
            rows = n + max(tx.run("DELETE FROM users WHERE user_id = ?", (user_id,)).rowcount, 0)
            tables = ["memories", "users"]
            for rule, _ in self._erasure_rules(tx):
                rows += rule.erase_user(tx, user_id)
                tables += rule.user_tables
            tables += self._forget_user(tx, user_id)
            if rows:
                self._note_erase(tx, user_id, count=n)
            else:
                record = self._pending_erase(tx, user_id)
                earlier = record.get("count") if record is not None else None
        if rows:
            self._erased(tables, n, f"the user and {_memories(n)}")
            return n
        if earlier is not None:  # a retry: how did the earlier erase of the user end?
            self._erased(tables, earlier, f"the user and {_memories(earlier)} (by an earlier call)")
            return earlier
        return 0

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as tx:
            self._set_meta(tx, key, value)

    @staticmethod
    def _set_meta(tx: SqlTx, key: str, value: str) -> None:
        tx.run(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    # -- reads ----------------------------------------------------------------------------

    def get(self, user_id: str, ids: Sequence[str]) -> dict[str, StoredMemory]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return {}
        sql = f"SELECT {MEMORY_COLUMNS} FROM memories WHERE {self._uid_pk} = ? AND id {{in}}"
        with self._read() as tx:
            rows = tx.rows_in(sql, (user_id,), unique)
        return {m.id: m for m in self._memories(rows)}

    def load(
        self,
        user_id: str,
        after_seq: int = -1,
        with_embeddings: bool = True,
        *,
        limit: int | None = None,
        offset: int = 0,
    ) -> list[StoredMemory]:
        cols = MEMORY_COLUMNS + (", " + VECTOR_COLUMNS if with_embeddings else "")
        sql = (
            f"SELECT {cols} FROM memories WHERE user_id = ? AND seq > ? ORDER BY seq "
            "LIMIT ? OFFSET ?"
        )
        size = self._no_limit if limit is None else int(limit)
        with self._read() as tx:
            rows = self._fetch_memories(tx.con, sql, (user_id, after_seq, size, int(offset)))
        return self._memories(rows, with_embeddings)

    def taken(self, ids: Sequence[str]) -> list[str]:
        unique = list(dict.fromkeys(ids))
        if not unique:
            return []
        with self._read() as tx:
            have = {r[0] for r in tx.rows_in("SELECT id FROM memories WHERE id {in}", (), unique)}
        return [i for i in unique if i in have]

    def user_state(self, user_id: str) -> UserState | None:
        row = self._one("SELECT epoch, next_seq, del_rev FROM users WHERE user_id = ?", (user_id,))
        return UserState(*row) if row else None

    def count(self, user_id: str) -> int:
        row = self._one("SELECT COUNT(*) FROM memories WHERE user_id = ?", (user_id,))
        return int(row[0]) if row else 0

    def users(self) -> list[str]:
        if self._refs is not None:
            return self._named_users()
        with self._read() as tx:
            return [r[0] for r in tx.all("SELECT user_id FROM users ORDER BY user_id")]

    def get_meta(self, key: str) -> str | None:
        row = self._one("SELECT value FROM meta WHERE key = ?", (key,))
        return row[0] if row else None

    def _where(self) -> str:
        """Where this store points, for messages (never a password)."""
        return str(getattr(self, "location", None) or getattr(self, "path", type(self).__name__))


def script(sql: str) -> Callable[[Any], None]:
    """A migration step running each statement of ``sql`` on the connection it gets:
    ``executescript`` (SQLite) would COMMIT the migration transaction, and psycopg
    runs one statement per call."""

    def step(con: Any) -> None:
        for statement in sql.split(";"):
            if statement.strip():
                con.execute(statement)

    return step


def _memories(n: int) -> str:
    return f"{n} memory" if n == 1 else f"{n} memories"


def chunks(items: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]


__all__ = ["SqlStore", "SqlTx", "chunks", "check_identifier", "script"]
