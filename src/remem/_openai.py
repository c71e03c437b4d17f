"""What the OpenAI-compatible clients (chat in ``llm/openai.py``, embeddings in
``embed/openai.py``) share: where the endpoint is, and one JSON POST with bounded
retries.

Standard library only, so the base install stays light. Retried: connection
failures, timeouts, unreadable replies, 429 and 5xx, with exponential backoff capped
at 8 s. Not retried, because they do not heal: other 4xx. A 401/403 and a 404 get a
message that says what to check (the key; the base URL and model), since those are
what a user gets wrong.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

from . import env


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
    naming ``what`` endpoint, ``Rejected`` when ``reject(status, body)`` says so."""
    headers = {"Content-Type": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    data = json.dumps(payload).encode()
    last = kind = ""
    for attempt in range(retries + 1):
        req = urllib.request.Request(url, data, headers)
        try:
            with urllib.request.urlopen(req, timeout=timeout_s) as resp:
                return json.load(resp)
        except urllib.error.HTTPError as exc:
            detail = _body(exc)
            if reject is not None and reject(exc.code, detail):
                raise Rejected(f"HTTP {exc.code}: {detail}") from None
            # the body may echo the request (the memories): in the message, for the
            # caller, but never in what a log may say (``log_detail``)
            last, kind = f"HTTP {exc.code}: {detail}", f"HTTP {exc.code}"
            if exc.code in (401, 403):
                raise _failed(
                    error, f"{url}: not authorised ({last}); check OPENAI_API_KEY", kind
                ) from None
            if exc.code == 404:
                raise _failed(
                    error,
                    f"{url}: not found ({last}); check the base URL and model {model!r}",
                    kind,
                ) from None
            if exc.code < 500 and exc.code != 429:
                raise _failed(error, f"{url}: {last}", kind) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, OSError) as exc:
            last = str(getattr(exc, "reason", exc)) or type(exc).__name__
            kind = "no connection"
        except ValueError as exc:  # not JSON: a proxy page, a half-closed stream
            last, kind = f"unreadable reply ({exc})", "unreadable reply"
        if attempt < retries:
            time.sleep(min(backoff_s * 2**attempt, 8.0))
    message = f"{what} endpoint {url} failed after {retries + 1} tries: {last}"
    raise _failed(error, message, f"{kind} after {retries + 1} tries")


def _failed(error: type[Exception], message: str, log_detail: str) -> Exception:
    """``error(message)`` carrying what a log may say of it (no body, no URL)."""
    exc = error(message)
    exc.log_detail = log_detail  # type: ignore[attr-defined]
    return exc


def _body(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read().decode("utf-8", "replace")[:300]
    except Exception:
        return exc.reason or ""
