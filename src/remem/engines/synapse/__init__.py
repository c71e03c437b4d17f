"""SYNAPSE: episodic-semantic memory graph queried by spreading activation.

Registers ``synapse`` (remem's default configuration), ``synapse-paper`` (the
paper-faithful similarity term) and the paper's ablations as engine names.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from ...store.extension import register_extension
from ..base import EngineContext
from .config import VARIANTS, SynapseConfig
from .engine import SynapseEngine
from .storage import SYNAPSE_TABLES


def _factory(variant: str):
    def make(ctx: EngineContext, **options: Any) -> SynapseEngine:
        return SynapseEngine(ctx, variant=variant, **options)

    return make


def register() -> None:
    from .. import register_engine

    register_extension(SYNAPSE_TABLES)
    for name in VARIANTS:
        register_engine(name, _factory(name), partial(SynapseConfig.for_engine, name))


__all__ = ["SYNAPSE_TABLES", "SynapseConfig", "SynapseEngine", "VARIANTS", "register"]
