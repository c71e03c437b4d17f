"""Retrieval engines behind one :class:`Engine` interface, picked by name.

Variants with preset options register names of their own (for example a later
``synapse-nofan``), so a benchmark row or a config file names one string.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import UnknownComponentError
from .base import Engine, EngineContext, Scored
from .baselines import BM25Engine, DenseEngine, HybridEngine

__all__ = [
    "Engine",
    "EngineContext",
    "Scored",
    "check_engine_name",
    "create_engine",
    "engine_names",
    "register_engine",
]

_FACTORIES: dict[str, Callable[..., Engine]] = {}


def register_engine(name: str, factory: Callable[..., Engine]) -> None:
    _FACTORIES[name] = factory


def engine_names() -> list[str]:
    return sorted(_FACTORIES)


def check_engine_name(name: object) -> str:
    if not isinstance(name, str):
        raise UnknownComponentError(f"engine must be a name (str), not {type(name).__name__}")
    if name not in _FACTORIES:
        raise UnknownComponentError(
            f"unknown engine {name!r}; choose one of {', '.join(engine_names())}"
        )
    return name


def create_engine(name: str, ctx: EngineContext, **options: Any) -> Engine:
    return _FACTORIES[check_engine_name(name)](ctx, **options)


register_engine("dense", DenseEngine)
register_engine("bm25", BM25Engine)
register_engine("hybrid", HybridEngine)


def _register_builtin() -> None:
    from .ilstma import register as register_ilstma
    from .synapse import register as register_synapse

    register_synapse()
    register_ilstma()


_register_builtin()
