"""ILSTMA: global memory table, five-segment short-term memory, cache prefetch.

Registers ``ilstma`` (remem's default configuration), ``ilstma-printed`` (Eq. 4's
spatial term as printed), ``ilstma-paper`` (the paper's retrieval rule) and
``ilstma-nocache`` (every question takes the miss path) as engine names.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ...store.extension import register_extension
from ..base import EngineContext
from .config import VARIANTS, IlstmaConfig
from .engine import IlstmaEngine
from .storage import ILSTMA_TABLES


def _factory(variant: str):
    def make(ctx: EngineContext, **options: Any) -> IlstmaEngine:
        return IlstmaEngine(ctx, variant=variant, **options)

    return make


def register() -> None:
    from .. import register_engine

    register_extension(ILSTMA_TABLES)
    for name in VARIANTS:
        register_engine(name, _factory(name), partial(IlstmaConfig.for_engine, name))


__all__ = ["ILSTMA_TABLES", "IlstmaConfig", "IlstmaEngine", "VARIANTS", "register"]
