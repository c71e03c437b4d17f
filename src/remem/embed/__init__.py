"""Embedders behind one :class:`Embedder` interface, picked by name.

``minilm`` (default, offline ONNX), ``openai`` (any OpenAI-compatible endpoint),
``sentence-transformers`` (extra ``st``). Models are loaded once per process and
shared, because loading costs far more than a Memory object.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ..errors import UnknownComponentError
from .base import Embedder

__all__ = ["Embedder", "create_embedder", "register_embedder", "embedder_names"]

_FACTORIES: dict[str, Callable[..., Embedder]] = {}
_SHARED: dict[str, Embedder] = {}
_LOCK = threading.Lock()


def register_embedder(name: str, factory: Callable[..., Embedder]) -> None:
    _FACTORIES[name] = factory


def embedder_names() -> list[str]:
    return sorted(_FACTORIES)


def create_embedder(name: str = "minilm", *, shared: bool = True, **options: Any) -> Embedder:
    """Build an embedder by name; without options the instance is cached and shared."""
    if name not in _FACTORIES:
        raise UnknownComponentError(
            f"unknown embedder {name!r}; choose one of {', '.join(embedder_names())}"
        )
    if not shared or options:
        return _FACTORIES[name](**options)
    with _LOCK:
        if name not in _SHARED:
            _SHARED[name] = _FACTORIES[name]()
        return _SHARED[name]


def _minilm(**options: Any) -> Embedder:
    from .onnx_minilm import OnnxMiniLM

    return OnnxMiniLM(**options)


def _openai(**options: Any) -> Embedder:
    from .openai import OpenAIEmbedder

    return OpenAIEmbedder(**options)


def _st(**options: Any) -> Embedder:
    from .sentence_transformers import SentenceTransformerEmbedder

    return SentenceTransformerEmbedder(**options)


register_embedder("minilm", _minilm)
register_embedder("openai", _openai)
register_embedder("sentence-transformers", _st)
