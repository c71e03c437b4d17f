"""remem: fast, offline long-term memory for LLM agents.

The public surface is what this module exports; everything else is internal.

The errors and the version are imported with the package; :class:`Memory` and the
rest on first use (PEP 562), because every ``remem`` command imports this package
first, and ``remem --version`` or ``remem count`` should not pay for the engines,
indexes and readers that ``Memory`` brings with it.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._version import __version__
from .errors import (
    DatabaseKeyError,
    EmbedderError,
    ErasureIncompleteError,
    InvalidFilterError,
    InvalidInputError,
    InvalidTypeError,
    LLMError,
    MissingDependencyError,
    NotFoundError,
    RememError,
    RemoteError,
    StoreError,
    TextTooLongError,
    UnknownComponentError,
)

if TYPE_CHECKING:
    from .aio import AsyncMemory
    from .answer import Answer
    from .client import AsyncClient, Client
    from .filters import Filters
    from .llm import LLM, create_llm
    from .memory import Memory
    from .types import Hit, Recall, Trace, Version

_LAZY = {
    "Answer": ".answer",
    "AsyncMemory": ".aio",
    # the HTTP client needs httpx (the 'client' extra): without it, MissingDependencyError
    "Client": ".client",
    "AsyncClient": ".client",
    "LLM": ".llm",
    "create_llm": ".llm",
    "Memory": ".memory",
    "Filters": ".filters",
    "Hit": ".types",
    "Recall": ".types",
    "Trace": ".types",
    "Version": ".types",
}
"""Exported names imported on first use, and the module each comes from."""


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        raise AttributeError(f"module 'remem' has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name], __name__), name)
    globals()[name] = value  # once: later lookups do not come back here
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "LLM",
    "Answer",
    "AsyncClient",
    "AsyncMemory",
    "Client",
    "DatabaseKeyError",
    "EmbedderError",
    "ErasureIncompleteError",
    "Filters",
    "InvalidFilterError",
    "Hit",
    "InvalidInputError",
    "InvalidTypeError",
    "LLMError",
    "Memory",
    "MissingDependencyError",
    "NotFoundError",
    "Recall",
    "RememError",
    "RemoteError",
    "StoreError",
    "TextTooLongError",
    "Trace",
    "UnknownComponentError",
    "Version",
    "__version__",
    "create_llm",
]
