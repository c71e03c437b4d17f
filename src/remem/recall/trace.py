"""``Memory.trace``'s view: a recall and the part of the engine's graph it lit up, as
plain dicts (episodes with their memory's text, speaker, time and session)."""

from __future__ import annotations

from typing import Any

from ..store.base import Store
from ..types import Trace
from .pipeline import Recalled


def trace_view(recalled: Recalled, store: Store, user_id: str, limit: int) -> Trace:
    """The recall's activated neighbourhood, at most ``limit`` nodes (no graph: an
    engine without one, ``graph`` False)."""
    rec = recalled.recall
    if recalled.trace is None:
        return Trace(rec, graph=False)
    traced = recalled.trace(limit)
    ranks = {h.id: i + 1 for i, h in enumerate(rec.hits)}
    episodes = [key for key, kind, *_ in traced.nodes if kind == "episode"]
    rows = store.get(user_id, episodes)
    nodes: list[dict[str, Any]] = []
    for key, kind, label, activation, anchor in traced.nodes:
        node: dict[str, Any] = {
            "id": key,
            "kind": kind,
            "label": label,
            "activation": activation,
            "anchor": anchor,
            "rank": ranks.get(key),
        }
        if kind == "episode":
            row = rows.get(key)
            if row is None:  # deleted meanwhile
                continue
            node.update(
                label=row.text,
                speaker=row.speaker,
                timestamp=row.timestamp.isoformat(),
                session_id=row.session_id,
            )
        nodes.append(node)
    present = {n["id"] for n in nodes}
    edges = [
        {"source": s, "target": t, "weight": w, "carried": c}
        for s, t, w, c in traced.edges
        if s in present and t in present
    ]
    return Trace(rec, True, nodes, edges)
