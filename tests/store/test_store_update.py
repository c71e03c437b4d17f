"""``Store.update`` on both backends (SQLite, PostgreSQL): a delete and an add of the
same id in one transaction, as every cache and extension sees it; user-scoped; a
compare-and-swap on the sequence number; the history extension's rows kept, every
other extension's dropped and derived again."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from remem.store import Store
from remem.store.base import UpdateConflict
from remem.store.extension import Extension, Tx
from remem.store.history import HISTORY_TABLES, versions
from remem.store.sqlite import SQLiteStore
from remem.types import StoredMemory
from store_rows import new_memory, vectors  # noqa: E402


class Derived(Extension):
    """Keeps one row per memory, derived from its text (as the engines' tables do),
    and a log of what the hooks were told."""

    def on_add(self, tx: Tx, user_id: str, memories: list[StoredMemory]) -> None:
        tx.many(
            "INSERT INTO upd_derived (user_id, memory_id, text) VALUES (?, ?, ?)",
            [(user_id, m.id, m.text) for m in memories],
        )

    def on_update(
        self, tx: Tx, user_id: str, old: StoredMemory, new: StoredMemory, changed: tuple[str, ...]
    ) -> None:
        tx.run(
            "INSERT INTO upd_log (user_id, line) VALUES (?, ?)",
            (user_id, f"{old.id} {old.seq}->{new.seq} {','.join(changed)}"),
        )


_SCHEMA = (
    "CREATE TABLE upd_derived (user_id TEXT NOT NULL, memory_id TEXT NOT NULL, text TEXT);"
    "CREATE TABLE upd_log (user_id TEXT NOT NULL, line TEXT NOT NULL)"
)
DERIVED = Derived(
    name="upd_test",
    migrations={"sqlite": [(1, _SCHEMA)], "postgres": [(1, _SCHEMA)]},
    user_tables=("upd_derived", "upd_log"),
    memory_refs=(("upd_derived", "memory_id"),),
)


@pytest.fixture(params=["sqlite", "postgres"])
def make(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Store]]:
    """Opens bare stores on one location (several calls: several "processes")."""
    opened: list[Store] = []

    def factory() -> Store:
        if request.param == "sqlite":
            s: Store = SQLiteStore(tmp_path / "update.db")
        else:
            from remem.store.postgres import PostgresStore

            s = PostgresStore(request.getfixturevalue("pg_url"))
        opened.append(s)
        return s

    yield factory
    for s in opened:
        s.close()


@pytest.fixture
def store(make: Callable[[], Store]) -> Store:
    s = make()
    s.attach(DERIVED)
    s.attach(HISTORY_TABLES)
    return s


def _rows(s: Store, sql: str, args: tuple = ()) -> list[tuple]:
    with s.attach(DERIVED).read() as tx:
        return tx.all(sql, args)


def _update(s: Store, m: StoredMemory, text: str, **kw: Any) -> StoredMemory | None:
    kw.setdefault("expect_seq", m.seq)
    kw.setdefault("changed", ("text",))
    return s.update(m.user_id, m.id, new_memory(text), vectors(1, seed=9)[0], None, **kw)


def test_update_is_a_delete_and_an_add_of_the_same_id(store: Store):
    a, b = store.add("u", [new_memory("alpha"), new_memory("beta")], vectors(2))
    state = store.user_state("u")
    new = _update(store, a, "alpha two")
    assert new is not None and (new.id, new.seq, new.text) == (a.id, 2, "alpha two")
    after = store.user_state("u")
    assert after.epoch == state.epoch
    assert (after.next_seq, after.del_rev) == (state.next_seq + 1, state.del_rev + 1)
    assert [(m.id, m.seq, m.text) for m in store.load("u")] == [
        (b.id, 1, "beta"),
        (a.id, 2, "alpha two"),
    ]
    loaded = store.load("u")[-1]
    assert np.allclose(loaded.embedding, vectors(1, seed=9)[0])
    assert store.get("u", [a.id])[a.id].text == "alpha two"
    assert store.count("u") == 2


def test_derived_rows_are_derived_again_and_the_history_kept(store: Store):
    (a,) = store.add("u", [new_memory("alpha")], vectors(1))
    new = _update(store, a, "alpha two", changed=("text", "metadata"))
    assert new is not None
    derived = _rows(store, "SELECT memory_id, text FROM upd_derived WHERE user_id = ?", ("u",))
    assert derived == [(a.id, "alpha two")]
    assert _rows(store, "SELECT line FROM upd_log") == [(f"{a.id} 0->1 text,metadata",)]
    _update(store, new, "alpha three")
    got = versions(store.attach(HISTORY_TABLES), "u", a.id)
    assert got is not None
    assert [(v.version, v.text, v.changed) for v in got] == [
        (1, "alpha", ()),
        (2, "alpha two", ("text", "metadata")),
        (3, "alpha three", ("text",)),
    ]
    assert store.delete("u", [a.id]) == [a.id]
    assert versions(store.attach(HISTORY_TABLES), "u", a.id) is None
    assert _rows(store, "SELECT COUNT(*) FROM memory_history") == [(0,)]


def test_another_users_memory_is_no_memory(store: Store):
    (a,) = store.add("owner", [new_memory("alpha")], vectors(1))
    store.add("intruder", [new_memory("mine")], vectors(1))
    before = store.user_state("owner")
    got = store.update("intruder", a.id, new_memory("x"), None, None, expect_seq=0, changed=())
    assert got is None
    missing = store.update("owner", "f" * 32, new_memory("x"), None, None, expect_seq=0, changed=())
    assert missing is None
    assert store.get("owner", [a.id])[a.id].text == "alpha"
    assert store.user_state("owner") == before
    assert versions(store.attach(HISTORY_TABLES), "intruder", a.id) is None


def test_a_stale_sequence_number_is_a_conflict(store: Store):
    (a,) = store.add("u", [new_memory("alpha")], vectors(1))
    assert _update(store, a, "alpha two") is not None
    state = store.user_state("u")
    with pytest.raises(UpdateConflict):
        _update(store, a, "alpha stale")  # ``a`` still carries seq 0
    assert store.get("u", [a.id])[a.id].text == "alpha two"
    assert store.user_state("u") == state


def test_a_store_without_the_history_attached_erases_it(store: Store, make):
    """The recorded rule erases the versions in a store that never attached the
    history (older code, a tool), as every extension's rows."""
    (a,) = store.add("u", [new_memory("alpha")], vectors(1))
    _update(store, a, "alpha two")
    assert make().delete_user("u") == 1
    assert _rows(store, "SELECT COUNT(*) FROM memory_history") == [(0,)]
