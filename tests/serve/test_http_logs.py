"""What a real ``remem serve`` process writes to its log when things go wrong or when
it is asked for everything (``--log-level trace``): never a key, a user id or the
message of an unexpected error, and a failed request leaves its connection usable.

Each test runs the CLI's own server as a subprocess on loopback; to get an unexpected
error, the process patches one :class:`TenantMemory` method before ``remem.cli``
starts (``-c`` code, so the patch is in the one worker that serves).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from crashing import LEAKS, SECRET, crashing
from remem import Memory
from remem.keys import KeyRing
from remem_bench.load import free_port, wait_up

USER = "private-user-7731"
CRASHING = crashing("remem.cli")


@dataclass
class Served:
    port: int
    key: str
    log: Path

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.key}", "Content-Type": "application/json"}


@contextmanager
def remem_serve(tmp: Path, embedder, *extra: str, code: str | None = None) -> Iterator[Served]:
    """``remem serve --workers 1`` (``extra``: more flags) on a free loopback port over
    a fresh database with one key; ``code``: run as ``python -c code`` instead of
    ``python -m remem.cli``. Stopped with SIGTERM; its output is in ``Served.log``."""
    db = tmp / "served.db"
    with Memory(db, embedder=embedder, llm="none") as mem:
        key, _ = KeyRing.of(mem).create("acme")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEM_")}
    env.update({"REMEM_LLM": "none", "PYTHONUNBUFFERED": "1"})
    runner = ["-c", code] if code else ["-m", "remem.cli"]
    port, log = free_port(), tmp / "server.log"
    cmd = [sys.executable, *runner, "--db", str(db), "serve", "--port", str(port), *extra]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    try:
        wait_up(f"http://127.0.0.1:{port}", proc, timeout=90)
        yield Served(port, key, log)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_an_unexpected_error_is_one_content_free_log_line_on_a_kept_connection(
    tmp_path: Path, embedder
):
    """Starlette sends the 500 and then re-raises, so uvicorn used to log "Exception
    in ASGI application" with the message and close the connection: the client's
    next request on it failed with a reset."""
    with remem_serve(tmp_path, embedder, code=CRASHING) as served:
        conn = served.connect()
        try:
            body = json.dumps({"user_id": USER, "query": "my PIN?"})
            conn.request("POST", "/v1/search", body=body, headers=served.headers)
            sock = conn.sock
            r = conn.getresponse()
            answer = json.loads(r.read())
            assert r.status == 500
            assert answer == {"error": {"code": "internal", "message": "internal error"}}
            assert not r.will_close
            # the same socket carries the next request
            conn.request("GET", "/v1/users", headers=served.headers)
            r = conn.getresponse()
            assert r.status == 200 and json.loads(r.read()) == {"users": []}
            assert conn.sock is sock
        finally:
            conn.close()
    log = served.log.read_text()
    assert log.count("unexpected error") == 1, log  # remem's own line ...
    assert log.count("OverflowError") == 1, log  # ... naming the error once
    for leak in (*LEAKS, USER, "ASGI"):
        assert leak not in log, (leak, log)
    assert 'POST /v1/search HTTP/1.1" 500' in log  # the access log saw the request


def test_trace_log_level_logs_no_query_string_user_or_key(tmp_path: Path, embedder):
    """uvicorn's trace level logs every ASGI scope, query string and all: a key sent
    as ``?api_key=`` (refused, but sent) and the user ids of GET routes. The scopes
    stay in the log, without what they held."""
    with remem_serve(tmp_path, embedder, "--log-level", "trace") as served:
        conn = served.connect()
        try:
            conn.request("GET", f"/v1/users?api_key={served.key}")
            r = conn.getresponse()
            assert r.status == 400 and b"key_in_url" in r.read()
            conn.request("GET", f"/v1/memories?user_id={USER}&limit=5", headers=served.headers)
            r = conn.getresponse()
            assert r.status == 200 and json.loads(r.read())["count"] == 0
            conn.request("GET", f"/v1/{served.key}")
            r = conn.getresponse()
            assert r.status == 404 and r.read()
        finally:
            conn.close()
    log = served.log.read_text()
    assert "Started scope" in log and "'method': 'GET'" in log, log  # trace is on
    assert "'path': '/v1/memories'" in log, log
    secret = served.key.split("_", 2)[2]
    for leak in (served.key, secret, USER, "api_key", "limit=5", "Bearer"):
        assert leak not in log, (leak, log)


def test_an_unexpected_500_is_counted_and_carries_cors_headers(open_memory, monkeypatch):
    """The 500 is sent inside the CORS middleware (a browser app can read it) and
    outside the metrics, which count it; nothing is raised to the server."""
    from fastapi.testclient import TestClient

    from remem.serve.http import create_app
    from remem.serve.tenant import TenantMemory

    def crash(self, *args, **kwargs):
        raise OverflowError(SECRET)

    monkeypatch.setattr(TenantMemory, "search", crash)
    mem = open_memory(":memory:", "bm25")
    key, _ = KeyRing.of(mem).create("acme")
    origin = "https://app.example"
    app = create_app(mem, cors_origins=[origin])
    with TestClient(app, raise_server_exceptions=True) as client:  # raised: a failure
        headers = {"Authorization": f"Bearer {key}", "Origin": origin}
        r = client.post("/v1/search", json={"user_id": "u", "query": "q"}, headers=headers)
        assert r.status_code == 500 and r.json()["error"]["code"] == "internal"
        assert r.headers["access-control-allow-origin"] == origin
        metrics = client.get("/metrics").text
    assert 'route="/v1/search",status="500"} 1' in metrics
