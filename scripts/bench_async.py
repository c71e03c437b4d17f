"""Throughput of ``remem.AsyncMemory`` under concurrent calls, against the sync
``Memory`` called one at a time and from a thread pool
(docs/benchmarks.md#asyncmemory-under-concurrent-calls).

    PYTHONPATH=src .venv/bin/python scripts/bench_async.py [--memories 300] [--queries 200]

One user's synthetic history (``remem_bench.synthetic``) in a SQLite file, the
hybrid engine, the MiniLM embedder, no reader. Each row runs the same calls
(``--queries`` searches, or ``--adds`` single adds to a user of their own) at
a concurrency: ``sync`` one after another in one thread; ``threads`` from a pool of
that many threads on one shared ``Memory``; ``async`` as that many tasks of one event
loop on one shared ``AsyncMemory`` (each call in a worker thread). Best of
``--rounds`` rounds, the rows taking turns within each round.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from remem import AsyncMemory, Memory
from remem_bench.synthetic import synthetic_history, synthetic_queries

USER = "bench"


def run_sync(calls: list[Callable[[], Any]], _: int) -> None:
    for call in calls:
        call()


def run_threads(calls: list[Callable[[], Any]], concurrency: int) -> None:
    with ThreadPoolExecutor(concurrency) as pool:
        list(pool.map(lambda call: call(), calls))


def run_async(coros: list[Callable[[], Any]], concurrency: int) -> None:
    async def main() -> None:
        gate = asyncio.Semaphore(concurrency)

        async def one(make: Callable[[], Any]) -> None:
            async with gate:
                await make()

        await asyncio.gather(*(one(make) for make in coros))

    asyncio.run(main())


def best_times(rounds: int, jobs: list[Callable[[], None]]) -> list[float]:
    """Each job's best time of ``rounds``, the jobs run in turn within each round so
    that a burst of other load on the machine falls on all of them alike."""
    best = [float("inf")] * len(jobs)
    for _ in range(rounds):
        for i, job in enumerate(jobs):
            t0 = time.perf_counter()
            job()
            best[i] = min(best[i], time.perf_counter() - t0)
    return best


def workloads(mem: Memory, amem: AsyncMemory, queries: list[str], adds: int) -> dict[str, Any]:
    """Per workload: (sync calls, async call makers), the same calls both ways."""
    texts = [f"Note {i}: we talked about the garden and the new bike." for i in range(adds)]
    return {
        "search": (
            [lambda q=q: mem.search(q, USER, k=10) for q in queries],
            [lambda q=q: amem.search(q, USER, k=10) for q in queries],
        ),
        "add": (
            [lambda t=t: mem.add(t, "writer") for t in texts],
            [lambda t=t: amem.add(t, "writer") for t in texts],
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=300)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--adds", type=int, default=100)
    parser.add_argument("--concurrency", default="1,4,16")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    levels = [int(c) for c in args.concurrency.split(",")]
    with tempfile.TemporaryDirectory() as tmp, Memory(f"{tmp}/b.db", llm="none") as mem:
        mem.add_many(synthetic_history(args.memories), USER)
        mem.search("warm up the model and the index", USER)
        amem = AsyncMemory.of(mem)
        print(f"{args.memories} memories, hybrid, MiniLM; {os.cpu_count()} CPUs")
        print(f"{'calls':<8} {'way':<8} {'conc':>4} {'n':>5} {'s':>7} {'calls/s':>8}")
        loads = workloads(mem, amem, synthetic_queries(args.queries), args.adds)
        rows = []
        for name, (sync_calls, async_calls) in loads.items():
            rows.append((name, "sync", 1, run_sync, sync_calls))
            rows += [(name, "threads", c, run_threads, sync_calls) for c in levels if c > 1]
            rows += [(name, "async", c, run_async, async_calls) for c in levels]
        jobs = [lambda r=r: r[3](r[4], r[2]) for r in rows]
        for (name, way, conc, _, calls), s in zip(rows, best_times(args.rounds, jobs), strict=True):
            n = len(calls)
            print(f"{name:<8} {way:<8} {conc:>4} {n:>5} {s:>7.3f} {n / s:>8.1f}")


if __name__ == "__main__":
    main()
