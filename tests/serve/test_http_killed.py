"""A worker killed mid-write (SIGKILL, no cleanup) loses nothing that was
acknowledged and leaves no half-written batch; the server keeps serving."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import httpx

from remem import Memory
from remem.keys import KeyRing
from remem_bench.load import free_port, start_server, stop_server, wait_up


def _children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def test_killed_worker_loses_no_acknowledged_write(pg_url, tmp_path):
    with Memory(pg_url, engine="hybrid", llm="none") as mem:
        key, _ = KeyRing.of(mem).create("acme")
    port = free_port()
    log = open(tmp_path / "server.log", "w")  # noqa: SIM115
    proc, base = start_server(pg_url, workers=2, engine="hybrid", llm="none", port=port, log=log)
    headers = {"Authorization": f"Bearer {key}"}
    acked: list[int] = []
    failed: list[str] = []
    stop = threading.Event()

    def writer(offset: int) -> None:
        with httpx.Client(base_url=base, timeout=30) as http:
            n = offset
            while not stop.is_set():
                items = [
                    {"text": f"batch {n} item {i}", "metadata": {"batch": n}} for i in range(10)
                ]
                try:
                    r = http.post(
                        "/v1/memories/batch",
                        json={"user_id": "bob", "items": items},
                        headers=headers,
                    )
                    if r.status_code == 201:
                        acked.append(n)
                    else:
                        failed.append(f"{r.status_code} {r.text[:100]}")
                except httpx.HTTPError as exc:  # the killed worker's connections
                    failed.append(type(exc).__name__)
                n += 4

    try:
        workers = _children(proc.pid)
        threads = [threading.Thread(target=writer, args=(i,)) for i in range(4)]
        for t in threads:
            t.start()
        time.sleep(2.0)
        victims = [w for w in _children(proc.pid) if w in workers] or workers
        os.kill(victims[0], signal.SIGKILL)
        time.sleep(3.0)
        status = Path(f"/proc/{victims[0]}/status")
        assert not status.exists() or "zombie" in status.read_text()  # it really died
        stop.set()
        for t in threads:
            t.join()
        assert len(acked) > 10  # the writers really wrote, before and after the kill
        # the survivor (and any replacement) keeps serving
        wait_up(base, proc, timeout=60)
        with httpx.Client(base_url=base, timeout=60) as http:
            found: list[dict] = []
            while True:
                page = http.get(
                    "/v1/memories",
                    params={"user_id": "bob", "limit": 1000, "offset": len(found)},
                    headers=headers,
                ).json()
                found += page["memories"]
                if not page["memories"]:
                    break
            hits = http.post(
                "/v1/search", json={"user_id": "bob", "query": "batch 3 item 4"}, headers=headers
            )
            assert hits.status_code == 200
        batches: dict[int, int] = {}
        for m in found:
            batches[m["metadata"]["batch"]] = batches.get(m["metadata"]["batch"], 0) + 1
        assert page["count"] == len(found)
        assert set(acked) <= set(batches)  # every acknowledged batch is there...
        assert all(n == 10 for n in batches.values())  # ...and no batch is half there
    finally:
        stop.set()
        stop_server(proc)
        log.close()
