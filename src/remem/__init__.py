"""remem: fast, offline long-term memory for LLM agents.

The public surface is what this module exports; everything else is internal.
"""

from ._version import __version__
from .answer import Answer
from .errors import (
    EmbedderError,
    ErasureIncompleteError,
    InvalidInputError,
    InvalidTypeError,
    LLMError,
    NotFoundError,
    RememError,
    StoreError,
    TextTooLongError,
    UnknownComponentError,
)
from .llm import LLM, create_llm
from .memory import Memory
from .types import Hit, Recall

__all__ = [
    "LLM",
    "Answer",
    "EmbedderError",
    "ErasureIncompleteError",
    "Hit",
    "InvalidInputError",
    "InvalidTypeError",
    "LLMError",
    "Memory",
    "NotFoundError",
    "Recall",
    "RememError",
    "StoreError",
    "TextTooLongError",
    "UnknownComponentError",
    "__version__",
    "create_llm",
]
