"""remem: fast, offline long-term memory for LLM agents.

The public surface is what this module exports; everything else is internal.
"""

from .errors import (
    EmbedderError,
    InvalidInputError,
    InvalidTypeError,
    NotFoundError,
    RememError,
    StoreError,
    TextTooLongError,
    UnknownComponentError,
)
from .memory import Memory
from .types import Hit, Recall

__version__ = "0.1.0"

__all__ = [
    "EmbedderError",
    "Hit",
    "InvalidInputError",
    "InvalidTypeError",
    "Memory",
    "NotFoundError",
    "Recall",
    "RememError",
    "StoreError",
    "TextTooLongError",
    "UnknownComponentError",
    "__version__",
]
