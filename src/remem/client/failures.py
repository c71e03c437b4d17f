"""What a remem server's failures mean to a client: each stable error code back to the
:class:`~remem.RememError` the library itself raises (``serve/httperrors.py`` maps
them the other way), and how long a 503 asks the client to wait before trying again.

Kept apart from the transport so the mapping can be read, and tested, as the table
it is: a code added to the server is one line here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import (
    EmbedderError,
    ErasureIncompleteError,
    InvalidFilterError,
    InvalidInputError,
    InvalidTypeError,
    LLMError,
    NotFoundError,
    RememError,
    RemoteError,
    StoreError,
    TextTooLongError,
)
from ..retry_after import seconds as retry_after_seconds

CODES: dict[str, type[RememError]] = {
    "text_too_long": TextTooLongError,
    "invalid_filter": InvalidFilterError,
    "invalid_type": InvalidTypeError,
    "invalid_input": InvalidInputError,
    # the server's request schema refused a field the client's own checks let pass
    # (a k over the server's 200, ...): a value it cannot accept
    "invalid_request": InvalidInputError,
    "duplicate_key": InvalidInputError,
    "not_found": NotFoundError,
    "llm_unavailable": LLMError,
    "embedder_unavailable": EmbedderError,
    "store_unavailable": StoreError,
}
"""The server's stable error codes and the library's error for each; any other code
(``unauthorized``, ``body_too_large``, ``internal``, ...) is a :class:`RemoteError`."""


def error_for(status: int, payload: Any) -> RememError:
    """The library's error for a failed answer: by its code when it carries remem's
    ``{"error": {"code", "message"}}``, else a :class:`RemoteError` naming the status."""
    err = payload.get("error") if isinstance(payload, dict) else None
    if not isinstance(err, dict):
        return RemoteError(
            f"the server answered HTTP {status} without a remem error (a proxy?)", status=status
        )
    code, message = str(err.get("code", "")), str(err.get("message", ""))
    if code == "erasure_incomplete":
        return ErasureIncompleteError(message, result=err.get("deleted"))
    kind = CODES.get(code)
    if kind is None:
        return RemoteError(f"{message} (HTTP {status} {code})", status=status, code=code)
    return kind(message)


def unreachable(base_url: str, exc: Exception) -> StoreError:
    """A server that could not be reached or did not answer in time: a
    :class:`StoreError`, as a database that cannot be reached is for ``Memory``."""
    return StoreError(f"cannot reach the remem server at {base_url}: {type(exc).__name__} {exc}")


@dataclass(frozen=True)
class Retry:
    """When a client tries a request again: only after a 503 (the server is up but
    cannot serve now: its store, embedder or reader is unavailable, or an erase's
    scrub is pending), at most ``retries`` times, after the wait its ``Retry-After``
    asks for (else ``backoff`` seconds, doubling). A wait over ``max_wait`` is not
    waited: the 503's error is raised at once, since retrying sooner than the server
    asked would only be refused again, and a call must not hang for minutes."""

    retries: int = 2
    max_wait: float = 30.0
    backoff: float = 0.5

    def delay(self, status: int, retry_after: str | None, retried: int) -> float | None:
        """Seconds to wait before the next try, or None: answer with this response."""
        if status != 503 or retried >= self.retries:
            return None
        wait = retry_after_seconds(retry_after)
        if wait is None:
            wait = self.backoff * 2**retried
        return wait if wait <= self.max_wait else None
