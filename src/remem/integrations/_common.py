"""What every adapter shares: the install hint for a missing framework, the checks
of the arguments an adapter is built with, and one JSON-ready shape of a hit."""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import InvalidInputError, InvalidTypeError, MissingDependencyError
from ..memory import Memory
from ..types import Hit
from ..validation import check_k, check_user_id, parse_timestamp


def require(module: str, extra: str) -> None:
    """Import ``module`` or raise :class:`MissingDependencyError` naming the extra that
    installs it: the adapters subclass their framework's classes, so they cannot be
    defined without it, and a bare ``ModuleNotFoundError`` would not say what to do."""
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise MissingDependencyError(
            f"{module} is not installed: pip install 'remem[{extra}]' "
            "(or 'remem[integrations]' for every framework)"
        ) from exc


def check_memory(memory: Any) -> Memory:
    """An adapter wraps a :class:`remem.Memory`; anything else is refused at once rather
    than at its first call."""
    if not isinstance(memory, Memory):
        raise InvalidTypeError(f"memory must be a remem.Memory, not {type(memory).__name__}")
    return memory


def check_binding(memory: Any, user_id: Any, k: Any) -> tuple[Memory, str, int]:
    """The memory, user and result count an adapter is bound to, checked with remem's
    own rules (a user id is a non-empty string; k a positive int)."""
    if user_id is None:
        raise InvalidInputError("user_id is required: an adapter is bound to one user")
    return check_memory(memory), check_user_id(user_id), check_k(k)


def check_now(now: Any) -> Any:
    """The ``now`` an adapter passes to every recall, checked when it is made (None: the
    current time at each call): a bad one would otherwise fail only at the first query."""
    if now is not None:
        parse_timestamp(now, what="now")
    return now


def hit_dict(hit: Hit, reached: str | None = None) -> dict[str, Any]:
    """A hit as JSON-ready fields, the names every adapter uses: ``session`` is the
    memory's ``session_id``; ``reached`` says how the engine found it (its anchor or
    the activation path from one; empty when the engine does not trace)."""
    return {
        "id": hit.id,
        "score": hit.score,
        "speaker": hit.speaker,
        "timestamp": hit.timestamp.isoformat(),
        "session": hit.session_id,
        "metadata": hit.metadata,
        "reached": reached or "",
    }
