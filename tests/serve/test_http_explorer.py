"""The routes behind the memory explorer (``/v1/trace``, ``/v1/short-term``,
``/v1/engine``), the page's files at ``/ui``, and the keyless loopback mode of
``remem ui``: the real FastAPI app over real SQLite files (the page in a real browser
is tests/serve/test_page_browser.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from remem.cli import main
from remem.keys import KeyRing
from remem.serve.http import create_app
from remem.serve.page import FILES, check_loopback, host_of, is_loopback, read
from remem_bench.load import free_port, wait_up

ACME_BOB = [
    {"text": "I adopted a retired racing greyhound named Biscuit.", "session_id": "s1"},
    {"text": "Biscuit the greyhound sleeps on the sofa all day.", "session_id": "s1"},
    {"text": "My sister is getting married in Lisbon.", "session_id": "s2"},
    {"text": "We walked Biscuit along the river in Lisbon.", "session_id": "s2"},
    {"text": "The wedding in Lisbon will have a fado singer.", "session_id": "s3"},
]
# globex's user of the same name says the same things: only the ids tell them apart
GLOBEX_BOB = [dict(item, text=item["text"].replace("Biscuit", "Pretzel")) for item in ACME_BOB]
QUERY = "What is the name of my greyhound?"


class App:
    def __init__(self, open_memory, db: Path, engine: str, **kw):
        self.mem = open_memory(db, engine)
        self.client = TestClient(create_app(self.mem, **kw), raise_server_exceptions=False)
        ring = KeyRing.of(self.mem)
        self.keys = {t: ring.create(t)[0] for t in ("acme", "globex")}

    def req(self, method: str, path: str, tenant: str | None = "acme", **kw):
        headers = {"Authorization": f"Bearer {self.keys[tenant]}"} if tenant else {}
        return self.client.request(method, path, headers=headers, **kw)

    def seed(self) -> tuple[list[str], list[str]]:
        ids = {}
        for tenant, items in (("acme", ACME_BOB), ("globex", GLOBEX_BOB)):
            r = self.req(
                "POST", "/v1/memories/batch", tenant, json={"user_id": "bob", "items": items}
            )
            assert r.status_code == 201, r.text
            ids[tenant] = r.json()["ids"]
        for scoped in self.mem.users():
            self.mem.consolidate(scoped)
        return ids["acme"], ids["globex"]


@pytest.fixture
def make_app(open_memory, tmp_path: Path):
    made: list[App] = []

    def factory(engine: str = "synapse", **kw) -> App:
        app = App(open_memory, tmp_path / f"explorer-{len(made)}.db", engine, **kw)
        made.append(app)
        return app

    yield factory
    for app in made:
        app.client.close()


def test_trace_is_the_recall_and_its_graph_within_the_tenant(make_app):
    app = make_app("synapse")
    acme, globex = app.seed()
    body = {"user_id": "bob", "query": QUERY, "k": 3, "limit": 30}
    r = app.req("POST", "/v1/trace", json=body)
    assert r.status_code == 200, r.text
    trace = r.json()
    recall = app.req("POST", "/v1/recall", json={"user_id": "bob", "query": QUERY, "k": 3}).json()
    assert trace["recall"]["hits"] == recall["hits"]
    assert trace["recall"]["explanations"] == recall["explanations"]
    assert trace["graph"] is True and trace["nodes"] and trace["edges"]
    episodes = {n["id"] for n in trace["nodes"] if n["kind"] == "episode"}
    assert episodes <= set(acme) and not episodes & set(globex)
    assert "Pretzel" not in r.text
    assert any(n["kind"] == "concept" for n in trace["nodes"])
    # the other tenant's bob is another person
    other = app.req("POST", "/v1/trace", "globex", json=body).json()
    assert {n["id"] for n in other["nodes"] if n["kind"] == "episode"} <= set(globex)
    assert "Biscuit" not in str(other)


def test_trace_checks_its_arguments(make_app):
    app = make_app("hybrid")
    app.seed()
    ok = app.req("POST", "/v1/trace", json={"user_id": "bob", "query": QUERY})
    assert ok.status_code == 200 and ok.json()["graph"] is False and ok.json()["nodes"] == []
    for bad in ({"limit": 0}, {"limit": 201}, {"limit": "5"}, {"query": ""}, {"extra": 1}):
        r = app.req("POST", "/v1/trace", json={"user_id": "bob", "query": QUERY, **bad})
        assert r.status_code == 422, (bad, r.text)
        assert r.json()["error"]["code"] in {"invalid_request", "invalid_input"}


def test_short_term_of_ilstma_per_tenant(make_app):
    app = make_app("ilstma")
    app.seed()
    r = app.req("POST", "/v1/recall", json={"user_id": "bob", "query": QUERY, "k": 3})
    assert r.status_code == 200, r.text
    stm = app.req("GET", "/v1/short-term", params={"user_id": "bob"})
    assert stm.status_code == 200, stm.text
    data = stm.json()
    assert {"cache", "summary", "personality", "history", "relevant"} <= set(data)
    assert data["questions"] >= 1 and isinstance(data["tokens"], int)
    assert "Pretzel" not in stm.text
    # globex's bob asked nothing, and never sees acme's words
    other = app.req("GET", "/v1/short-term", "globex", params={"user_id": "bob"})
    assert other.status_code == 200 and "Biscuit" not in other.text
    engine = app.req("GET", "/v1/engine").json()
    assert engine == {"name": "ilstma", "gate": False, "flow": True, "short_term": True}


def test_short_term_of_an_engine_without_one_is_a_clear_error(make_app):
    app = make_app("synapse")
    r = app.req("GET", "/v1/short-term", params={"user_id": "bob"})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_input"
    assert "short-term" in r.json()["error"]["message"]
    assert app.req("GET", "/v1/engine").json()["name"] == "synapse"


@pytest.mark.parametrize(
    ("method", "path", "kw"),
    [
        ("POST", "/v1/trace", {"json": {"user_id": "bob", "query": "x"}}),
        ("GET", "/v1/short-term", {"params": {"user_id": "bob"}}),
        ("GET", "/v1/engine", {}),
    ],
)
def test_the_new_routes_need_a_key(make_app, method, path, kw):
    app = make_app("hybrid")
    for headers in ({}, {"Authorization": "Bearer rmm_000000000000_" + "a" * 43}):
        r = app.client.request(method, path, headers=headers, **kw)
        assert r.status_code == 401, r.text


def test_the_page_is_served_from_the_package_and_loads_nothing_from_elsewhere(make_app):
    app = make_app("hybrid")
    r = app.client.get("/ui?user=bob", follow_redirects=False)
    assert r.status_code == 307 and r.headers["location"] == "ui/?user=bob"
    page = app.client.get("/ui/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    assert "default-src 'none'" in csp and "script-src 'self'" in csp
    assert page.headers["x-content-type-options"] == "nosniff"
    for name, kind in FILES.items():
        r = app.client.get(f"/ui/{name}")
        assert r.status_code == 200 and r.headers["content-type"] == kind
        assert r.content == read(name)
        # no other host: the only absolute URL is SVG's namespace name
        urls = set(re.findall(r"https?://[^\s\"')]+", r.text))
        assert urls <= {"http://www.w3.org/2000/svg"}, (name, urls)
    assert app.client.get("/ui/secret.py").status_code == 404
    # the page holds no data: the same for everyone, with or without a key
    assert app.client.get("/ui/").content == app.req("GET", "/ui/").content
    # and the routes are not part of the API's schema
    assert not [p for p in app.client.get("/openapi.json").json()["paths"] if "ui" in p]


def test_keyless_mode_answers_loopback_only(make_app):
    app = make_app("hybrid", keyless=True)
    app.mem.add_many(ACME_BOB, user_id="bob")
    app.mem.add_many(GLOBEX_BOB, user_id="ann")
    local = TestClient(app.client.app, base_url="http://127.0.0.1:8090")
    r = local.get("/v1/users")
    # no tenant: every user as stored, for the one person at this machine
    assert r.status_code == 200 and r.json()["users"] == ["ann", "bob"]
    r = local.post("/v1/trace", json={"user_id": "bob", "query": QUERY})
    assert r.status_code == 200 and "Pretzel" not in r.text
    assert local.get("/v1/engine").json()["name"] == "hybrid"
    for host in ("localhost:8090", "[::1]:8090", "127.0.0.1"):
        assert local.get("/v1/users", headers={"host": host}).status_code == 200, host
    # a name rebound to 127.0.0.1 by a web page elsewhere is still that name
    for host in ("evil.example", "evil.example:8090", "127.0.0.1.evil.example", ""):
        r = local.get("/v1/users", headers={"host": host})
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_loopback", host
    # the keyed app never serves without a key, loopback or not
    keyed = make_app("hybrid")
    assert (
        TestClient(keyed.client.app, base_url="http://127.0.0.1").get("/v1/users").status_code
        == 401
    )


def test_remem_ui_sends_its_root_to_the_page(make_app):
    """``remem ui`` prints ``/ui/``, but a browser's address bar is often cut to the
    root: the keyless app sends it on (keeping ``?user=``); the page keeps its CSP."""
    app = make_app("hybrid", keyless=True)
    local = TestClient(app.client.app, base_url="http://127.0.0.1:8090")
    for path, target in (("/", "ui/"), ("/?user=bob", "ui/?user=bob")):
        r = local.get(path, follow_redirects=False)
        assert r.status_code == 307 and r.headers["location"] == target, path
    page = local.get("/")
    assert page.status_code == 200 and str(page.url) == "http://127.0.0.1:8090/ui/"
    assert page.content == read("index.html")
    assert "default-src 'none'" in page.headers["content-security-policy"]
    # the root holds no data: a rebound name gets the same redirect and nothing more
    evil = local.get("/", headers={"host": "evil.example"}, follow_redirects=False)
    assert evil.status_code == 307 and evil.content == b""
    # the keyed API server has no page at its root (test_http.py)
    assert make_app("hybrid").client.get("/").status_code == 404


def test_a_real_remem_ui_answers_at_its_root_and_head_on_health(open_memory, tmp_path: Path):
    db = tmp_path / "local.db"
    open_memory(db, "hybrid").add("I adopted a greyhound named Biscuit.", user_id="bob")
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEM_")}
    port, log = free_port(), tmp_path / "ui.log"
    cmd = [sys.executable, "-m", "remem.cli", "--db", str(db), "ui", "--port", str(port)]
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env=env)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(base, proc, timeout=90)
        assert f"{base}/ui/" in log.read_text()  # the address it prints ...
        r = httpx.get(f"{base}/", follow_redirects=True)  # ... and the one typed
        assert r.status_code == 200 and str(r.url) == f"{base}/ui/"
        assert r.content == read("index.html")
        assert "script-src 'self'" in r.headers["content-security-policy"]
        r = httpx.head(f"{base}/v1/health")
        assert r.status_code == 200 and r.content == b""
    finally:
        proc.terminate()
        proc.wait(30)


def test_loopback_names():
    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
        assert check_loopback(host) == host
    for host in ("0.0.0.0", "::", "192.168.1.4", "example.com", "", "localhost.example"):
        assert not is_loopback(host), host
    assert host_of("[::1]:8090") == "::1" and host_of("localhost:1") == "localhost"
    assert host_of("127.0.0.1") == "127.0.0.1" and host_of("::1") == "::1"


def test_remem_ui_refuses_other_hosts_and_missing_databases(tmp_path: Path, capsys):
    db = tmp_path / "none.db"
    assert main(["--db", str(db), "ui", "--host", "0.0.0.0"]) == 2
    assert "only on loopback" in capsys.readouterr().err
    assert main(["--db", str(db), "ui", "--port", "1"]) == 2
    assert "no database" in capsys.readouterr().err
    assert not db.exists()
