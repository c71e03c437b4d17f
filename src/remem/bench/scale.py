"""``remem bench scale``: ingest rate and search latency as one user's history grows.

Each size gets a fresh SQLite file on disk (the real default setup). Ingest goes
through ``add_many`` in batches of 500 (embedding included); searches go through
``Memory.search`` with distinct queries (query embedding included, nothing cached).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
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
                    rows.append(
                        {
                            "engine": name,
                            "memories": n,
                            "ingest_per_s": n / ingest_s,
                            "search_ms_p50": 1000 * percentile(times, 50),
                            "search_ms_p95": 1000 * percentile(times, 95),
                            "rss_growth_mb": rss_mb() - rss0,
                        }
                    )
    return {
        "benchmark": "scale",
        "k": k,
        "queries": queries,
        "rows": rows,
        "peak_rss_mb": peak_rss_mb(),
    }
