"""``remem-bench scale``: ingest rate and search latency as one user's history grows.

Each size and engine gets a fresh SQLite file on disk (the real default setup).
Ingest goes through ``add_many`` in batches of 500 (embedding included). Then every
memory stays open and each query is searched against every (engine, size) in turn
(query embedding included, nothing cached), so machine noise - large on shared
machines - hits all sizes alike and growth ratios compare like with like. A mixed
phase mimics an agent's turn loop the same way: rounds of one ``add`` then one
``search`` per memory, timed separately, so engines that work on the write path
(SYNAPSE's consolidation every few memories) show where that cost lands. Engines
with a graph also report its size (active and archived nodes), and engines with an
approximate regime how often its top-k equals the exact one.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from remem import Memory
from remem.embed import Embedder, create_embedder

from .metrics import percentile
from .synthetic import synthetic_history, synthetic_queries
from .sysinfo import peak_rss_mb, rss_mb

BATCH = 500


@dataclass
class _Run:
    engine: str
    n: int
    mem: Memory
    path: Path
    ingest_s: float = 0.0
    rss_growth: float = 0.0
    extra: list[dict[str, Any]] = field(default_factory=list)
    search_s: list[float] = field(default_factory=list)
    mixed_add_s: list[float] = field(default_factory=list)
    mixed_search_s: list[float] = field(default_factory=list)


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
    """Every (engine, size) ingested (:func:`_ingest`), then searched and run through
    the mixed rounds with the others in turn (:func:`_interleaved`), then reported."""
    embedder = embedder or create_embedder("minilm")
    qs = synthetic_queries(queries, seed + 1)
    embedder.embed(qs[:4])  # warm the sessions so the first timed call is not a cold start
    with tempfile.TemporaryDirectory() as tmp:
        runs: list[_Run] = []
        try:
            for n in sizes:
                items = synthetic_history(n, seed)
                for name in engines:
                    if progress:
                        progress(f"{name}: ingesting {n:,} memories")
                    path = Path(tmp) / f"{name}-{n}.db"
                    _ingest(runs, name, n, path, embedder, items, qs[0], k)
                    runs[-1].extra = synthetic_history(
                        mixed, seed + 2, start=items[-1]["timestamp"]
                    )
            _interleaved(runs, qs, mixed, k, progress)
            rows = [_row(run, embedder, qs, k) for run in runs]
        finally:
            for run in runs:
                run.mem.close()
    return {
        "benchmark": "scale",
        "k": k,
        "queries": queries,
        "mixed": mixed,
        "rows": rows,
        "growth": growth(rows),
        "peak_rss_mb": peak_rss_mb(),
    }


def _ingest(
    runs: list[_Run],
    name: str,
    n: int,
    path: Path,
    embedder: Embedder,
    items: list[dict[str, Any]],
    first: str,
    k: int,
) -> None:
    """A fresh Memory of engine ``name`` at ``path`` holding the ``n`` items, added in
    batches (timed), then searched once to load its indexes and build its graph (in
    the RSS growth, not in the search times). The run is appended to ``runs`` before
    ingesting, so that it is closed even when the ingest fails."""
    rss0 = rss_mb()
    run = _Run(name, n, Memory(path, engine=name, embedder=embedder), path)
    runs.append(run)
    t0 = time.perf_counter()
    for i in range(0, n, BATCH):
        run.mem.add_many(items[i : i + BATCH], user_id="u")
    run.ingest_s = time.perf_counter() - t0
    run.mem.search(first, user_id="u", k=k)  # loads indexes, builds graphs
    run.rss_growth = rss_mb() - rss0


def _interleaved(
    runs: list[_Run],
    qs: list[str],
    mixed: int,
    k: int,
    progress: Callable[[str], None] | None,
) -> None:
    """Every query against every run in turn, then ``mixed`` rounds of one add and one
    search per run, interleaved the same way (module notes: noise hits all alike)."""
    if progress:
        progress("searching, every query against every size in turn")
    for q in qs:
        for run in runs:
            t0 = time.perf_counter()
            run.mem.search(q, user_id="u", k=k)
            run.search_s.append(time.perf_counter() - t0)
    if progress:
        progress("mixed add + search rounds, interleaved the same way")
    for i in range(mixed):
        for run in runs:
            t0 = time.perf_counter()
            run.mem.add(**run.extra[i], user_id="u")
            t1 = time.perf_counter()
            run.mem.search(qs[i % len(qs)], user_id="u", k=k)
            run.mixed_search_s.append(time.perf_counter() - t1)
            run.mixed_add_s.append(t1 - t0)


def _row(run: _Run, embedder: Embedder, qs: list[str], k: int) -> dict[str, Any]:
    """One (engine, size)'s line of the report."""
    graph = _graph_stats(run.mem, "u")
    return {
        "engine": run.engine,
        "memories": run.n,
        "ingest_per_s": run.n / run.ingest_s,
        "search_ms_p50": 1000 * percentile(run.search_s, 50),
        "search_ms_p95": 1000 * percentile(run.search_s, 95),
        "mixed_add_ms_p50": 1000 * percentile(run.mixed_add_s, 50),
        "mixed_add_ms_p95": 1000 * percentile(run.mixed_add_s, 95),
        "mixed_search_ms_p95": 1000 * percentile(run.mixed_search_s, 95),
        "graph_active_nodes": graph.get("active_nodes"),
        "graph_archived_nodes": graph.get("archived"),
        "exact_top_k_agreement": _exact_agreement(run.mem, run.path, embedder, qs, k, run.n),
        "rss_growth_mb": run.rss_growth,
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


def _exact_agreement(
    mem: Memory, path: Path, embedder: Embedder, queries: list[str], k: int, n: int
) -> float | None:
    """For an engine in its approximate regime (SYNAPSE above ``ann_above``): the mean
    share of the top-k it returns that the exact configuration returns too (the same
    engine over the same file, opened with ``ann_above=0`` once the first has written
    what it buffers, so both build the same graph)."""
    threshold = mem.engine_info.config.get("ann_above", 0)
    if not threshold or n < threshold:
        return None
    approx = [[h.id for h in mem.search(q, user_id="u", k=k)] for q in queries]
    mem.flush()
    with Memory(
        path, engine=mem.engine_name, embedder=embedder, engine_options={"ann_above": 0}
    ) as exact_mem:
        exact = [[h.id for h in exact_mem.search(q, user_id="u", k=k)] for q in queries]
    return sum(
        len(set(a) & set(e)) / max(len(e), 1) for a, e in zip(approx, exact, strict=True)
    ) / len(queries)


def _graph_stats(mem: Memory, user_id: str) -> dict[str, int]:
    return mem.stats(user_id)
