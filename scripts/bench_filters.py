"""Filtered search against unfiltered search at 10,000 memories (issue 39, floor 2).

    PYTHONPATH=src python scripts/bench_filters.py [--memories 10000] [--queries 60]

One user's synthetic history (five speakers, 200 sessions, a topic in the metadata,
times over a year), searched by the same questions with no filter and with each kind
of hard filter (``remem.Filters``: a speaker, a session, a metadata value, a stretch of
time), each passing a different share of the memories. Prints p50 and p95 latency per
engine and filter and the ratio of each p95 to the unfiltered one, side by side in one
process (the machines are noisy; ratios travel better than milliseconds). Every
filtered search is checked to return k results, all passing.
"""

from __future__ import annotations

import argparse
import random
import time
from datetime import datetime, timedelta, timezone

import numpy as np

from remem import Memory
from remem.embed import create_embedder

SPEAKERS = ["Ana", "Ben", "Chloe", "Dev", "Eli"]
TOPICS = ["garden", "running", "cooking", "travel", "music", "books", "work", "family"]
START = datetime(2024, 1, 1, tzinfo=timezone.utc)


def history(n: int, rng: random.Random) -> list[dict]:
    items = []
    for i in range(n):
        topic, other = TOPICS[i % len(TOPICS)], rng.choice(TOPICS)
        items.append(
            {
                "text": f"{SPEAKERS[i % 5]} talked about {topic} item {i} and {other}.",
                "speaker": SPEAKERS[i % 5],
                "session_id": f"s{i % 200}",
                "timestamp": START + timedelta(minutes=52 * i),
                "metadata": {"topic": topic, "n": i},
            }
        )
    return items


FILTERS = {
    "none": None,
    "speaker (20%)": {"speaker": "Ben"},
    "metadata (12.5%)": {"metadata": {"topic": "music"}},
    "session (0.5%)": {"session_id": "s7"},
    "said in March (8%)": {"after": "2024-03-01T00:00:00Z", "before": "2024-04-01T00:00:00Z"},
}


def measure(mem: Memory, queries: list[str], filters: dict | None, k: int) -> list[float]:
    out = []
    for q in queries:
        t0 = time.perf_counter()
        hits = mem.search(q, "u", k=k, filters=filters)
        out.append((time.perf_counter() - t0) * 1000)
        assert len(hits) == k, (filters, len(hits))
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--memories", type=int, default=10000)
    ap.add_argument("--queries", type=int, default=60)
    ap.add_argument("--engines", default="hybrid,synapse")
    ap.add_argument("--k", type=int, default=10)
    args = ap.parse_args()
    rng = random.Random(0)
    items = history(args.memories, rng)
    queries = [
        f"What did {rng.choice(SPEAKERS)} say about {rng.choice(TOPICS)}?"
        for _ in range(args.queries)
    ]
    embedder = create_embedder("minilm")
    print(f"{args.memories} memories, {args.queries} queries, k={args.k}")
    print("| engine | filter | p50 ms | p95 ms | p95 / unfiltered p95 |")
    print("|---|---|---|---|---|")
    for engine in args.engines.split(","):
        with Memory(":memory:", engine=engine, embedder=embedder, llm="none") as mem:
            mem.add_many(items, "u")
            measure(mem, queries[:5], None, args.k)  # warm
            base = None
            for name, f in FILTERS.items():
                ms = np.array(measure(mem, queries, f, args.k))
                p50, p95 = np.percentile(ms, 50), np.percentile(ms, 95)
                base = p95 if base is None else base
                print(f"| {engine} | {name} | {p50:.1f} | {p95:.1f} | {p95 / base:.2f} |")


if __name__ == "__main__":
    main()
