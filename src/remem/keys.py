"""API keys for the HTTP and MCP servers, each bound to one tenant.

Choices, and why:

* A key is ``rmm_<key id>_<secret>``. The key id is public (it names the key in
  ``remem keys list`` and in logs of key management); the secret is 32 random bytes.
  Only the SHA-256 digest of the secret is stored. A slow password hash buys nothing
  for a 256-bit random secret (nobody can brute-force it) and would cost every
  request milliseconds; a plain digest still means a stolen database yields no key.
* The digest is compared in constant time, and a wrong id, a wrong secret and a
  revoked key all give the same answer (None), so a caller learns nothing from
  the difference.
* Keys live in the memory database (``api_keys``, this module's own table, kept
  through the store's extension hook like an engine's tables), so every worker over
  one PostgreSQL sees a revocation at its next request (no per-worker key cache
  unless ``cache_s`` is set, which bounds how long a revoked key may still work).
* A tenant's users are stored as ``<tenant>:<user id>``. Tenant names cannot contain
  ``:``, so the first colon always splits the two and no tenant can name a user of
  another: another tenant's user looks exactly like a missing one.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Protocol

from .errors import InvalidInputError, InvalidTypeError, StoreError
from .store.extension import Extension, Tables


class _Attaches(Protocol):
    """What keeps the key ring's table: a Memory (or a bare store)."""

    def attach(self, extension: Extension) -> Tables: ...


PREFIX = "rmm_"
_ID_HEX = 12
_TENANT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_KEY = re.compile(rf"{PREFIX}([0-9a-f]{{{_ID_HEX}}})_([A-Za-z0-9_-]{{20,128}})")
KEY_SHAPED = re.compile(rf"{PREFIX}[0-9a-f]{{{_ID_HEX}}}_[A-Za-z0-9_-]*")
"""A key, or the start of one, anywhere in a text (a URL): its prefix and key id
are distinctive enough that nothing else looks like them."""
SEPARATOR = ":"

# A public key id, the tenant it is bound to, and the SHA-256 digest of its secret
# part (never the secret itself). Keys belong to no user: nothing here is erased with
# one.
_SQLITE_V1 = """
CREATE TABLE IF NOT EXISTS api_keys (
    key_id  TEXT PRIMARY KEY,
    tenant  TEXT NOT NULL,
    digest  TEXT NOT NULL,
    label   TEXT,
    created REAL NOT NULL,
    revoked REAL
);
CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys (tenant)
"""
_POSTGRES_V1 = """
CREATE TABLE IF NOT EXISTS api_keys (
    key_id  TEXT COLLATE "C" PRIMARY KEY,
    tenant  TEXT COLLATE "C" NOT NULL,
    digest  TEXT NOT NULL,
    label   TEXT,
    created DOUBLE PRECISION NOT NULL,
    revoked DOUBLE PRECISION
);
CREATE INDEX IF NOT EXISTS api_keys_tenant ON api_keys (tenant)
"""
KEY_TABLES = Extension(
    name="keys",
    migrations={"sqlite": [(1, _SQLITE_V1)], "postgres": [(1, _POSTGRES_V1)]},
    legacy=((5, 1),),  # store version 5 added the table (before extensions existed)
)
_COLUMNS = "key_id, tenant, digest, label, created, revoked"


@dataclass(frozen=True)
class KeyRow:
    """One API key as stored: only its SHA-256 digest; ``revoked`` is the revocation
    time (epoch seconds) or None."""

    key_id: str
    tenant: str
    digest: str
    label: str | None
    created: float
    revoked: float | None


@dataclass(frozen=True)
class KeyInfo:
    """A key as management shows it: never the secret, never the digest."""

    key_id: str
    tenant: str
    label: str | None
    created: float
    revoked: float | None

    @property
    def active(self) -> bool:
        return self.revoked is None

    def to_dict(self) -> dict[str, object]:
        return {
            "key_id": self.key_id,
            "tenant": self.tenant,
            "label": self.label,
            "created": self.created,
            "revoked": self.revoked,
            "active": self.active,
        }


def check_tenant(tenant: object) -> str:
    if not isinstance(tenant, str):
        raise InvalidTypeError(f"tenant must be a str, not {type(tenant).__name__}")
    if not _TENANT.fullmatch(tenant):
        raise InvalidInputError(
            "tenant must be 1-64 characters of letters, digits, '_', '.', '-', "
            "starting with a letter or digit"
        )
    return tenant


def scoped_user(tenant: str, user_id: str) -> str:
    """The stored user id of a tenant's user."""
    return f"{tenant}{SEPARATOR}{user_id}"


def unscoped_user(tenant: str, stored: str) -> str | None:
    """The tenant's own name for a stored user id, or None when it is not theirs."""
    head = tenant + SEPARATOR
    return stored[len(head) :] if stored.startswith(head) else None


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("ascii")).hexdigest()


def _info(row: KeyRow) -> KeyInfo:
    return KeyInfo(row.key_id, row.tenant, row.label, row.created, row.revoked)


class KeyRing:
    """Create, verify, list and revoke API keys kept in a store's ``api_keys``."""

    def __init__(self, tables: Tables, *, cache_s: float = 0.0):
        self._tables = tables
        self._cache_s = cache_s
        self._cache: dict[str, tuple[float, str | None]] = {}
        self._lock = threading.Lock()

    @classmethod
    def of(cls, mem: _Attaches, *, cache_s: float = 0.0) -> KeyRing:
        """The key ring kept in ``mem``'s database (the servers' keys live beside the
        memories, so every worker over one database sees every key and revocation)."""
        return cls(mem.attach(KEY_TABLES), cache_s=cache_s)

    def create(self, tenant: str, label: str | None = None) -> tuple[str, KeyInfo]:
        """A new key for ``tenant``: (the key, shown once and never stored; its info)."""
        tenant = check_tenant(tenant)
        if label is not None and not isinstance(label, str):
            raise InvalidTypeError(f"label must be a str, not {type(label).__name__}")
        if label is not None and len(label) > 200:
            raise InvalidInputError("label must be at most 200 characters")
        key_id = secrets.token_hex(_ID_HEX // 2)
        secret = secrets.token_urlsafe(32)
        row = KeyRow(key_id, tenant, _digest(secret), label, time.time(), None)
        with self._tables.write() as tx:
            added = tx.run(
                f"INSERT INTO api_keys ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (key_id) DO NOTHING",
                (row.key_id, row.tenant, row.digest, row.label, row.created, row.revoked),
            ).rowcount
        if added != 1:
            raise StoreError(f"an API key with id {row.key_id!r} exists")
        return f"{PREFIX}{key_id}_{secret}", _info(row)

    def verify(self, key: object) -> str | None:
        """The tenant of a valid, unrevoked key; None for anything else."""
        if not isinstance(key, str):
            return None
        m = _KEY.fullmatch(key.strip())
        if m is None:
            return None
        if self._cache_s > 0:
            with self._lock:
                hit = self._cache.get(key)
            if hit is not None and hit[0] > time.monotonic():
                return hit[1]
        key_id, secret = m.groups()
        with self._tables.read() as tx:
            found = tx.one(f"SELECT {_COLUMNS} FROM api_keys WHERE key_id = ?", (key_id,))
        row = KeyRow(*found) if found else None
        tenant = None
        if row is not None and hmac.compare_digest(row.digest, _digest(secret)):
            tenant = row.tenant if row.revoked is None else None
        if self._cache_s > 0:
            with self._lock:
                if len(self._cache) > 10_000:
                    self._cache.clear()
                self._cache[key] = (time.monotonic() + self._cache_s, tenant)
        return tenant

    def list(self, tenant: str | None = None) -> list[KeyInfo]:
        if tenant is not None:
            tenant = check_tenant(tenant)
        sql = f"SELECT {_COLUMNS} FROM api_keys"
        args: tuple = ()
        if tenant is not None:
            sql, args = sql + " WHERE tenant = ?", (tenant,)
        with self._tables.read() as tx:
            rows = tx.all(sql + " ORDER BY created, key_id", args)
        return [_info(KeyRow(*r)) for r in rows]

    def revoke(self, key_id: str) -> bool:
        """Revoke by key id (or by the whole key); False when unknown or already revoked."""
        if not isinstance(key_id, str):
            raise InvalidTypeError(f"key id must be a str, not {type(key_id).__name__}")
        m = _KEY.fullmatch(key_id.strip())
        key_id = m.group(1) if m else key_id.strip()
        with self._tables.write() as tx:
            ok = (
                tx.run(
                    "UPDATE api_keys SET revoked = ? WHERE key_id = ? AND revoked IS NULL",
                    (time.time(), key_id),
                ).rowcount
                > 0
            )
        with self._lock:
            self._cache.clear()
        return ok
