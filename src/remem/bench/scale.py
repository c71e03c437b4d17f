"""``remem bench scale``: ingest rate and search latency as one user's history grows.

Each size gets a fresh SQLite file on disk (the real default setup). Ingest goes
through ``add_many`` in batches of 500 (embedding included); searches go through
``Memory.search`` with distinct queries (query embedding included, nothing cached).
Then a mixed phase mimics an agent's turn loop: ``mixed`` rounds of one ``add``
followed by one ``search``, timed separately, so engines that do work on the write
path (SYNAPSE's consolidation every few memories) show where that cost lands.
Engines with a graph also report its size (active and archived nodes).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..embed import Embedder, create_embedder
from ..memory import Memory
from .metrics import percentile
from .synthetic import synthetic_history, synthetic_queries
from .sysinfo import peak_rss_mb, rss_mb

BATCH = 500


def run_scale(
    engines: Sequence[str],
    sizes: Sequence[int],
    *,
    queries: int = 200,
    mixed: int = 100,
    seed: int = 7,
    k: int = 10,
    embedder: Embedder | None = None,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    embedder = embedder or create_embedder("minilm")
    qs = synthetic_queries(queries, seed + 1)
    embedder.embed(qs[:4])  # warm the sessions so the first timed call is not a cold start
    rows = []
    for n in sizes:
        items = synthetic_history(n, seed)
        for name in engines:
            if progress:
                progress(f"{name}: {n:,} memories")
            with tempfile.TemporaryDirectory() as tmp:
                rss0 = rss_mb()
                with Memory(Path(tmp) / "scale.db", engine=name, embedder=embedder) as mem:
                    t0 = time.perf_counter()
                    for i in range(0, n, BATCH):
                        mem.add_many(items[i : i + BATCH], user_id="u")
                    ingest_s = time.perf_counter() - t0
                    mem.search(qs[0], user_id="u", k=k)  # first search loads the indexes
                    times = []
                    for q in qs:
                        t0 = time.perf_counter()
                        mem.search(q, user_id="u", k=k)
                        times.append(time.perf_counter() - t0)
                    graph = _graph_stats(mem, "u")
                    agreement = _exact_agreement(mem, qs, k, n)
                    extra = synthetic_history(mixed, seed + 2, start=items[-1]["timestamp"])
                    add_t, search_t = [], []
                    for item, q in zip(extra, qs, strict=False):
                        t0 = time.perf_counter()
                        mem.add(**item, user_id="u")
                        t1 = time.perf_counter()
                        mem.search(q, user_id="u", k=k)
                        search_t.append(time.perf_counter() - t1)
                        add_t.append(t1 - t0)
                    rows.append(
                        {
                            "engine": name,
                            "memories": n,
                            "ingest_per_s": n / ingest_s,
                            "search_ms_p50": 1000 * percentile(times, 50),
                            "search_ms_p95": 1000 * percentile(times, 95),
                            "mixed_add_ms_p50": 1000 * percentile(add_t, 50),
                            "mixed_add_ms_p95": 1000 * percentile(add_t, 95),
                            "mixed_search_ms_p95": 1000 * percentile(search_t, 95),
                            "graph_active_nodes": graph.get("active_nodes"),
                            "graph_archived_nodes": graph.get("archived"),
                            "exact_top_k_agreement": agreement,
                            "rss_growth_mb": rss_mb() - rss0,
                        }
                    )
    return {
        "benchmark": "scale",
        "k": k,
        "queries": queries,
        "mixed": mixed,
        "rows": rows,
        "growth": growth(rows),
        "peak_rss_mb": peak_rss_mb(),
    }


def growth(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per engine: search p95 at the largest size over p95 at the smallest."""
    out = []
    for name in dict.fromkeys(r["engine"] for r in rows):
        mine = sorted((r for r in rows if r["engine"] == name), key=lambda r: r["memories"])
        if len(mine) > 1:
            lo, hi = mine[0], mine[-1]
            out.append(
                {
                    "engine": name,
                    "from": lo["memories"],
                    "to": hi["memories"],
                    "p95_ratio": hi["search_ms_p95"] / lo["search_ms_p95"],
                    "mixed_p95_ratio": hi["mixed_search_ms_p95"] / lo["mixed_search_ms_p95"],
                }
            )
    return out


def _exact_agreement(mem: Memory, queries: list[str], k: int, n: int) -> float | None:
    """For an engine in its approximate regime (SYNAPSE above ``ann_above``): the mean
    share of the top-k it returns that the exact configuration returns too."""
    engine = mem._engine  # noqa: SLF001 - bench internals
    cfg = getattr(engine, "cfg", None)
    threshold = getattr(cfg, "ann_above", 0)
    if not threshold or n < threshold:
        return None
    approx = [[h.id for h in mem.search(q, user_id="u", k=k)] for q in queries]
    engine.cfg = replace(cfg, ann_above=0)
    try:
        exact = [[h.id for h in mem.search(q, user_id="u", k=k)] for q in queries]
    finally:
        engine.cfg = cfg
    return sum(
        len(set(a) & set(e)) / max(len(e), 1) for a, e in zip(approx, exact, strict=True)
    ) / len(queries)


def _graph_stats(mem: Memory, user_id: str) -> dict[str, int]:
    stats = getattr(mem._engine, "graph_stats", None)
    return stats(user_id) if stats else {}
