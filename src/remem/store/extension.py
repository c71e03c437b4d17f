"""The store's one extension hook: tables a component keeps beside the memories.

An engine with state of its own (SYNAPSE's concepts, ILSTMA's summaries and recall
counts) or any other component (the servers' API keys) declares an :class:`Extension`:
its schema per SQL dialect as numbered migrations, which of its tables hold a user's
rows, which columns name a memory, and what else deleting a memory must do.
``Store.attach(extension)`` creates or migrates those tables and returns
:class:`Tables`, through which the extension runs its own queries in the store's
connections and transactions. From then on every ``delete`` and ``delete_user`` of
the store runs the extension's cascade *inside the store's own transaction*, so an
erase stays all-or-nothing and leaves no row behind.

Choices, and why:

* **Built-ins use the same hook.** SYNAPSE, ILSTMA and the API keys are attached
  exactly as a third-party engine would be (as datasette loads its own features
  through the plugin hooks it offers others), so the hook is exercised by every test.
* **Erasure does not depend on imports.** When an extension is attached, the store
  records its erasure rule (user tables, memory-id columns, version) in ``meta``. A
  process that never imports the extension (the CLI, a server without the plugin)
  still applies that rule on every delete, so deleting is never silently partial.
  Extensions with richer rules (SYNAPSE drops concepts no memory mentions any more)
  add them in :meth:`Extension.on_delete`; the recorded rule is the floor.
* **An update is a delete and an add of the same id, in one transaction.** The
  store drops what every extension derived from the old version (its rule and
  ``on_delete``, unless it keeps its rows across versions: ``keep_on_update``) and
  calls ``on_update`` then ``on_add`` for the new one, so no extension needs an
  update rule of its own to stay consistent.
* **Each extension versions its own schema** (``meta`` key ``ext:<name>``), so
  engines evolve their tables without touching the store's version. Databases from
  before extensions existed held every table at one store version; ``legacy`` maps
  that version to each extension's, so such files migrate in place.
* **Names are checked.** Table and column names reach SQL text (they cannot be bound
  parameters), so they must be plain identifiers, also when read back from a file.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..errors import StoreError
from ..plugins import EXTENSIONS_GROUP, Plugin, find, load, log
from ..types import StoredMemory

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,62}")
#: The store's own tables: no extension may claim them.
CORE_TABLES = frozenset({"meta", "users", "memories", "schema_migrations"})


def check_identifier(name: object, what: str) -> str:
    if not isinstance(name, str) or not _IDENT.fullmatch(name):
        raise StoreError(f"{what} must be a plain SQL identifier, not {name!r}")
    return name


class Tx(Protocol):
    """One connection in a transaction (or a read), with the dialect's few words.

    Statements are written with ``?`` placeholders in the common subset of SQLite
    and PostgreSQL (``ON CONFLICT`` upserts, ``NOT EXISTS``, ``CAST``); the
    backend translates placeholders.
    """

    #: "sqlite" or "postgres"
    dialect: str
    #: SQL for the larger / smaller of two values (``MAX``/``GREATEST``, ...)
    greatest: str
    least: str
    #: appended to a compare-and-swap read of a revision row (PostgreSQL row lock)
    for_update: str

    def run(self, sql: str, args: Sequence[Any] = ()) -> Any:
        """Execute one statement; the cursor (``fetchone``, ``fetchall``, ``rowcount``)."""
        ...

    def one(self, sql: str, args: Sequence[Any] = ()) -> tuple | None: ...

    def all(self, sql: str, args: Sequence[Any] = ()) -> list[tuple]: ...

    def many(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Execute one statement per row (nothing for no rows)."""
        ...

    def rows_in(self, sql: str, args: Sequence[Any], ids: Sequence[str]) -> list[tuple]:
        """Run ``sql`` whose ``{in}`` matches a column against ``ids`` (bound after
        ``args``; in chunks where the backend needs them); the rows, for a SELECT."""
        ...

    def seal_text(self, user_id: str, place: str, text: str, *, lookup: bool = False) -> str:
        """``text`` as a column that tells (words of a memory, a name) stores it: sealed
        under the user's data key where the store encrypts (an encrypted PostgreSQL
        store, ``store/envelope.py``), else itself. ``place`` ("table.column:row id")
        binds the value to its row, so it cannot be moved to another; such a column is
        never compared or sorted in SQL (its bytes are random). ``lookup``: the same
        text and place always seal the same (a column SQL matches by equality, with
        ``place`` naming the column only), which tells which rows share a value."""
        ...

    def open_text(self, user_id: str, place: str, value: str) -> str:
        """What :meth:`seal_text` sealed, given the same ``place``."""
        ...

    def seal_bytes(self, user_id: str, place: str, data: bytes) -> bytes:
        """:meth:`seal_text` for a binary column (a vector: vectors can be inverted)."""
        ...

    def open_bytes(self, user_id: str, place: str, value: bytes) -> bytes:
        """What :meth:`seal_bytes` sealed, given the same ``place``."""
        ...

    def existing(self, user_id: str, ids: Sequence[str]) -> list[str]:
        """The given ids that are the user's memories, deduplicated, in given order."""
        ...


class Tables(Protocol):
    """What ``Store.attach`` returns: an extension's way into the store."""

    def read(self) -> AbstractContextManager[Tx]:
        """A connection whose statements each see the latest commits."""
        ...

    def snapshot(self) -> AbstractContextManager[Tx]:
        """A connection whose statements all see one consistent state."""
        ...

    def write(self, user_id: str | None = None) -> AbstractContextManager[Tx]:
        """One transaction; with ``user_id``, serialised against that user's writes
        (adds, deletes, other extensions' writes for the user)."""
        ...


@dataclass(frozen=True)
class Extension:
    """Tables a component keeps in the memory database.

    ``migrations`` maps a dialect ("sqlite", "postgres") to ``(version, sql)`` steps
    in order (statements separated by ``;``); a step runs once, inside the attach
    transaction. ``user_tables`` hold a ``user_id`` column and are erased with the
    user; ``memory_refs`` name (table, column) pairs holding a memory id, whose rows go
    with the memory. ``legacy`` lists ``(store version, extension version)``, highest
    first: a database written before extensions existed, at that store version or
    later, already holds these tables at that extension version.
    """

    name: str
    migrations: Mapping[str, Sequence[tuple[int, str]]]
    user_tables: tuple[str, ...] = ()
    memory_refs: tuple[tuple[str, str], ...] = ()
    legacy: tuple[tuple[int, int], ...] = ()
    doc: str = field(default="", compare=False)
    #: Whether the rows naming a memory stay when the memory is updated. An update
    #: drops a memory's derived rows like a delete (the recorded rule, then
    #: :meth:`on_delete`) and derives them again from the new version (:meth:`on_add`);
    #: only rows about the memory across its versions (its history) are kept.
    keep_on_update: bool = False

    def __post_init__(self) -> None:
        check_identifier(self.name, "an extension's name")
        for table in (*self.user_tables, *(t for t, _ in self.memory_refs)):
            check_identifier(table, f"a table of extension {self.name!r}")
            if table in CORE_TABLES:
                raise StoreError(f"extension {self.name!r} cannot claim the store's {table!r}")
        for _, column in self.memory_refs:
            check_identifier(column, f"a column of extension {self.name!r}")

    def steps(self, dialect: str) -> Sequence[tuple[int, str]]:
        try:
            return self.migrations[dialect]
        except KeyError:
            raise StoreError(f"extension {self.name!r} has no schema for {dialect}") from None

    def legacy_version(self, store_version: int) -> int:
        """The version these tables are at in a database from before extensions,
        written at ``store_version`` (0: not there)."""
        for since, version in self.legacy:
            if store_version >= since:
                return version
        return 0

    def on_add(self, tx: Tx, user_id: str, memories: list[StoredMemory]) -> None:
        """What adding the user's ``memories`` (just inserted, with their ids and
        sequence numbers) does to the extension's tables; runs in the add's
        transaction, so the memories and these rows are written together or not at
        all, and only where the extension is attached in this process. Override to
        derive rows from each memory at ingest (``remem.time.stored``)."""

    def on_update(
        self, tx: Tx, user_id: str, old: StoredMemory, new: StoredMemory, changed: tuple[str, ...]
    ) -> None:
        """What updating the user's memory ``old`` to ``new`` (same id, the next sequence
        number; ``changed`` names the fields that differ) does beyond dropping and
        deriving again its rows (:attr:`keep_on_update`); runs in the update's
        transaction before the old row goes (so it can still be read). The memory
        history (``store/history.py``) records the old version here."""

    def on_delete(self, tx: Tx, user_id: str, ids: list[str]) -> None:
        """What deleting the user's memories ``ids`` (all existing) does beyond the
        recorded rule; runs in the delete's transaction after that rule dropped the
        rows naming them and before the memories' own rows go (so they can still be
        joined). Override for richer rules."""


@dataclass(frozen=True)
class ErasureRule:
    """An extension's erasure rule as the store records it (``meta`` ``ext:<name>``)."""

    name: str
    version: int
    user_tables: tuple[str, ...]
    memory_refs: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, ext: Extension, version: int) -> ErasureRule:
        return cls(ext.name, version, ext.user_tables, ext.memory_refs)

    def to_json(self) -> dict[str, Any]:
        return {
            "version": self.version,
            "user_tables": list(self.user_tables),
            "memory_refs": [list(r) for r in self.memory_refs],
        }

    @classmethod
    def from_json(cls, name: str, data: Any) -> ErasureRule:
        """A recorded rule, checked: it comes from a file, and its names reach SQL."""
        try:
            tables = tuple(check_identifier(t, "a recorded table") for t in data["user_tables"])
            refs = tuple(
                (check_identifier(t, "a recorded table"), check_identifier(c, "a column"))
                for t, c in data["memory_refs"]
            )
            version = int(data["version"])
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"the database's record of extension {name!r} is damaged") from exc
        if CORE_TABLES & {*tables, *(t for t, _ in refs)}:
            raise StoreError(f"the database's record of extension {name!r} names a core table")
        return cls(name, version, tables, refs)

    def erase(self, tx: Tx, user_id: str, ids: list[str]) -> None:
        for table, column in self.memory_refs:
            sql = f"DELETE FROM {table} WHERE user_id = ? AND {column} {{in}}"
            tx.rows_in(sql, (user_id,), ids)

    def erase_user(self, tx: Tx, user_id: str) -> int:
        """Drop the user's rows from every table of the rule; how many there were (an
        erase of a user with no rows anywhere is no erase: nothing to scrub)."""
        n = 0
        for table in self.user_tables:
            n += max(tx.run(f"DELETE FROM {table} WHERE user_id = ?", (user_id,)).rowcount, 0)
        return n


_REGISTRY: dict[str, Extension] = {}
_REGISTRY_LOCK = threading.Lock()


def register_extension(ext: Extension) -> Extension:
    """Make ``ext`` part of every store a :class:`remem.Memory` opens from now on
    (engines register theirs with the engine; a second, different extension of the
    same name is an error)."""
    with _REGISTRY_LOCK:
        have = _REGISTRY.get(ext.name)
        if have is not None and have != ext:
            raise StoreError(f"another extension is already registered as {ext.name!r}")
        _REGISTRY[ext.name] = ext
    return ext


_SEEN: set[Plugin] = set()
_LOAD_LOCK = threading.RLock()
_done = False


def _load_plugins() -> None:
    """Register the ``remem.extensions`` entry points not loaded yet, once per process
    (other threads wait for the first caller): each entry point's object is an
    :class:`Extension`, for a component with tables but no engine (an engine's tables
    come with the engine). One that fails to load, is no Extension or clashes with a
    registered extension is logged and skipped."""
    global _done
    if _done:
        return
    with _LOAD_LOCK:
        if _done:
            return
        _done = True  # before loading: a plugin's import calling back returns at once
        for plugin in find(EXTENSIONS_GROUP):
            if plugin not in _SEEN:
                _SEEN.add(plugin)
                _load_plugin(plugin)


def _load_plugin(plugin: Plugin) -> None:
    obj, why = load(plugin, EXTENSIONS_GROUP)
    if why is not None:
        return
    if not isinstance(obj, Extension):
        log.warning(
            "%s entry point %s is %s, not an Extension",
            EXTENSIONS_GROUP,
            plugin.describe(),
            type(obj).__name__,
        )
        return
    try:
        register_extension(obj)
    except StoreError as exc:
        log.warning("%s entry point %s: %s", EXTENSIONS_GROUP, plugin.describe(), exc)


def _rescan() -> None:
    """Read the entry points again at the next need (for tests)."""
    global _done
    with _LOAD_LOCK:
        _done = False


def registered_extensions() -> Iterator[Extension]:
    """Every registered extension: the ``remem.extensions`` entry points (loaded on
    the first call) and those registered from code (the engines register theirs)."""
    _load_plugins()
    with _REGISTRY_LOCK:
        found = list(_REGISTRY.values())
    yield from found
