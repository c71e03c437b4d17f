"""The cost of encryption at rest on SQLite (issue 40's floor: within 1.15x) and on
PostgreSQL (``--postgres``: envelope encryption, ``store/envelope.py``; within 1.25x).

    PYTHONPATH=src python scripts/bench_encryption.py [--memories 3000] [--queries 1000]
        [--engine hybrid] [--rounds 3] [--postgres]

``--postgres`` starts a throwaway PostgreSQL (pgserver, as the tests do) and compares
a plain database with an encrypted one (a master key, a key store directory), each
emptied before every round; pgvector is off on both (an encrypted store ranks in
process, so the plain one does too: the ratio is the sealing's cost, not pgvector's).

The same synthetic history (several users, speakers, sessions, metadata) is ingested
in batches into a plain SQLite file and into an encrypted one (``Memory(key=...)``,
SQLite3 Multiple Ciphers), and searched by the same questions, in one process, rounds interleaved
(plain, encrypted, plain, ...) so the machine's noise falls on both. Every text (as
remem embeds it) and question is embedded once, in an untimed first round of each
store that also does the first ingest's lazy imports, and the vectors are replayed to
both stores in the timed rounds: the model's time is the same on both sides and would
only dilute the ratio, so what is timed is remem's own work over the store, where
encryption costs. A search round opens a fresh Memory on the file first (timed apart,
as "open": the key's derivation, about 30 ms, is paid there once per store), so
each user's first search loads its vectors from the file. Prints ingest seconds,
search p50/p95 and the ratios (the best round of each, per store), and the process's
peak RSS (one process holds both stores; read after each store's first timed round).
``--model`` times the embedding model too, as an application's ingest pays it.
"""

from __future__ import annotations

import argparse
import contextlib
import random
import resource
import statistics
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from remem import Memory
from remem.embed import Embedder, create_embedder

KEY = "benchmark passphrase"
SPEAKERS = ["Ana", "Ben", "Chloe", "Dev", "Eli"]
TOPICS = ["garden", "running", "cooking", "travel", "music", "books", "work", "family"]
USERS = 4
BATCH = 50


class Replay(Embedder):
    """The vectors of a real embedder, computed once per text and replayed."""

    def __init__(self, inner: Embedder):
        self.inner = inner
        self.name, self.dim = inner.name, inner.dim
        self.cache: dict[str, np.ndarray] = {}

    def count_pieces(self, text: str) -> int:
        return self.inner.count_pieces(text)

    def piece_starts(self, texts: Sequence[str]) -> list[list[int]] | None:
        return self.inner.piece_starts(texts)

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        missing = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if missing:
            self.cache.update(zip(missing, self.inner.embed(missing), strict=True))
        return np.stack([self.cache[t] for t in texts]) if texts else self.inner.embed([])


def history(n: int, rng: random.Random) -> list[dict]:
    return [
        {
            "text": f"{SPEAKERS[i % 5]} talked about {TOPICS[i % 8]} item {i} and "
            f"{rng.choice(TOPICS)}, mentioning the {rng.choice(TOPICS)} plans for week {i % 52}.",
            "speaker": SPEAKERS[i % 5],
            "session_id": f"s{i % 120}",
            "metadata": {"topic": TOPICS[i % 8], "n": i},
        }
        for i in range(n)
    ]


class Target:
    """Where a round's store lives: a SQLite file (removed before each round) or a
    PostgreSQL database (emptied before each round)."""

    def __init__(self, tmp: Path, postgres: object | None):
        self.tmp, self.server = tmp, postgres

    def open(self, name: str, key: str | None, embedder: Embedder, engine: str) -> Memory:
        if self.server is None:
            where: str | Path = self.tmp / f"{name}.db"
            options: dict = {}
        else:
            where = self._url(name)
            options = {"vector": "off"}
            if key is not None:
                options["keyring"] = str(self.tmp / f"{name}-keys")
        return Memory(
            where, engine=engine, embedder=embedder, llm="none", key=key, store_options=options
        )

    def reset(self, name: str) -> None:
        if self.server is None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{self.tmp / name}.db{suffix}").unlink(missing_ok=True)
            return
        import psycopg

        with psycopg.connect(self._url("postgres"), autocommit=True) as con:
            con.execute(f"DROP DATABASE IF EXISTS bench_{name} WITH (FORCE)")
            con.execute(f"CREATE DATABASE bench_{name}")

    def _url(self, name: str) -> str:
        from urllib.parse import quote

        from psycopg.conninfo import conninfo_to_dict

        host = str(conninfo_to_dict(self.server.get_uri())["host"])  # type: ignore[attr-defined]
        db = name if name == "postgres" else f"bench_{name}"
        return f"postgresql://postgres@/{db}?host={quote(host, safe='/')}"


def one_round(
    target: Target, name: str, key: str | None, items: list[dict], questions: list[str],
    args: argparse.Namespace, embedder: Embedder,
) -> dict[str, float]:  # fmt: skip
    target.reset(name)
    per_user = len(items) // USERS
    with target.open(name, key, embedder, args.engine) as mem:
        start = time.perf_counter()  # after the open: its key derivation is "open"
        for u in range(USERS):
            mine = items[u * per_user : (u + 1) * per_user]
            for i in range(0, len(mine), BATCH):
                mem.add_many(mine[i : i + BATCH], user_id=f"user{u}")
        ingest = time.perf_counter() - start
    start = time.perf_counter()
    with target.open(name, key, embedder, args.engine) as mem:
        opened = time.perf_counter() - start
        lat = []
        for j, q in enumerate(questions):
            t = time.perf_counter()
            mem.search(q, user_id=f"user{j % USERS}", k=10)
            lat.append(time.perf_counter() - t)
    lat.sort()
    return {
        "ingest_s": ingest,
        "open_s": opened,
        "p50_ms": 1000 * statistics.median(lat),
        "p95_ms": 1000 * lat[int(0.95 * (len(lat) - 1))],
    }


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--memories", type=int, default=3000)
    p.add_argument("--queries", type=int, default=1000)
    p.add_argument("--engine", default="hybrid")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument(
        "--model",
        action="store_true",
        help="embed in the timed rounds too (what an application's ingest costs end to "
        "end), instead of replaying the vectors",
    )
    p.add_argument(
        "--postgres",
        action="store_true",
        help="compare plain and encrypted PostgreSQL databases (pgserver) instead of files",
    )
    args = p.parse_args()
    rng = random.Random(7)
    items = history(args.memories, rng)
    questions = [
        f"what did {rng.choice(SPEAKERS)} say about {rng.choice(TOPICS)} "
        f"in week {rng.randrange(52)}?"
        for _ in range(args.queries)
    ]
    model = create_embedder("minilm")
    embedder: Embedder = model if args.model else Replay(model)
    best: dict[str, dict[str, float]] = {}
    rss: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp, _server(Path(tmp), args.postgres) as server:
        target = Target(Path(tmp), server)
        warm = items if not args.model else items[:100]  # untimed: see the notes
        for name, key in (("plain", None), ("encrypted", KEY)):
            one_round(target, name, key, warm, questions, args, embedder)
        for _ in range(args.rounds):
            for name, key in (("plain", None), ("encrypted", KEY)):
                got = one_round(target, name, key, items, questions, args, embedder)
                rss.setdefault(name, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
                best[name] = {k: min(v, best.get(name, got)[k]) for k, v in got.items()}
    print(
        ("PostgreSQL (pgserver), " if args.postgres else "SQLite, ")
        + f"{args.memories} memories, {USERS} users, {args.queries} searches (k=10), "
        f"engine {args.engine}, best of {args.rounds} interleaved rounds, "
        + ("embedding timed" if args.model else "embeddings replayed")
    )
    report(best, rss)


@contextlib.contextmanager
def _server(tmp: Path, postgres: bool) -> Iterator[object | None]:
    """A throwaway PostgreSQL for ``--postgres`` (stopped after), else None."""
    if not postgres:
        yield None
        return
    import pgserver

    srv = pgserver.get_server(tmp / "pgdata", cleanup_mode="stop")
    try:
        yield srv
    finally:
        srv.cleanup()


def report(best: dict[str, dict[str, float]], rss: dict[str, float]) -> None:
    cols = ("ingest_s", "open_s", "p50_ms", "p95_ms")
    print(f"{'store':<10}" + "".join(f"{c:>10}" for c in cols) + f"{'peak RSS MiB':>14}")
    for name in ("plain", "encrypted"):
        row = "".join(f"{best[name][c]:10.3f}" for c in cols)
        print(f"{name:<10}{row}{rss[name]:14.0f}")
    ratios = {c: best["encrypted"][c] / best["plain"][c] for c in cols if c != "open_s"}
    print(
        f"{'ratio':<10}"
        + "".join(f"{ratios[c]:10.3f}" if c in ratios else f"{'':>10}" for c in cols)
    )


if __name__ == "__main__":
    main()
