"""Routes for operating the server: liveness, the engine's features, the metrics."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import PlainTextResponse

from ..._version import __version__
from .deps import Tenant
from .models import KEYED, EngineOut, HealthOut, error_responses

router = APIRouter()


@router.get("/v1/health", tags=["ops"], response_model=HealthOut, responses=error_responses(503))
def health(request: Request) -> dict[str, Any]:
    """Liveness and store reachability (no key needed)."""
    mem = request.app.state.memory
    mem.ping()
    return {"status": "ok", "version": __version__, "engine": mem.engine_name}


# load balancers check with HEAD: the same answer, its body dropped by the server
# (a route of its own, out of the schema: one operation, one operation id)
router.head("/v1/health", include_in_schema=False)(health)


@router.get("/v1/engine", tags=["ops"], response_model=EngineOut, responses=KEYED)
def engine(t: Tenant) -> dict[str, Any]:
    """The engine's name and what it can do beyond ranking."""
    return t.engine()


#: a router of its own: an app built with ``metrics=False`` leaves it out
metrics_router = APIRouter()


@metrics_router.get("/metrics", tags=["ops"], response_class=PlainTextResponse)
def prometheus(request: Request) -> str:
    """Prometheus text exposition of the server's request metrics (every worker's)."""
    return str(request.app.state.metrics.render())
