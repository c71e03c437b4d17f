"""Exception types of remem.

Every error remem raises on purpose derives from :class:`RememError`, so callers can
catch the library's failures in one place. Input errors also derive from the builtin
they refine (``ValueError`` / ``TypeError``) so generic handlers keep working.
"""

from __future__ import annotations


class RememError(Exception):
    """Base class of every error raised by remem on purpose."""

    #: What a log line may say of this error beyond its type (an HTTP status, a count
    #: of tries): never memory text, a prompt, a reply or a key, which the message may
    #: hold (see ``redact.py``).
    log_detail: str = ""


class InvalidInputError(RememError, ValueError):
    """A value has the right type but cannot be accepted (empty text, bad timestamp, k <= 0...)."""


class InvalidTypeError(RememError, TypeError):
    """A value has the wrong type (text that is not a string, metadata that is not a dict...)."""


class InvalidOptionError(InvalidInputError, InvalidTypeError):
    """An option (``engine_options``, ``store_options``, ...) of the wrong type or out
    of its range (``remem/options.py``). Both an :class:`InvalidInputError` and an
    :class:`InvalidTypeError`: the engines' options raised the first
    and the stores' and LLMs' the second before one mechanism checked them all, and a
    caller catching either still catches it."""


class InvalidFilterError(InvalidInputError, InvalidTypeError):
    """``filters=`` of a read with an unknown key, a wrong type or a bad value
    (``remem/filters.py``). Both kinds, as :class:`InvalidOptionError`: a filter's
    type and its value are checked in one pass, and a caller catching either
    catches it."""


class TextTooLongError(InvalidInputError):
    """A memory's text exceeds ``Memory(max_text_chars=...)`` (100,000 characters by default)."""


class UnknownComponentError(RememError, ValueError):
    """An engine, embedder or store was requested by a name nobody registered."""


class NotFoundError(RememError, KeyError):
    """A memory id does not exist for this user (another user's id looks exactly the same)."""

    def __str__(self) -> str:  # KeyError would repr() the message
        return str(self.args[0]) if self.args else "not found"


class StoreError(RememError):
    """The backend failed, or holds data remem cannot use (newer schema, other embedder)."""


class ErasureIncompleteError(StoreError):
    """An erase deleted its rows (no read returns them any more), but their bytes could
    not be scrubbed from the database files yet: another connection holds a snapshot
    from before the erase (a long read, a backup), and SQLite cannot move the erased
    pages out of the write-ahead log under it. Raised rather than reporting a clean
    erase that did not happen.

    The scrub stays pending, recorded in the database file, and the next write, erase,
    ``Memory.scrub()`` or close of any process on the file finishes it. Until then a
    retry of the same erase raises this again with the same ``result``; other users'
    erases never raise it for this one (it is not theirs to hear of). ``result`` is
    what the call would have returned (the ids deleted, the number of memories
    erased)."""

    def __init__(self, message: str, result: object = None):
        super().__init__(message)
        self.result = result


class DatabaseKeyError(StoreError):
    """An encrypted database (``Memory(path, key=...)``, ``store/cipher.py``) cannot be
    opened with the key given: no key for an encrypted file, a key for a plain one, a
    wrong key, or a file too damaged (truncated) to tell. Raised before anything is
    written, so the file is never changed by a failed open. ``reason`` is one of
    ``"missing"``, ``"unexpected"``, ``"wrong"``. The message never holds the key."""

    def __init__(self, message: str, reason: str):
        super().__init__(message)
        self.reason = reason
        self.log_detail = reason


class EmbedderError(RememError):
    """The embedder could not be loaded or failed to embed."""


class LLMError(RememError):
    """The LLM backend failed: a dead or refusing endpoint, a missing model, or a
    reply that stayed unusable after the bounded repairs and retries."""


class RemoteError(RememError):
    """A remem server (``remem.Client``) refused or failed a request for a reason the
    library has no error of its own for: a missing or revoked API key (401
    ``unauthorized``), a body over the server's cap (413 ``body_too_large``), an
    internal failure (500 ``internal``), or an answer that is not remem's at all (a
    proxy's page). ``status`` is the HTTP status and ``code`` the server's stable
    error code ("" when the answer carried none)."""

    def __init__(self, message: str, *, status: int = 0, code: str = ""):
        super().__init__(message)
        self.status = status
        self.code = code
        self.log_detail = f"HTTP {status} {code}".strip()


class MissingDependencyError(RememError, ImportError):
    """An optional part of remem needs a package that is not installed; the message
    names the extra that installs it (``pip install 'remem[langchain]'``)."""
