"""Retrieval engines behind one :class:`Engine` interface, picked by name.

Variants with preset options register names of their own (for example a later
``synapse-nofan``), so a benchmark row or a config file names one string.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial
from typing import Any

from ..errors import UnknownComponentError
from ..options import NoOptions, resolve
from .base import Engine, EngineContext, Scored
from .baselines import BM25Engine, DenseEngine, HybridConfig, HybridEngine

__all__ = [
    "Engine",
    "EngineContext",
    "Scored",
    "check_engine_name",
    "check_engine_options",
    "create_engine",
    "engine_names",
    "register_engine",
]

_FACTORIES: dict[str, Callable[..., Engine]] = {}
_SETTINGS: dict[str, Callable[[Mapping[str, Any]], object]] = {}


def register_engine(
    name: str,
    factory: Callable[..., Engine],
    settings: Callable[[Mapping[str, Any]], object] | None = None,
) -> None:
    """Make ``factory(ctx, **options)`` the engine called ``name``. ``settings(options)``,
    when given, checks the options without making the engine (raising for a bad one),
    so :class:`~remem.Memory` refuses them before it opens anything; without it they
    are first checked when the engine is made."""
    _FACTORIES[name] = factory
    if settings is not None:
        _SETTINGS[name] = settings
    else:
        _SETTINGS.pop(name, None)


def check_engine_options(name: str, options: Mapping[str, Any]) -> object | None:
    """What ``settings`` (see :func:`register_engine`) makes of ``options`` for engine
    ``name`` (the built-in engines: their resolved config); None for an engine
    registered without. Raises InvalidInputError unless the options suit it."""
    check = _SETTINGS.get(check_engine_name(name))
    return check(options) if check is not None else None


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


register_engine("dense", DenseEngine, partial(resolve, NoOptions, where="engine 'dense'"))
register_engine("bm25", BM25Engine, partial(resolve, NoOptions, where="engine 'bm25'"))
register_engine("hybrid", HybridEngine, partial(resolve, HybridConfig, where="engine 'hybrid'"))


def _register_builtin() -> None:
    from .ilstma import register as register_ilstma
    from .synapse import register as register_synapse

    register_synapse()
    register_ilstma()


_register_builtin()
