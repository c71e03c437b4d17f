"""How long a reply's ``Retry-After`` header asks a client to wait: one reading for
both of remem's HTTP clients, the OpenAI-compatible endpoints' (``_openai.py``) and
remem's own server's (``client/``), so both wait the same for the same header.

Standard library only, and below every other layer: the clients import it, it
imports nothing of remem.
"""

from __future__ import annotations

import email.utils
import math
import time
from datetime import timezone


def seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` in seconds (RFC 9110: delay-seconds or an HTTP date, a date
    past counting as 0); None when absent or unreadable, for the caller's own
    backoff to decide. An HTTP date is GMT: one sent without its zone is read so."""
    if value is None:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    wait = when.timestamp() - (time.time() if now is None else now)
    return max(0.0, wait) if math.isfinite(wait) else None
