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
* The first read (page 1, whose MAC fails under a wrong key) tells a missing key, a
  wrong one and a key for a plain file apart, before anything is written: a failed
  open never changes the file.
* :func:`rewrite` re-encrypts a whole file (a new key, a plain file encrypted, an
  encrypted one made plain) as a new file beside it, fsynced, then renamed over the
  old one: a run killed at any point leaves the old file (old key) or the new one
  (new key), whole. ``PRAGMA rekey`` rewrites the pages of a file one by one, so it
  runs only on the private copy, never on the live file, where a kill part-way would
  leave pages under both keys.
"""

from __future__ import annotations

import os
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

TMP_SUFFIX = ".rekey"
"""The new file :func:`rewrite` writes beside the old one before renaming it over."""
LOCK_WAIT_S = 5.0
"""How long :func:`rewrite` waits for the file's exclusive lock: any other connection
(a server, a shell) keeps it, and the rewrite must not run under one (its writes would
go to the old file)."""


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
    if not getattr(mcdb.apsw, "mc_version", ""):
        # plain APSW has the same module name and ignores PRAGMA key: the file would
        # be written in clear by a caller who asked for it encrypted
        raise MissingDependencyError(
            "the installed apsw has no encryption (it is not apsw-sqlite3mc): pip "
            "uninstall apsw, then pip install 'remem[encrypt]'"
        )
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


def unlock(con: Any, path: str, key: str | None) -> None:
    """Give ``con`` its key (None: a plain file) and read page 1, so a wrong or missing
    key fails here, before any write: a :class:`DatabaseKeyError` (a damaged file: a
    :class:`StoreError`), the connection left to the caller to close.

    The file is only ever read through SQLite, never opened beside it to look at its
    header: closing another descriptor of a database file drops every POSIX lock the
    process holds on it, those of the process's other connections included (SQLite's
    "how to corrupt a database", 2.2)."""
    if key is not None:
        con.execute(key_statement(key))
    try:
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except con.DatabaseError as exc:
        if "not a database" not in str(exc) and "malformed" not in str(exc):
            raise  # not about the key or the file's state (a lock held past the timeout)
        raise _refusal(path, key, str(exc)) from None


def _refusal(path: str, key: str | None, why: str) -> StoreError:
    """Why page 1 could not be read: a damaged file, no key for an encrypted one, a
    key for a plain one (it reads without one), or a wrong key."""
    if "malformed" in why:  # page 1 was read: the key, if any, is right
        return StoreError(
            f"{path!r} opens but is damaged (truncated or overwritten): restore it from "
            f"a backup ({why})"
        )
    if key is None:
        return DatabaseKeyError(
            f"{path!r} is not a plain SQLite file: it is encrypted (give its key: "
            "Memory(key=...), REMEM_DB_KEY or --key-file), or not a database at all",
            "missing",
        )
    if _reads_plain(path):
        return DatabaseKeyError(
            f"{path!r} is a plain (unencrypted) database and a key was given: encrypt it "
            "first (remem encrypt), or open it without a key",
            "unexpected",
        )
    return DatabaseKeyError(
        f"the key does not open {path!r}: it is the wrong key, or the file's first page "
        f"is damaged, or it is not a remem database ({why})",
        "wrong",
    )


def _reads_plain(path: str) -> bool:
    """Whether the file reads as a plain database (through the cipher's own library,
    see :func:`unlock`). Read-write but never creating: a read-only connection to a WAL
    file would leave an empty ``-wal`` and ``-shm`` behind, which the last connection
    to close removes."""
    db = driver()
    con = db.connect(f"{Path(path).absolute().as_uri()}?mode=rw", uri=True)
    try:
        con.execute("SELECT count(*) FROM sqlite_master").fetchone()
        return True
    except db.Error:
        return False
    finally:
        con.close()


def rekey_sealed(
    path: str | os.PathLike[str], keyring: str | os.PathLike[str], old: str, new: str
) -> None:
    """Rekey a file whose users' rows are sealed under a key store wrapped by its key
    (``store/envelope.py``): the key store's data keys rewrapped under ``new`` up to
    its last step (from then on either key opens it), the file rewritten under ``new``
    (unless a killed run did that already), then the key store's rotation finished.
    Killed at any point, the file opens with one of the two keys and the key store
    with that key too; running again finishes the job."""
    from .envelope import rotate_master

    rotate_master(keyring, old, new, finish=False)
    if not _opens_with(Path(path), new):
        rewrite(path, old, new, sealed=True)
    rotate_master(keyring, old, new)


def _opens_with(path: Path, key: str) -> bool:
    db = driver()
    con = db.connect(str(path), timeout=LOCK_WAIT_S)
    try:
        unlock(con, str(path), key)
        return True
    except DatabaseKeyError:
        return False
    finally:
        con.close()


def rewrite(
    path: str | os.PathLike[str], old: str | None, new: str | None, *, sealed: bool = False
) -> None:
    """Write the database at ``path`` anew under the key ``new`` (None: plain), read
    with ``old`` (None: a plain file), atomically (see the module notes). Nothing else
    may have the file open: the rewrite takes its exclusive lock first, and a file in
    use is a :class:`StoreError` with the file untouched. ``sealed``: a file sealed
    under a key store may be rekeyed (``rekey_sealed`` rewraps its key store)."""
    target = Path(path)
    if not target.is_file():
        raise StoreError(f"no database at {str(path)!r}")
    if target.stat().st_size == 0:
        raise StoreError(f"{str(path)!r} is empty: there is nothing to rewrite")
    tmp = target.with_name(target.name + TMP_SUFFIX)
    _remove(tmp)  # what an earlier run killed part-way left
    db = driver()
    con = db.connect(str(target), timeout=LOCK_WAIT_S)
    try:
        unlock(con, str(target), old)
        if not (sealed and new is not None):
            _refuse_sealed(con, str(target), old)
        _take_alone(con, db, str(target))
        # SQLite's backup, not a file copy: see unlock (the lock is ours, the WAL empty)
        con.copy_to(str(tmp), None if old is None else key_statement(old))
        _rekey(db, tmp, old, new)
        fsync(tmp)
        os.replace(tmp, target)
        fsync(target.parent)
    except BaseException:
        _remove(tmp)
        raise
    finally:
        con.close()


def _refuse_sealed(con: Any, path: str, old: str | None) -> None:
    """A file whose users' rows are sealed under a key store (``store/envelope.py``)
    is not rewritten under another key: its key store directory is wrapped by this
    key, and rewrapping it with the file is not built. Refused before anything
    changes (a rewritten file whose key store no longer opens would lose every user)."""
    if old is None:
        return
    try:
        row = con.execute("SELECT value FROM meta WHERE key = 'envelope'").fetchone()
    except Exception:  # noqa: BLE001 - a file from before the meta table: no envelope
        return
    if row is not None:
        raise StoreError(
            f"{path!r} seals each user's rows under a key store wrapped by its key: "
            "rekey it with its key store (REMEM_KEYRING); removing the key is not "
            "supported (export, then import into a plain file); the file is unchanged"
        )


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


def fsync(path: Path) -> None:
    """Flush ``path`` (a file or a folder: a rename is durable once its folder is)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove(tmp: Path) -> None:
    for leftover in (tmp, tmp.with_name(tmp.name + "-journal")):
        leftover.unlink(missing_ok=True)
