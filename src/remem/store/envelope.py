"""Envelope encryption for PostgreSQL (and inside encrypted SQLite files given a key
store), and crypto-shredding: a data key per user, wrapped by a master key, kept in a
key store apart from the database.

Why, and how:

* PostgreSQL has no file cipher remem can drive (as SQLite3 Multiple Ciphers is for
  SQLite), and its files, WAL archives and dumps are outside remem's reach. But remem
  searches in process (each user's rows and vectors are loaded into its own indexes),
  so the server never needs to read a memory: what tells (the text, speaker, session,
  time, metadata, passages and the vectors, which can be inverted to text) is sealed
  here, in the application, before it is sent, and opened after it is read.
* **A data key per user** (32 random bytes, AES-256-GCM), so one user's rows can be
  made unreadable everywhere at once: :meth:`KeyRing.destroy` on ``delete_user``
  leaves the rows of every backup, dump or WAL archive taken before sealed under a
  key nobody holds any more (crypto-shredding). The key is never in the database.
* **A master key wraps the data keys** where the key store keeps them
  (:class:`DirectoryKeyRing`: one file per user, named by a keyed hash of the user id
  so its listing names no one). An application with a KMS passes its own
  :class:`KeyRing` instead (any object with ``get``/``create``/``destroy``), and the
  KMS does the wrapping.
* **Each sealed value is bound to its place**: the associated data is the table,
  column and row id, so a sealed value copied into another row or column fails to
  open instead of reading as that row's (GCM authenticates it).
* A wrong master key fails at once, on open, with :class:`DatabaseKeyError`: the key
  store holds a check value sealed under the master key when it is created.
* **User ids as keyed hashes** (envelope v2, :class:`UserRefs`): every user column
  holds an HMAC of the id under a random secret kept in the key store as one more
  entry (:data:`USER_IDS_ENTRY`), so a dump names no one, SQL still scopes by
  equality, and a master key rotation only rewraps it; the plain ids are sealed in
  ``user_names`` for listing users. The database keeps a fingerprint of the secret,
  so another deployment's key store is refused on open.
* **Master key rotation** (:meth:`DirectoryKeyRing.rotate`, ``remem rekey``) rewraps
  the key files one at a time behind a rotation record, so a kill loses nothing.
* The sealing runs at the store's one boundary (``SqlStore``: rows inserted, rows
  read) and, for the engines' own tables, through ``Tx.seal_text``/``seal_bytes``,
  so a SQLite file given a key store seals the same way (its file key wraps the key
  store): per-user shredding of the file's earlier copies.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from ..errors import DatabaseKeyError, InvalidInputError, MissingDependencyError, StoreError
from .cipher import fsync

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

#: What a sealed value starts with (after base64 for text): the format's version.
SEALED_V1 = b"\x01"
#: A value sealed for lookups (:meth:`Envelope.seal_text` with ``lookup``): AES-SIV,
#: the same words giving the same bytes, so SQL can still match them by equality.
SEALED_LOOKUP_V1 = b"\x02"
NONCE_BYTES = 12
KEY_BYTES = 32
#: PBKDF2 rounds stretching the master key (a passphrase slows a guesser down; a
#: random key, as docs/deploy.md asks for, needs none, and one stretch per open is
#: about as long as the SQLite cipher's).
PBKDF2_ROUNDS = 64_007
_CHECK = b"remem keyring v1"
#: The envelope marks (meta ``envelope``): v1 kept user ids in clear; v2 keeps a keyed
#: hash of each in every user column (:class:`UserRefs`).
ENVELOPE_V1 = "aes-256-gcm-v1"
ENVELOPE_V2 = "aes-256-gcm-v2"
#: The key store entry holding the secret of the user ids' keyed hash: a name no user
#: reaches (a v2 store hashes every user id before it names a data key), so it is
#: wrapped, rotated and backed up as the data keys are, and never destroyed.
USER_IDS_ENTRY = "\x00remem user ids"
_META = "keyring.json"
#: A master key rotation under way (``DirectoryKeyRing.rotate``).
_ROTATING = "keyring.rotating.json"


@functools.lru_cache(maxsize=256)
def _aesgcm(key: bytes) -> AESGCM:
    """The cipher of one key, made once (a search opens tens of values of one user:
    making it per value was a third of the envelope's cost)."""
    try:
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    except ModuleNotFoundError as exc:
        raise MissingDependencyError(
            "encrypted PostgreSQL stores need the cryptography package: "
            "pip install 'remem[encrypt]'"
        ) from exc
    return AESGCM(key)


def _invalid_tag() -> type[Exception]:
    from cryptography.exceptions import InvalidTag

    return InvalidTag


@runtime_checkable
class KeyRing(Protocol):
    """Where the users' data keys live, apart from the database (a directory, a KMS).

    ``get`` returns the user's 32-byte data key, or None when the user has none (never
    had one, or it was destroyed); ``create`` makes one (or returns the existing one:
    two processes creating at once must agree); ``destroy`` makes it unrecoverable."""

    def get(self, user_id: str) -> bytes | None: ...

    def create(self, user_id: str) -> bytes: ...

    def destroy(self, user_id: str) -> None: ...


def master_key(key: str | bytes) -> bytes:
    """The master key as bytes: text (a key file's content, ``REMEM_DB_KEY``) or bytes;
    not empty."""
    raw = key.encode("utf-8") if isinstance(key, str) else bytes(key)
    if not raw:
        raise InvalidInputError("the master key must not be empty")
    return raw


class DirectoryKeyRing:
    """Data keys as files in a directory, each wrapped (AES-256-GCM) by a key
    stretched from the master key; the file name is an HMAC of the user id, so the
    directory names no one. Written atomically (a temporary file linked into place:
    of two processes creating one user's key, one wins and both use its key), mode
    600, the directory 700.

    :meth:`rotate` rewraps every data key under a new master key without touching the
    data (see its notes): while one is under way (``keyring.rotating.json``), either
    master key opens every key file, whichever of the two wraps it."""

    def __init__(self, path: str | os.PathLike[str], master: str | bytes):
        self.path = Path(path)
        try:
            self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot use {self.path} as a key store: {exc}") from None
        #: the wrapping keys a key file may be under, the one new files get first
        self._wraps: list[bytes]
        self._wraps, self._name = self._derive(master_key(master))

    def __repr__(self) -> str:
        return f"DirectoryKeyRing({str(self.path)!r})"

    def _read_meta(self, name: str) -> dict[str, Any] | None:
        meta_path = self.path / name
        try:
            return dict(json.loads(meta_path.read_text()))
        except FileNotFoundError:
            return None
        except (OSError, ValueError, TypeError) as exc:
            raise StoreError(f"the key store's {meta_path} is unreadable: {exc}") from None

    def _derive(self, master: bytes) -> tuple[list[bytes], bytes]:
        """(wrapping keys, naming key) from the master key and the store's salt; the
        check value tells a wrong master key before any data key is used. A pending
        rotation's record opens with either master key and gives the other's wrap."""
        meta = self._read_meta(_META)
        if meta is None:
            salt = os.urandom(16)
            wrap = _stretch(master, salt)[0]
            record = {
                "version": 1,
                "salt": base64.b64encode(salt).decode(),
                "check": _seal(wrap, _CHECK, b"check").hex(),
            }
            self._write_new(self.path / _META, json.dumps(record).encode())
            return self._derive(master)  # the winner's salt, if another process raced
        rotating = self._read_meta(_ROTATING)
        if rotating is not None and rotating.get("check") == meta.get("check"):
            (self.path / _ROTATING).unlink(missing_ok=True)  # a finished one's leftover
            rotating = None
        opened = _open_meta(meta, master)
        if opened is not None:
            wrap, name = opened
            if rotating is None:
                return [wrap], name
            return [_open(wrap, _hex(rotating, "new"), b"rotate new"), wrap], name
        target = _open_meta(rotating, master) if rotating is not None else None
        if target is None:
            raise DatabaseKeyError(
                f"the master key does not open the key store {self.path} (a wrong key?)",
                "wrong",
            )
        assert rotating is not None
        return [target[0], _open(target[0], _hex(rotating, "old"), b"rotate old")], target[1]

    def _file(self, user_id: str) -> Path:
        digest = _keyed(self._name, user_id.encode("utf-8"))
        return self.path / f"{digest}.key"

    def get(self, user_id: str) -> bytes | None:
        file = self._file(user_id)
        try:
            wrapped = file.read_bytes()
        except FileNotFoundError:
            return None
        return self._unwrap(file, wrapped)

    def _unwrap(self, file: Path, wrapped: bytes) -> bytes:
        for wrap in self._wraps:
            with contextlib.suppress(ValueError):
                return _open(wrap, wrapped, file.name.encode())
        raise DatabaseKeyError(
            f"the key store's {file.name} does not open under the master key", "wrong"
        )

    def create(self, user_id: str) -> bytes:
        file = self._file(user_id)
        key = os.urandom(KEY_BYTES)
        self._write_new(file, _seal(self._wraps[0], key, file.name.encode()))
        got = self.get(user_id)
        assert got is not None
        return got

    def destroy(self, user_id: str) -> None:
        """Overwrite the wrapped key, then unlink it (on a copy-on-write or journaled
        file system the old blocks may stay until reused: the master key still guards
        them, and the key store's backups must expire, docs/deploy.md)."""
        file = self._file(user_id)
        try:
            with open(file, "r+b") as fh:
                fh.write(b"\0" * os.fstat(fh.fileno()).st_size)
                fh.flush()
                os.fsync(fh.fileno())
            file.unlink()
        except FileNotFoundError:
            return
        fsync(self.path)

    def rotate(self, new_master: str | bytes, *, finish: bool = True) -> int:
        """Rewrap every data key under ``new_master``; the data is not touched. Returns
        the key files rewrapped by this call.

        Safe when killed at any point, and resumable: first a record of the rotation
        (the new salt and check, and each wrapping key sealed under the other) is
        written whole (a temporary file, fsynced, renamed); from then on either master
        key opens every key file. Each key file is then rewritten the same way (write
        new, fsync, rename), one at a time: a kill leaves it wrapped by the old key or
        by the new one, never neither. Last, the record replaces ``keyring.json`` (a
        rename), and only the new master key opens the store. Running again with the
        same new key finishes a killed rotation; another new key is refused until it
        is finished. Stop the processes using the key store first: one that opened it
        before the rotation would wrap a new user's key under the old master key.
        ``finish=False`` stops before the last step (an encrypted SQLite file's rekey
        rewrites the file then, while either key opens the key store)."""
        new = master_key(new_master)
        for pattern in (".*.key.*", f".{_META}.*", f".{_ROTATING}.*"):
            for left in self.path.glob(pattern):  # a killed run's temporary files
                left.unlink(missing_ok=True)
        record, new_wrap, _ = self._rotation(new)
        done = 0
        for file in sorted(self.path.glob("*.key")):
            wrapped = file.read_bytes()
            with contextlib.suppress(ValueError):
                _open(new_wrap, wrapped, file.name.encode())
                continue  # rewrapped by an earlier, killed run
            key = self._unwrap(file, wrapped)
            self._replace(file, _seal(new_wrap, key, file.name.encode()))
            done += 1
        fsync(self.path)
        if not finish:
            return done
        final = {k: record[k] for k in ("version", "salt", "check", "names")}
        self._replace(self.path / _META, json.dumps(final).encode())
        (self.path / _ROTATING).unlink(missing_ok=True)
        fsync(self.path)
        self._wraps = [new_wrap]
        return done

    def _rotation(self, new: bytes) -> tuple[dict[str, Any], bytes, bytes]:
        """The pending rotation's record to ``new`` (written now unless one is pending),
        with the new and the old wrapping keys."""
        pending = self._read_meta(_ROTATING)
        if pending is not None:
            opened = _open_meta(pending, new)
            if opened is None:
                raise DatabaseKeyError(
                    f"a rotation of {self.path} to another master key is under way "
                    f"({_ROTATING}): finish it with that key first",
                    "wrong",
                )
            return pending, opened[0], _open(opened[0], _hex(pending, "old"), b"rotate old")
        old_wrap = self._wraps[0]
        if _open_meta(self._read_meta(_META) or {}, new) is not None:
            raise InvalidInputError("the new master key is the key store's current one")
        salt = os.urandom(16)
        new_wrap = _stretch(new, salt)[0]
        record = {
            "version": 2,
            "salt": base64.b64encode(salt).decode(),
            "check": _seal(new_wrap, _CHECK, b"check").hex(),
            "names": _seal(new_wrap, self._name, b"names").hex(),
            "new": _seal(old_wrap, new_wrap, b"rotate new").hex(),
            "old": _seal(new_wrap, old_wrap, b"rotate old").hex(),
        }
        self._replace(self.path / _ROTATING, json.dumps(record).encode())
        fsync(self.path)
        return record, new_wrap, old_wrap

    def _replace(self, file: Path, data: bytes) -> None:
        """``data`` as ``file``, whole or not at all (write new, fsync, rename)."""
        tmp = _flushed(file, data)
        try:
            os.replace(tmp, file)
        finally:
            tmp.unlink(missing_ok=True)

    def _write_new(self, file: Path, data: bytes) -> None:
        """``data`` as ``file`` unless it exists (then the existing one stays)."""
        tmp = _flushed(file, data)
        try:
            with contextlib.suppress(FileExistsError):
                os.link(tmp, file)
        finally:
            tmp.unlink(missing_ok=True)
        fsync(self.path)


def rotate_master(
    path: str | os.PathLike[str], old: str | bytes, new: str | bytes, *, finish: bool = True
) -> int:
    """``remem rekey`` on a key store directory: :meth:`DirectoryKeyRing.rotate` from
    ``old`` to ``new``; the number of key files rewrapped (0 when a run killed after
    its last step left nothing to do). Never creates a key store."""
    where = Path(path)
    if not (where / _META).is_file():
        raise InvalidInputError(f"{where} is not a key store (no {_META})")
    try:
        ring = DirectoryKeyRing(where, old)
    except DatabaseKeyError:
        try:
            DirectoryKeyRing(where, new)  # a finished rotation: nothing left to do
        except DatabaseKeyError:
            raise DatabaseKeyError(
                f"neither the old master key nor the new one opens the key store {where}",
                "wrong",
            ) from None
        return 0
    return ring.rotate(new, finish=finish)


def _stretch(master: bytes, salt: bytes) -> tuple[bytes, bytes]:
    """(wrapping key, naming key) stretched from a master key and a salt."""
    import hashlib  # on the encrypted path only: it loads OpenSSL (_keyed)

    stretched = hashlib.pbkdf2_hmac("sha256", master, salt, PBKDF2_ROUNDS, 64)
    return stretched[:32], stretched[32:]


def _keyed(key: bytes, data: bytes) -> str:
    """HMAC-SHA256 of ``data`` under ``key``, in hex. hashlib and hmac are imported
    here, on the encrypted path, because importing them loads OpenSSL (3.5 MB of
    resident memory) into every ``remem`` command that opens a plain store."""
    import hashlib
    import hmac

    return hmac.new(key, data, hashlib.sha256).hexdigest()


def _siv_key(key: bytes) -> bytes:
    """The AES-SIV key of the lookup seal, derived from the user's data key."""
    import hashlib  # on the encrypted path only (_keyed)

    return hashlib.sha512(b"remem lookup v1\0" + key).digest()


def _hex(record: dict[str, Any], field: str) -> bytes:
    try:
        return bytes.fromhex(record[field])
    except (KeyError, TypeError, ValueError):
        raise StoreError(f"the key store's record lacks a valid {field!r}") from None


def _open_meta(meta: dict[str, Any], master: bytes) -> tuple[bytes, bytes] | None:
    """(wrapping key, naming key) of a key store record (``keyring.json``, or a
    rotation's) when ``master`` opens its check, else None. A record made by a
    rotation carries the naming key sealed (file names never change); a first one
    derives it from the master key."""
    try:
        salt = base64.b64decode(meta["salt"])
        wrap, name = _stretch(master, salt)
        if _open(wrap, bytes.fromhex(meta["check"]), b"check") != _CHECK:
            return None
        if "names" in meta:
            name = _open(wrap, bytes.fromhex(meta["names"]), b"names")
    except (KeyError, TypeError, ValueError):
        return None
    return wrap, name


def _flushed(file: Path, data: bytes) -> Path:
    """``data`` in a new temporary file beside ``file`` (mode 600), on disk: what a
    rename or a link then makes ``file`` whole or not at all."""
    tmp = file.with_name(f".{file.name}.{os.getpid()}.{os.urandom(4).hex()}")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _seal(key: bytes, data: bytes, aad: bytes) -> bytes:
    nonce = os.urandom(NONCE_BYTES)
    return SEALED_V1 + nonce + _aesgcm(key).encrypt(nonce, data, aad)


def _open(key: bytes, sealed: bytes, aad: bytes) -> bytes:
    """``ValueError`` for anything that is not a value sealed under ``key`` for ``aad``."""
    if len(sealed) < 1 + NONCE_BYTES + 16 or sealed[:1] != SEALED_V1:
        raise ValueError("not a sealed value")
    nonce = sealed[1 : 1 + NONCE_BYTES]
    try:
        return bytes(_aesgcm(key).decrypt(nonce, sealed[1 + NONCE_BYTES :], aad))
    except _invalid_tag():
        raise ValueError("does not open") from None


class Envelope:
    """Seals and opens one user's values under the user's data key from a
    :class:`KeyRing`. Data keys are cached per process only for the duration of one
    call's rows (:meth:`user_key`), never across calls: a key destroyed by another
    process must not keep sealing new rows here."""

    def __init__(self, keyring: KeyRing):
        if not isinstance(keyring, KeyRing):
            raise InvalidInputError(
                "keyring must have get(user_id), create(user_id) and destroy(user_id)"
            )
        self.keyring = keyring

    def user_key(self, user_id: str, *, create: bool = False) -> bytes:
        key = self.keyring.get(user_id)
        if key is None and create:
            key = self.keyring.create(user_id)
        if key is None:
            raise DatabaseKeyError(
                "this user's data key is not in the key store (destroyed by delete_user, "
                "or a key store from another deployment): the rows cannot be read",
                "missing",
            )
        if len(key) != KEY_BYTES:
            raise DatabaseKeyError(f"a data key must be {KEY_BYTES} bytes, not {len(key)}", "wrong")
        return key

    @staticmethod
    def seal(key: bytes, data: bytes, place: str) -> bytes:
        return _seal(key, data, place.encode("utf-8"))

    @staticmethod
    def open(key: bytes, sealed: bytes, place: str) -> bytes:
        try:
            if sealed[:1] == SEALED_LOOKUP_V1:
                from cryptography.hazmat.primitives.ciphers.aead import AESSIV

                siv = _siv_key(key)
                try:
                    return bytes(AESSIV(siv).decrypt(bytes(sealed[1:]), [place.encode("utf-8")]))
                except _invalid_tag():
                    raise ValueError("does not open") from None
            return _open(key, bytes(sealed), place.encode("utf-8"))
        except ValueError:
            raise DatabaseKeyError(
                f"a sealed value ({place.split(':')[0]}) does not open under its user's data "
                "key: a wrong key store, or a value changed or moved in the database",
                "wrong",
            ) from None

    @staticmethod
    def seal_lookup(key: bytes, data: bytes, place: str) -> bytes:
        """Deterministic sealing (AES-SIV under a key derived from the data key): equal
        values of one user and place seal equal, so a column matched by equality in SQL
        (a concept's label) still matches, and nothing else is told of the value."""
        from cryptography.hazmat.primitives.ciphers.aead import AESSIV

        siv = _siv_key(key)
        return SEALED_LOOKUP_V1 + AESSIV(siv).encrypt(data, [place.encode("utf-8")])

    @classmethod
    def seal_text(cls, key: bytes, text: str, place: str, *, lookup: bool = False) -> str:
        data = text.encode("utf-8")
        sealed = cls.seal_lookup(key, data, place) if lookup else cls.seal(key, data, place)
        return base64.b64encode(sealed).decode("ascii")

    @classmethod
    def open_text(cls, key: bytes, sealed: str, place: str) -> str:
        try:
            raw = base64.b64decode(sealed, validate=True)
        except ValueError:
            raise DatabaseKeyError(
                f"a value of {place.split(':')[0]} is not sealed: a plain database opened "
                "with a key?",
                "unexpected",
            ) from None
        return cls.open(key, raw, place).decode("utf-8")


class UserRefs:
    """User ids as the user columns of a v2 sealed store hold them: ``u`` and an
    HMAC-SHA256 (128 bits, hex) under a random secret kept in the key store. SQL still
    scopes every query by equality, and a dump names no one. The plain id cannot be
    got back from the hash: the store keeps it sealed under the user's data key
    (``user_names``) for listing users, and this process remembers the ids it hashed
    lately so that a write can record the name (bounded: an id long unseen is hashed
    again by its next call before any write)."""

    CAP = 100_000

    def __init__(self, secret: bytes):
        self._secret = secret
        self._names: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def ref(self, user_id: str) -> str:
        ref = "u" + _keyed(self._secret, user_id.encode("utf-8"))[:32]
        with self._lock:
            self._names[ref] = user_id
            self._names.move_to_end(ref)
            if len(self._names) > self.CAP:
                self._names.popitem(last=False)
        return ref

    @staticmethod
    def fingerprint(secret: bytes) -> str:
        """What the database keeps of the secret (meta ``user_ids``) to tell its own
        key store from another: an HMAC of a constant, which reveals nothing of it."""
        return _keyed(secret, b"remem user ids check")[:32]

    def name(self, ref: str) -> str | None:
        """The plain id this process hashed to ``ref`` lately (None: not seen)."""
        with self._lock:
            return self._names.get(ref)


#: The ``memories`` columns sealed, by their index in ``INSERT_COLUMNS`` values:
#: (column, index, whether it is text; else bytes). ``ts_epoch`` (6) is written as 0:
#: no query reads it, and the time a memory speaks of tells.
_INSERT_SEALED = (
    ("text", 3, True),
    ("speaker", 4, True),
    ("ts", 5, True),
    ("session_id", 7, True),
    ("metadata", 8, True),
    ("embedding", 9, False),
    ("passages", 11, True),
    ("passage_vectors", 12, False),
)
#: The same columns by their index in ``MEMORY_COLUMNS`` rows (vectors: from the end).
_ROW_SEALED = (
    ("text", 3, True),
    ("speaker", 4, True),
    ("ts", 5, True),
    ("session_id", 6, True),
    ("metadata", 7, True),
    ("passages", 8, True),
)
_VECTORS_SEALED = (("embedding", -2), ("passage_vectors", -1))


def seal_insert(key: bytes, values: list[Any]) -> list[Any]:
    """One memory's ``INSERT_COLUMNS`` values with what tells sealed (None stays None:
    that a memory has no speaker is visible)."""
    out = list(values)
    memory_id = values[0]
    for column, i, text in _INSERT_SEALED:
        v = values[i]
        if v is not None:
            place = f"memories.{column}:{memory_id}"
            out[i] = Envelope.seal_text(key, v, place) if text else Envelope.seal(key, v, place)
    out[6] = 0.0
    return out


def open_row(key: bytes, row: Sequence[Any], vectors: bool) -> tuple[Any, ...]:
    """A ``MEMORY_COLUMNS`` row (with the ``VECTOR_COLUMNS`` last, with ``vectors``) as
    the plain store holds it."""
    out = list(row)
    memory_id = row[0]
    for column, i, _ in _ROW_SEALED:
        if row[i] is not None:
            out[i] = Envelope.open_text(key, row[i], f"memories.{column}:{memory_id}")
    if vectors:
        for column, i in _VECTORS_SEALED:
            if row[i] is not None:
                out[i] = Envelope.open(key, row[i], f"memories.{column}:{memory_id}")
    return tuple(out)


def make_envelope(
    key: str | bytes | None, keyring: str | os.PathLike[str] | KeyRing | None, what: str
) -> Envelope | None:
    """The envelope a store's ``key`` and ``keyring`` make (None: no envelope): a
    master key with a key store directory, or an application's :class:`KeyRing` (its
    KMS wraps the keys: no master key here). A PostgreSQL store with a key and no key
    store is refused: its data keys must live apart from the database."""
    if keyring is None:
        if key is not None and what.startswith("PostgreSQL"):
            raise InvalidInputError(
                "an encrypted PostgreSQL store keeps its users' data keys apart from the "
                "database: give keyring= (a directory, or a KeyRing object) with key="
            )
        return None
    if isinstance(keyring, (str, os.PathLike)):
        if key is None:
            raise InvalidInputError(f"keyring={str(keyring)!r} needs the master key (key=)")
        return Envelope(DirectoryKeyRing(keyring, key))
    if key is not None and what.startswith("PostgreSQL"):
        raise InvalidInputError(
            "key= wraps a keyring directory's keys; a KeyRing object wraps its own"
        )
    return Envelope(keyring)


__all__ = [
    "ENVELOPE_V1",
    "ENVELOPE_V2",
    "USER_IDS_ENTRY",
    "DirectoryKeyRing",
    "Envelope",
    "KeyRing",
    "UserRefs",
    "master_key",
    "open_row",
    "rotate_master",
    "seal_insert",
]
