"""The part of Python's DB-API that the SQLite store uses, over APSW built with
SQLite3 Multiple Ciphers (the ``apsw-sqlite3mc`` wheel): the encrypted store's driver.

The store and every extension talk to a connection as they would to ``sqlite3``'s:
``execute`` (a cursor with ``fetchone``, ``fetchall``, ``rowcount``),
``executemany``, ``close``, the ``Error`` classes. APSW differs in those few places:
it has no ``rowcount`` (the connection's ``changes()`` right after the statement is
the same number), its exceptions are its own tree (one base, ``apsw.Error``, stands
for ``sqlite3.Error``, ``DatabaseError`` and ``OperationalError`` alike: the store
tells "locked" by the message, as it does with ``sqlite3``), and it is always in
autocommit mode unless a ``BEGIN`` is issued, which is how the store runs
``sqlite3`` anyway (``isolation_level=None``). ``docs/architecture.md`` says why this
and not SQLCipher's drop-in module (its SQLite build is slower).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import apsw

Error = apsw.Error
DatabaseError = apsw.Error
OperationalError = apsw.Error


class Cursor:
    """One executed statement: its rows, read as ``sqlite3``'s cursor gives them."""

    __slots__ = ("_cur", "rowcount")

    def __init__(self, cur: apsw.Cursor, rowcount: int):
        self._cur = cur
        self.rowcount = rowcount

    def fetchone(self) -> Any:
        return next(self._cur, None)

    def fetchall(self) -> list[Any]:
        return list(self._cur)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._cur)


class Connection:
    """An APSW connection with ``sqlite3``'s ``execute`` and ``executemany``."""

    Error = apsw.Error
    DatabaseError = apsw.Error
    OperationalError = apsw.Error

    def __init__(self, con: apsw.Connection):
        self._con = con

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        cur = self._con.cursor()
        cur.execute(sql, tuple(params))  # runs to the first row (a DML statement: to its end)
        return Cursor(cur, self._con.changes())

    def executemany(self, sql: str, rows: Iterable[Sequence[Any]]) -> None:
        self._con.cursor().executemany(sql, [tuple(r) for r in rows])

    def close(self) -> None:
        self._con.close()

    def copy_to(self, path: str, key_sql: str | None) -> None:
        """Copy the whole database into a new file at ``path`` through SQLite's backup
        (``key_sql``: the ``PRAGMA key`` the copy is written under, the source's own),
        reading it on this connection, under the locks it holds."""
        dest = apsw.Connection(path)
        try:
            if key_sql is not None:
                dest.execute(key_sql)
            with dest.backup("main", self._con, "main") as backup:
                while not backup.done:
                    backup.step(-1)
        finally:
            dest.close()


def connect(
    target: str,
    *,
    timeout: float = 5.0,
    isolation_level: None = None,
    check_same_thread: bool = False,
    uri: bool = False,
) -> Connection:
    """``sqlite3.connect``'s arguments as the store passes them: ``isolation_level``
    None (APSW's autocommit) and ``check_same_thread`` False (APSW's connections may
    cross threads; the store serialises them with its lock) are what APSW does."""
    flags = apsw.SQLITE_OPEN_READWRITE | apsw.SQLITE_OPEN_CREATE
    if uri:
        flags |= apsw.SQLITE_OPEN_URI
    con = apsw.Connection(target, flags=flags)
    con.set_busy_timeout(int(timeout * 1000))
    return Connection(con)
