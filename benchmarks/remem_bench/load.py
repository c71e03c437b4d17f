"""A bounded load test of ``remem serve`` on loopback.

It starts the real server (``remem serve --workers N``) as a subprocess over a
PostgreSQL database (a throwaway ``pgserver`` one unless ``db`` is given), creates
API keys for two tenants, and runs ``clients`` concurrent clients for ``duration``
seconds, each looping over a weighted mix of add, search and answer for users of
both tenants. Every response is checked; at the end the memories each user holds
are counted through the API and compared with the adds that were acknowledged, so
a lost write (or a phantom one) shows as a mismatch, never as a silent number.

The clients run in this process on one event loop; on a small machine they compete
with the server for the same cores, so the figures are a floor for the server.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from .metrics import percentile

TOPICS = [
    "hiking in the Dolomites",
    "a greyhound named Biscuit",
    "learning the cello",
    "a leaking kitchen sink",
    "my sister's wedding in Lisbon",
    "a new job at a bike company",
    "tomatoes on the balcony",
    "a half marathon under two hours",
    "the book club's Russian novel",
    "saving for a flat near the river",
]


@dataclass
class LoadResult:
    duration_s: float
    clients: int
    workers: int
    engine: str
    backend: str
    llm: str
    ops: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    error_samples: list[str] = field(default_factory=list)
    acked: dict[tuple[str, str], set[str]] = field(default_factory=lambda: defaultdict(set))
    found: dict[tuple[str, str], set[str]] = field(default_factory=dict)

    def summary(self) -> dict[str, Any]:
        per_op = {}
        for op, lat in sorted(self.ops.items()):
            per_op[op] = {
                "n": len(lat),
                "per_s": len(lat) / self.duration_s,
                "p50_ms": 1000 * percentile(lat, 50),
                "p95_ms": 1000 * percentile(lat, 95),
                "p99_ms": 1000 * percentile(lat, 99),
                "errors": self.errors.get(op, 0),
            }
        acked = sum(len(v) for v in self.acked.values())
        found = sum(len(v) for v in self.found.values())
        lost = sum(len(ids - self.found.get(key, set())) for key, ids in self.acked.items())
        phantom = sum(len(v - self.acked.get(key, set())) for key, v in self.found.items())
        return {
            "duration_s": self.duration_s,
            "clients": self.clients,
            "workers": self.workers,
            "engine": self.engine,
            "backend": self.backend,
            "llm": self.llm,
            "requests": sum(len(v) for v in self.ops.values()),
            "requests_per_s": sum(len(v) for v in self.ops.values()) / self.duration_s,
            "errors": sum(self.errors.values()),
            "error_samples": self.error_samples[:10],
            "ops": per_op,
            "writes_acknowledged": acked,
            "writes_found": found,
            "writes_lost": lost,
            "writes_phantom": phantom,
        }


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def temporary_postgres() -> Iterator[str]:
    """A throwaway PostgreSQL server (the ``pgserver`` wheel), removed afterwards."""
    import warnings

    with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset
        warnings.simplefilter("ignore")
        import pgserver

    with tempfile.TemporaryDirectory(prefix="remem-load-pg-") as tmp:
        srv = pgserver.get_server(tmp, cleanup_mode="stop")
        try:
            yield srv.get_uri()
        finally:
            srv.cleanup()


def start_server(
    db: str, *, workers: int, engine: str, llm: str, port: int, log: Any
) -> tuple[subprocess.Popen, str]:
    """``remem serve`` in its own process group, up and answering: (process, base URL)."""
    cmd = [sys.executable, "-m", "remem.cli", "--db", db, "--engine", engine, "serve"]
    cmd += ["--port", str(port), "--workers", str(workers), "--llm", llm]
    proc = subprocess.Popen(
        [*cmd, "--log-level", "warning"], stdout=log, stderr=log, start_new_session=True
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(base, proc, timeout=120)
    except BaseException:
        stop_server(proc)
        raise
    return proc, base


def create_key(db: str, tenant: str) -> str:
    """A new API key for ``tenant``, as an operator makes one: ``remem keys create``."""
    cmd = [sys.executable, "-m", "remem.cli", "--db", db, "keys", "create", "--tenant", tenant]
    done = subprocess.run(
        [*cmd, "--label", "load test"], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip()


def stop_server(proc: subprocess.Popen) -> None:
    """Ask for a clean shutdown (SIGINT), then kill the whole group if it hangs."""
    proc.send_signal(signal.SIGINT)
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()


@contextmanager
def running_server(
    db: str, *, workers: int, engine: str, llm: str, port: int, log: Any
) -> Iterator[str]:
    proc, base = start_server(db, workers=workers, engine=engine, llm=llm, port=port, log=log)
    try:
        yield base
    finally:
        stop_server(proc)


def wait_up(base: str, proc: subprocess.Popen, timeout: float) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with code {proc.returncode}")
        try:
            if httpx.get(base + "/v1/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError("the server did not come up in time")


async def _client(
    i: int,
    base: str,
    keys: dict[str, str],
    users: list[tuple[str, str]],
    mix: list[tuple[str, float]],
    until: float,
    result: LoadResult,
    seed: int,
) -> None:
    import httpx

    rng = random.Random(seed * 1000 + i)
    names, weights = zip(*mix, strict=True)
    async with httpx.AsyncClient(base_url=base, timeout=60) as http:
        n = 0
        while time.monotonic() < until:
            tenant, user = rng.choice(users)
            headers = {"Authorization": f"Bearer {keys[tenant]}"}
            op = rng.choices(names, weights)[0]
            topic = rng.choice(TOPICS)
            if op == "add":
                body: dict[str, Any] = {
                    "user_id": user,
                    "text": f"Client {i} note {n}: we talked about {topic}.",
                    "speaker": f"client{i}",
                }
                path = "/v1/memories"
            elif op == "search":
                body, path = (
                    {"user_id": user, "query": f"what about {topic}?", "k": 5},
                    ("/v1/search"),
                )
            else:
                body, path = (
                    {"user_id": user, "question": f"What did we say about {topic}?"},
                    ("/v1/answer"),
                )
            t0 = time.perf_counter()
            try:
                r = await http.post(path, json=body, headers=headers)
                ok = r.status_code in (200, 201)
                detail = f"{op} {r.status_code} {r.text[:200]}"
            except httpx.HTTPError as exc:
                ok, r, detail = False, None, f"{op} {type(exc).__name__}: {exc}"
            result.ops[op].append(time.perf_counter() - t0)
            if not ok:
                result.errors[op] += 1
                if len(result.error_samples) < 50:
                    result.error_samples.append(detail)
            elif op == "add" and r is not None:
                result.acked[(tenant, user)].add(r.json()["id"])
            n += 1


async def _count(base: str, keys: dict[str, str], users: list[tuple[str, str]]) -> dict:
    import httpx

    found = {}
    async with httpx.AsyncClient(base_url=base, timeout=120) as http:
        for tenant, user in users:
            headers = {"Authorization": f"Bearer {keys[tenant]}"}
            ids: set[str] = set()
            offset = 0
            while True:
                r = await http.get(
                    "/v1/memories",
                    params={"user_id": user, "limit": 1000, "offset": offset},
                    headers=headers,
                )
                r.raise_for_status()
                page = r.json()["memories"]
                ids |= {m["id"] for m in page}
                offset += len(page)
                if not page:
                    break
            found[(tenant, user)] = ids
    return found


def run_load(
    *,
    db: str | None = None,
    workers: int = 2,
    clients: int = 50,
    duration: float = 60.0,
    engine: str = "hybrid",
    llm: str = "none",
    users_per_tenant: int = 5,
    mix: list[tuple[str, float]] | None = None,
    seed: int = 7,
    log_path: str | None = None,
) -> dict[str, Any]:
    """Run the load test; ``db=None`` starts a throwaway PostgreSQL for it."""
    mix = mix or [("add", 0.4), ("search", 0.4), ("answer", 0.2)]
    with _database(db) as url:
        backend = "postgresql" if url.startswith("postgres") else "sqlite"
        from remem import Memory

        with Memory(url, engine=engine, llm="none"):  # migrate once, before the workers
            pass
        keys = {t: create_key(url, t) for t in ("acme", "globex")}
        users = [(t, f"user-{j}") for t in keys for j in range(users_per_tenant)]
        port = free_port()
        with (
            open(log_path or os.devnull, "w") as log,
            running_server(
                url, workers=workers, engine=engine, llm=llm, port=port, log=log
            ) as base,
        ):
            result = LoadResult(duration, clients, workers, engine, backend, llm)

            async def main() -> None:
                until = time.monotonic() + duration
                await asyncio.gather(
                    *(
                        _client(i, base, keys, users, mix, until, result, seed)
                        for i in range(clients)
                    )
                )
                result.found = await _count(base, keys, users)

            asyncio.run(main())
    return result.summary()


@contextmanager
def _database(db: str | None) -> Iterator[str]:
    if db is not None:
        yield db
        return
    with temporary_postgres() as url:
        yield url
