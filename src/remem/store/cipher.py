"""Encrypted SQLite files: SQLite3 Multiple Ciphers (``apsw-sqlite3mc``) under
:class:`SQLiteStore`.

Why this extension, and how (docs/architecture.md has the measurements against
SQLCipher):

* Every page of the file and every frame of its WAL is encrypted and authenticated
  (ChaCha20-Poly1305, the library's default cipher; the passphrase stretched by
  PBKDF2-HMAC-SHA256 with a random salt kept in the file), so every table of the
  store, of every engine and of every storage extension is covered by one key, with
  nothing for an extension to do. Temporary tables and sorts stay in memory (the
  wheel's build: ``SQLITE_TEMP_STORE=2``), never in a plain temporary file.
* The store runs the same SQL on it as on ``sqlite3``: ``mcdb.py`` gives APSW's
  connection the few DB-API calls the store makes.
* A file's first 16 bytes tell a plain SQLite file ("SQLite format 3") from an
  encrypted one (random salt): a store given no key for an encrypted file, or a key
  for a plain one, says so before anything is opened. A wrong key is caught by the
  first read (the MAC of page 1 fails), before anything is written: a failed open
  never changes the file.
* :func:`rewrite` re-encrypts a whole file (a new key, a plain file encrypted, an
  encrypted one made plain) as a new file beside it, fsynced, then renamed over the
  old one: a run killed at any point leaves the old file (old key) or the new one
  (new key), whole. ``PRAGMA rekey`` rewrites the pages of a file one by one, so it
  runs only on the private copy, never on the live file, where a kill part-way would
  leave pages under both keys.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import (
    DatabaseKeyError,
    InvalidInputError,
    InvalidTypeError,
    MissingDependencyError,
    StoreError,
)

SQLITE_MAGIC = b"SQLite format 3\x00"
"""The first 16 bytes of every plain SQLite file (an encrypted one starts with its salt)."""
TMP_SUFFIX = ".rekey"
"""The new file :func:`rewrite` writes beside the old one before renaming it over."""
LOCK_WAIT_S = 5.0
"""How long :func:`rewrite` waits for the file's exclusive lock: any other connection
(a server, a shell) keeps it, and the rewrite must not run under one (its writes would
go to the old file)."""

Key = str | bytes


def driver() -> ModuleType:
    """The DB-API module over SQLite3 Multiple Ciphers (``mcdb.py``), or a clear
    error naming the extra."""
    try:
        from . import mcdb
    except ModuleNotFoundError as exc:
        if exc.name != "apsw":
            raise
        raise MissingDependencyError(
            "encrypted databases need SQLite3 Multiple Ciphers: pip install 'remem[encrypt]'"
        ) from exc
    return mcdb


def check_key(key: object, name: str = "key") -> str:
    """``key`` as the passphrase the cipher is given: text, or bytes that are UTF-8
    (a key file's content); not empty, no NUL (SQLite's strings end there)."""
    if isinstance(key, bytes):
        try:
            key = key.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidInputError(f"{name} must be UTF-8 text") from None
    if not isinstance(key, str):
        raise InvalidTypeError(f"{name} must be a str or bytes, not {type(key).__name__}")
    if not key or "\x00" in key:
        raise InvalidInputError(f"{name} must be non-empty text without NUL characters")
    return key


def read_key_file(path: str | os.PathLike[str]) -> str:
    """The key a key file holds: its text less one trailing newline (``echo`` adds
    one). Keys come from files or the environment, never from a command line, where
    ``ps`` and shell histories show them."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InvalidInputError(f"cannot read the key file {str(path)!r}: {exc.strerror}") from None
    return check_key(raw.removesuffix(b"\n").removesuffix(b"\r"), f"the key in {str(path)!r}")


def key_statement(key: str) -> str:
    """``PRAGMA key`` for ``key`` (a PRAGMA takes no bound parameter; quotes doubled)."""
    return "PRAGMA key = '{}'".format(key.replace("'", "''"))


def file_kind(path: str | os.PathLike[str]) -> str:
    """``"none"`` (no file, or an empty one: a new database), ``"plain"`` (a plain
    SQLite file) or ``"other"`` (encrypted, or not a database at all)."""
    try:
        with open(path, "rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        return "none"
    if not head:
        return "none"
    return "plain" if head == SQLITE_MAGIC else "other"


def check_file(path: str, key: str | None) -> None:
    """Refuse, before opening, a key for a plain file and no key for one that is not
    plain (both: :class:`DatabaseKeyError`)."""
    kind = file_kind(path)
    if key is not None and kind == "plain":
        raise DatabaseKeyError(
            f"{path!r} is a plain (unencrypted) database and a key was given: encrypt it "
            "first (remem encrypt), or open it without a key",
            "unexpected",
        )
    if key is None and kind == "other":
        raise DatabaseKeyError(
            f"{path!r} is not a plain SQLite file: it is encrypted (give its key: "
            "Memory(key=...), REMEM_DB_KEY or --key-file), or not a database at all",
            "missing",
        )


def unlock(con: Any, path: str, key: str) -> None:
    """Give ``con`` its key and read page 1, so a wrong key fails here, before any
    write: a :class:`DatabaseKeyError`, the connection left to the caller to close."""
    con.execute(key_statement(key))
    try:
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except con.DatabaseError as exc:
        if "malformed" in str(exc):  # page 1 decrypted: the key is right
            raise StoreError(
                f"{path!r} opens with this key but is damaged (truncated or overwritten): "
                f"restore it from a backup ({exc})"
            ) from None
        raise DatabaseKeyError(
            f"the key does not open {path!r}: it is the wrong key, or the file's first "
            f"page is damaged, or it is not a remem database ({exc})",
            "wrong",
        ) from None


def rewrite(path: str | os.PathLike[str], old: str | None, new: str | None) -> None:
    """Write the database at ``path`` anew under the key ``new`` (None: plain), read
    with ``old`` (None: a plain file), atomically (see the module notes). Nothing else
    may have the file open: the rewrite takes its exclusive lock first, and a file in
    use is a :class:`StoreError` with the file untouched."""
    target = Path(path)
    if not target.is_file():
        raise StoreError(f"no database at {str(path)!r}")
    check_file(str(target), old)
    if file_kind(target) == "none":
        raise StoreError(f"{str(path)!r} is empty: there is nothing to rewrite")
    tmp = target.with_name(target.name + TMP_SUFFIX)
    _remove(tmp)  # what an earlier run killed part-way left
    db = driver()
    con = db.connect(str(target), timeout=LOCK_WAIT_S)
    try:
        if old is not None:
            unlock(con, str(target), old)
        _take_alone(con, db, str(target))
        shutil.copyfile(target, tmp)  # no one writes: the lock is ours, the WAL empty
        _rekey(db, tmp, old, new)
        _fsync(tmp)
        os.replace(tmp, target)
        _fsync(target.parent)
    except BaseException:
        _remove(tmp)
        raise
    finally:
        con.close()


def _rekey(db: ModuleType, copy: Path, old: str | None, new: str | None) -> None:
    """Re-encrypt the private ``copy`` in place (``PRAGMA rekey``, which the cipher
    runs in rollback-journal mode only; the store turns WAL on again at its next
    open). An empty new key writes it plain."""
    con = db.connect(str(copy))
    try:
        if old is not None:
            con.execute(key_statement(old))
        con.execute("PRAGMA journal_mode = DELETE").fetchone()
        con.execute("PRAGMA rekey = '{}'".format((new or "").replace("'", "''")))
        if con.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise StoreError("the rewritten copy failed its integrity check; nothing changed")
    finally:
        con.close()


def _take_alone(con: Any, db: ModuleType, path: str) -> None:
    """Hold the file's exclusive lock until ``con`` closes (no other connection may
    read or write it meanwhile), and empty its WAL into it, so the file alone is
    the whole database and a WAL left behind never belongs to the new file."""
    try:
        con.execute("PRAGMA locking_mode = EXCLUSIVE").fetchone()
        con.execute("BEGIN EXCLUSIVE")
        con.execute("COMMIT")
        busy, _, _ = con.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
    except db.OperationalError as exc:
        if "locked" not in str(exc) and "busy" not in str(exc):
            raise
        busy = 1
    if busy:
        raise StoreError(
            f"{path!r} is in use by another connection (a server, a shell): stop it, "
            "then run this again; the file is unchanged"
        )


def _fsync(path: Path) -> None:
    """Flush ``path`` (a file or a folder: a rename is durable once its folder is)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(tmp: Path) -> None:
    for leftover in (tmp, tmp.with_name(tmp.name + "-journal")):
        leftover.unlink(missing_ok=True)
