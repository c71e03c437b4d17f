"""SYNAPSE: episodic-semantic memory graph queried by spreading activation.

Registers ``synapse`` (remem's default configuration), ``synapse-paper`` (the
paper-faithful similarity term) and the paper's ablations as engine names.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

from ...store.extension import register_extension
from ..base import EngineContext
from .config import VARIANTS, SynapseConfig
from .storage import SYNAPSE_TABLES

if TYPE_CHECKING:
    from .engine import SynapseEngine


def _factory(variant: str):
    def make(ctx: EngineContext, **options: Any) -> SynapseEngine:
        # the engine (and scipy.sparse, its graph's, half a second to import) is
        # imported when a SYNAPSE Memory is made, not whenever the engines register
        from .engine import SynapseEngine

        return SynapseEngine(ctx, variant=variant, **options)

    return make


def __getattr__(name: str) -> Any:
    if name == "SynapseEngine":
        from .engine import SynapseEngine

        return SynapseEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def register() -> None:
    from .. import register_engine

    register_extension(SYNAPSE_TABLES)
    for name in VARIANTS:
        register_engine(name, _factory(name), partial(SynapseConfig.for_engine, name))


__all__ = ["SYNAPSE_TABLES", "SynapseConfig", "SynapseEngine", "VARIANTS", "register"]
