"""What the OpenAI-compatible clients (chat in ``llm/openai.py``, embeddings in
``embed/openai.py``) share: where the endpoint is, and one JSON POST with bounded
retries, over httpx.

httpx is imported when the first request is sent, not with this module: ``remem
--version`` and ``remem count`` never pay for it (docs/architecture.md, "Libraries
and what stays hand-written"). One client per process keeps connections alive
between calls; a forked worker makes its own rather than share the parent's sockets.

Retried: connection failures, timeouts, unreadable replies, 429 and 5xx, with
exponential backoff capped at 8 s, or as long as the reply's ``Retry-After`` says
(seconds or an HTTP date, read by ``retry_after.py`` as ``remem.Client`` reads it):
a rate-limited server that names its wait is asked again once it has passed, not
before. A wait over ``RETRY_AFTER_CAP_S`` is not waited: the call fails at once,
saying so, since asking sooner would only be refused again and a call must not
hang for minutes (``remem.Client``'s rule too). Not retried, because they do not
heal: other 4xx. A 401/403 and a 404 get a message that says
what to check (the key; the base URL and model), since those are what a user gets
wrong.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from . import env, retry_after

if TYPE_CHECKING:
    import httpx

#: the longest ``Retry-After`` waited for: a longer one fails the call at once
RETRY_AFTER_CAP_S = 30.0
#: the longest exponential backoff between tries, when the reply names no wait
BACKOFF_CAP_S = 8.0


def endpoint(base_url: str | None, api_key: str | None) -> tuple[str, str]:
    """(base URL without a trailing slash, API key): the arguments, else the usual
    ``OPENAI_BASE_URL`` / ``OPENAI_API_KEY`` environment variables, else OpenAI's
    URL and no key (local servers need none)."""
    base = (base_url or env.read("OPENAI_BASE_URL")).rstrip("/")
    key = api_key if api_key is not None else env.read("OPENAI_API_KEY")
    return base, key


class Rejected(Exception):
    """The server refused this form of request (``reject`` said so); the caller may
    retry in another form."""


def post_json(
    url: str,
    payload: dict[str, Any],
    *,
    api_key: str,
    timeout_s: float,
    retries: int,
    backoff_s: float,
    error: type[Exception],
    what: str,
    model: str,
    reject: Callable[[int, str], bool] | None = None,
) -> Any:
    """POST ``payload`` as JSON and return the decoded reply; failures raise ``error``
    naming ``what`` endpoint, ``Rejected`` when ``reject(status, body)`` says so.
    ``timeout_s`` bounds each connect, read and write, as a socket timeout does."""
    import httpx  # here, not at module level: see the module's docstring

    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    data = json.dumps(payload).encode()
    client = _client()
    last = kind = ""
    for attempt in range(retries + 1):
        wait: float | None = None
        try:
            resp = client.post(url, content=data, headers=headers, timeout=timeout_s)
        except httpx.TransportError as exc:  # refused, reset, timed out, cut short
            last, kind = str(exc) or type(exc).__name__, "no connection"
        else:
            if resp.is_success:
                try:
                    return resp.json()
                except ValueError as exc:  # not JSON: a proxy page, a half-closed stream
                    last, kind = f"unreadable reply ({exc})", "unreadable reply"
            else:
                last, kind = _refused(resp, url, error, model, reject)
                wait = retry_after.seconds(resp.headers.get("Retry-After"))
        if attempt < retries and wait is not None and wait > RETRY_AFTER_CAP_S:
            message = (
                f"{what} endpoint {url} failed after {attempt + 1} tries: {last} "
                f"(it asks to wait {wait:.0f} s, more than {RETRY_AFTER_CAP_S:.0f} s)"
            )
            raise _failed(error, message, f"{kind}, a wait of {wait:.0f} s asked")
        if attempt < retries:
            time.sleep(wait if wait is not None else min(backoff_s * 2**attempt, BACKOFF_CAP_S))
    message = f"{what} endpoint {url} failed after {retries + 1} tries: {last}"
    raise _failed(error, message, f"{kind} after {retries + 1} tries")


def _refused(
    resp: httpx.Response,
    url: str,
    error: type[Exception],
    model: str,
    reject: Callable[[int, str], bool] | None,
) -> tuple[str, str]:
    """(what went wrong, what a log may say) for an error status worth retrying (429,
    5xx); for any other it raises: ``Rejected`` when ``reject`` says so, else
    ``error`` with what to check."""
    code, detail = resp.status_code, resp.text[:300]
    if reject is not None and reject(code, detail):
        raise Rejected(f"HTTP {code}: {detail}")
    # the body may echo the request (the memories): in the message, for the caller,
    # but never in what a log may say (``log_detail``)
    last, kind = f"HTTP {code}: {detail}", f"HTTP {code}"
    if code in (401, 403):
        raise _failed(error, f"{url}: not authorised ({last}); check OPENAI_API_KEY", kind)
    if code == 404:
        raise _failed(
            error, f"{url}: not found ({last}); check the base URL and model {model!r}", kind
        )
    if code < 500 and code != 429:
        raise _failed(error, f"{url}: {last}", kind)
    return last, kind


_lock = threading.Lock()
_shared: tuple[int, httpx.Client] | None = None


def _client() -> httpx.Client:
    """This process's client: made on first use, and again in a forked child (a
    parent's pooled sockets must not be shared with it). httpx's client is safe
    across threads; the timeout is given per request."""
    global _shared
    import httpx

    with _lock:
        if _shared is None or _shared[0] != os.getpid():
            _shared = (os.getpid(), httpx.Client())
        return _shared[1]


def _failed(error: type[Exception], message: str, log_detail: str) -> Exception:
    """``error(message)`` carrying what a log may say of it (no body, no URL)."""
    exc = error(message)
    exc.log_detail = log_detail  # type: ignore[attr-defined]
    return exc
