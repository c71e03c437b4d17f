"""The HTTP API (``remem serve``): the real FastAPI app over real SQLite files.

Everything runs for real: FastAPI's TestClient drives the app in-process, and one
test starts ``remem serve --workers 2`` as a subprocess and talks to it over TCP.
"""

from __future__ import annotations

import http.client
import json
import logging
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

import remem.keys as remem_keys
from remem import Memory
from remem.keys import KeyRing
from remem.serve.http import create_app
from remem.serve.schema import MAX_K
from sample_conversation import BOB

ENGINES = ["hybrid", "synapse", "ilstma"]
TENANTS = ("acme", "globex")

# A's user "bob": three facts, as a client would send them
BOB_A = BOB
# B's user of the same name: nothing in common with A's
BOB_B = [
    {
        "text": "I play the cello in a community orchestra on Thursdays.",
        "speaker": "Bob",
        "timestamp": "2023-07-01T18:00:00+00:00",
    }
]
A_MARKERS = ("greyhound", "Biscuit", "Lisbon", "penicillin")
QUESTION = "What is the name of Bob's greyhound?"

TEMPLATES = {
    "/v1/health",
    "/metrics",
    "/v1/memories",
    "/v1/memories/batch",
    "/v1/memories/{memory_id}",
    "/v1/memories/{memory_id}/history",
    "/v1/users",
    "/v1/search",
    "/v1/recall",
    "/v1/answer",
    "/v1/context",
    "/v1/export",
    "/v1/import",
    "/v1/trace",
    "/v1/short-term",
    "/v1/engine",
    "/ui",
    "/ui/",
    "/ui/{name}",
}


# -- the app under test ----------------------------------------------------------------------


@dataclass
class Api:
    client: TestClient
    mem: Memory
    db: Path
    keys: dict[str, str] = field(default_factory=dict)  # tenant -> key
    key_ids: dict[str, str] = field(default_factory=dict)

    def auth(self, tenant: str = "acme", how: str = "bearer") -> dict[str, str]:
        key = self.keys[tenant]
        return {"Authorization": f"Bearer {key}"} if how == "bearer" else {"X-API-Key": key}

    def req(self, method: str, path: str, tenant: str | None = "acme", **kw: Any):
        headers = dict(kw.pop("headers", {}) or {})
        if tenant is not None:
            headers.update(self.auth(tenant))
        return self.client.request(method, path, headers=headers, **kw)

    def raw(self, method: str, path: str, body: Any, tenant: str | None = "acme", **kw: Any):
        """Send ``body`` as JSON text with every non-ASCII character escaped (so lone
        surrogates travel as legal ``\\ud800`` escapes)."""
        data = json.dumps(body).encode("ascii") if not isinstance(body, bytes) else body
        headers = {"content-type": "application/json", **kw.pop("headers", {})}
        return self.req(method, path, tenant, content=data, headers=headers, **kw)

    # shorthands, each asserting success
    def add(self, user: str, tenant: str = "acme", **item: Any) -> str:
        r = self.req("POST", "/v1/memories", tenant, json={"user_id": user, **item})
        assert r.status_code == 201, r.text
        return r.json()["id"]

    def add_many(self, user: str, items: list[dict], tenant: str = "acme") -> list[str]:
        r = self.req("POST", "/v1/memories/batch", tenant, json={"user_id": user, "items": items})
        assert r.status_code == 201, r.text
        return r.json()["ids"]

    def listing(self, user: str, tenant: str = "acme", **params: Any) -> dict:
        r = self.req("GET", "/v1/memories", tenant, params={"user_id": user, **params})
        assert r.status_code == 200, r.text
        return r.json()

    def count(self, user: str, tenant: str = "acme") -> int:
        return self.listing(user, tenant)["count"]

    def search(self, user: str, query: str, tenant: str = "acme", k: int = 10) -> list[dict]:
        r = self.req("POST", "/v1/search", tenant, json={"user_id": user, "query": query, "k": k})
        assert r.status_code == 200, r.text
        return r.json()["hits"]

    def users(self, tenant: str = "acme") -> list[str]:
        r = self.req("GET", "/v1/users", tenant)
        assert r.status_code == 200, r.text
        return r.json()["users"]


@pytest.fixture
def make_api(open_memory, tmp_path: Path) -> Iterator[Callable[..., Api]]:
    clients: list[TestClient] = []
    made = 0

    def factory(
        engine: str = "hybrid",
        *,
        max_text_chars: int | None = None,
        tenants: tuple[str, ...] = TENANTS,
        **app_kw: Any,
    ) -> Api:
        nonlocal made
        made += 1
        db = tmp_path / f"server-{made}.db"
        mem_kw = {} if max_text_chars is None else {"max_text_chars": max_text_chars}
        mem = open_memory(db, engine, **mem_kw)
        client = TestClient(create_app(mem, **app_kw), raise_server_exceptions=False)
        clients.append(client)
        api = Api(client, mem, db)
        for t in tenants:
            api.keys[t], info = KeyRing.of(mem).create(t, label=f"{t} test key")
            api.key_ids[t] = info.key_id
        return api

    yield factory
    for c in clients:
        c.close()


@pytest.fixture
def api(make_api) -> Api:
    return make_api()


def _error_code(r) -> str:
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    assert set(body) == {"error"}, body
    assert isinstance(body["error"]["message"], str)
    return body["error"]["code"]


def _table_names(db: Path) -> set[str]:
    con = sqlite3.connect(db)
    try:
        return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        con.close()


def _seed(api: Api) -> tuple[list[str], list[str]]:
    """A (acme) stores bob's three facts and one of alice's; B (globex) one of its bob."""
    a_ids = api.add_many("bob", BOB_A, tenant="acme")
    api.add("alice", tenant="acme", text="Alice collects vintage fountain pens.")
    b_ids = api.add_many("bob", BOB_B, tenant="globex")
    return a_ids, b_ids


# -- every /v1 route wants a key ---------------------------------------------------------------

TABLE = {"format": "remem.global-memory-table/1", "entries": [{"text": "imported fact"}]}
ROUTES: list[tuple[str, str, dict[str, Any]]] = [
    ("POST", "/v1/memories", {"json": {"user_id": "bob", "text": "a new fact"}}),
    ("POST", "/v1/memories/batch", {"json": {"user_id": "bob", "items": [{"text": "x"}]}}),
    ("GET", "/v1/memories", {"params": {"user_id": "bob"}}),
    ("GET", "/v1/memories/{id}", {"params": {"user_id": "bob"}}),
    ("PATCH", "/v1/memories/{id}", {"json": {"user_id": "bob", "text": "changed"}}),
    ("GET", "/v1/memories/{id}/history", {"params": {"user_id": "bob"}}),
    ("DELETE", "/v1/memories/{id}", {"params": {"user_id": "bob"}}),
    ("GET", "/v1/users", {}),
    ("DELETE", "/v1/users", {"params": {"user_id": "bob"}}),
    ("POST", "/v1/search", {"json": {"user_id": "bob", "query": "greyhound"}}),
    ("POST", "/v1/recall", {"json": {"user_id": "bob", "query": "greyhound"}}),
    ("POST", "/v1/answer", {"json": {"user_id": "bob", "question": QUESTION}}),
    ("GET", "/v1/export", {"params": {"user_id": "bob"}}),
    ("POST", "/v1/import", {"params": {"user_id": "bob"}, "json": TABLE}),
    ("POST", "/v1/trace", {"json": {"user_id": "bob", "query": "greyhound"}}),
    ("GET", "/v1/engine", {}),
]
ROUTE_IDS = [f"{m} {p}" for m, p, _ in ROUTES]


def _bad_auth(api: Api) -> dict[str, dict[str, str]]:
    key = api.keys["acme"]
    key_id = api.key_ids["acme"]
    secret = key.split("_", 2)[2]
    wrong = ("A" if secret[0] != "A" else "B") + secret[1:]
    return {
        "none": {},
        "wrong secret": {"Authorization": f"Bearer rmm_{key_id}_{wrong}"},
        "unknown id": {"Authorization": f"Bearer rmm_000000000000_{secret}"},
        "malformed": {"Authorization": "Bearer hunter2"},
        "malformed x-api-key": {"X-API-Key": "rmm_"},
        "empty x-api-key": {"X-API-Key": ""},
        "basic scheme": {"Authorization": f"Basic {key}"},
        "no scheme": {"Authorization": key},
        "bearer, nothing": {"Authorization": "Bearer "},
        "key in wrong header": {"X-Api-Token": key},
    }


def _route_call(api: Api, route: tuple[str, str, dict], mid: str, headers: dict[str, str]):
    method, path, kw = route
    return api.client.request(method, path.replace("{id}", mid), headers=headers, **kw)


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
def test_every_v1_route_needs_a_valid_key(api: Api, route):
    (mid,) = api.add_many("bob", BOB_A[:1])
    before = api.listing("bob")
    for name, headers in _bad_auth(api).items():
        r = _route_call(api, route, mid, headers)
        assert r.status_code == 401, (name, r.status_code, r.text)
        assert _error_code(r) == "unauthorized", name
        assert r.headers["www-authenticate"] == "Bearer"
    # nothing a refused request asked for happened
    assert api.listing("bob") == before
    assert api.users() == ["bob"]
    # ... and both headers carry a valid key
    for how in ("bearer", "x-api-key"):
        r = _route_call(api, route, mid, api.auth("acme", how))
        assert r.status_code < 400, (how, r.status_code, r.text)
        if route[0] == "DELETE":
            mid = api.add("bob", text="another fact")


def test_bearer_scheme_is_case_insensitive_and_bearer_wins(api: Api):
    key = api.keys["acme"]
    for scheme in ("bearer", "BEARER", "Bearer"):
        r = api.client.get("/v1/users", headers={"Authorization": f"{scheme} {key}"})
        assert r.status_code == 200, scheme
    # Authorization wins: a wrong Bearer key is not rescued by a right X-API-Key ...
    r = api.client.get(
        "/v1/users", headers={"Authorization": "Bearer rmm_x", "X-API-Key": api.keys["acme"]}
    )
    assert r.status_code == 401
    r = api.client.get(
        "/v1/users",
        headers={"Authorization": f"Bearer {key}", "X-API-Key": "rmm_000000000000_" + "a" * 43},
    )
    assert r.status_code == 200


def test_health_metrics_and_schema_need_no_key(api: Api):
    r = api.client.get("/v1/health")
    assert r.status_code == 200
    assert r.json()["status"] == "ok" and r.json()["engine"] == "hybrid"
    assert api.client.get("/metrics").status_code == 200
    assert api.client.get("/openapi.json").status_code == 200
    # a garbage key on an open route changes nothing
    assert api.client.get("/v1/health", headers={"Authorization": "Bearer nope"}).status_code == 200


def test_health_answers_head_as_load_balancers_send_it(api: Api):
    r = api.client.head("/v1/health")
    assert r.status_code == 200 and r.content == b""
    assert r.headers["content-type"] == "application/json"
    assert "HEAD" in api.client.put("/v1/health").headers["allow"]
    api.mem.close()  # the store gone: HEAD says so like GET
    assert api.client.head("/v1/health").status_code == 503


def test_the_api_servers_root_is_a_json_404(api: Api):
    """``remem serve`` has no page at ``/`` (its explorer is at ``/ui/``): a client
    with a wrong base URL gets the API's own error, not a page."""
    r = api.client.get("/", follow_redirects=False)
    assert r.status_code == 404 and _error_code(r) == "no_route"


@pytest.mark.parametrize("route", ROUTES, ids=ROUTE_IDS)
def test_a_key_revoked_while_the_app_runs_is_refused_at_once(api: Api, route):
    (mid,) = api.add_many("bob", BOB_A[:1])
    assert api.req("GET", "/v1/users").status_code == 200  # the key worked a moment ago
    assert KeyRing.of(api.mem).revoke(api.key_ids["acme"]) is True
    for how in ("bearer", "x-api-key"):
        r = _route_call(api, route, mid, api.auth("acme", how))
        assert r.status_code == 401, (how, r.text)
        assert _error_code(r) == "unauthorized"
    # the other tenant's key is untouched
    assert api.req("GET", "/v1/users", "globex").status_code == 200


def test_key_cache_bounds_how_long_a_revoked_key_works(make_api, monkeypatch):
    # the key ring's own clock, moved by hand: a busy machine's slow request must not
    # outlast the window (CI once took longer than 0.5 s between two requests)
    clock = [1000.0]
    monkeypatch.setattr(
        remem_keys, "time", SimpleNamespace(monotonic=lambda: clock[0], time=time.time)
    )
    api = make_api(key_cache_s=0.5)
    assert api.req("GET", "/v1/users").status_code == 200  # now cached
    KeyRing.of(api.mem).revoke(api.key_ids["acme"])  # another ring: the app's cache answers
    clock[0] += 0.4
    assert api.req("GET", "/v1/users").status_code == 200
    clock[0] += 0.3
    assert api.req("GET", "/v1/users").status_code == 401


def test_a_key_created_while_the_app_runs_works_at_once(api: Api):
    key, _ = KeyRing.of(api.mem).create("initech")
    r = api.client.get("/v1/users", headers={"X-API-Key": key})
    assert r.status_code == 200 and r.json() == {"users": []}


# -- tenants never meet ------------------------------------------------------------------------


def _no_a(text: str) -> None:
    for marker in A_MARKERS:
        assert marker not in text, marker
    assert "acme" not in text


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("action", ["search", "recall", "answer"])
def test_other_tenant_retrieves_nothing_of_ours(make_api, engine: str, action: str):
    api = make_api(engine)
    a_ids, b_ids = _seed(api)
    field_name = "question" if action == "answer" else "query"
    # A asks first (ILSTMA caches per user; SYNAPSE activates A's graph)
    for tenant in ("acme", "globex"):
        for q in (QUESTION, "greyhound Biscuit Lisbon penicillin", "cello"):
            body = {"user_id": "bob", field_name: q, "k": 10}
            r = api.req("POST", f"/v1/{action}", tenant, json=body)
            assert r.status_code == 200, r.text
            out = r.json()
            hits = out["evidence"] if action == "answer" else out["hits"]
            ids = {h["id"] for h in hits}
            if tenant == "globex":
                assert ids <= set(b_ids), (q, out)
                _no_a(r.text)
                if action == "recall":
                    assert set(out["explanations"]) <= set(b_ids)
            else:
                assert ids <= set(a_ids)
                assert "cello" not in r.text
    # an A question for which B has nothing at all
    for user in ("bob", "alice", "nobody"):
        body = {"user_id": user, field_name: QUESTION, "k": 5}
        r = api.req("POST", f"/v1/{action}", "globex", json=body)
        assert r.status_code == 200
        _no_a(r.text)
        if user != "bob":
            out = r.json()
            if action == "answer":
                assert out["evidence"] == [] and out["refused"] is True
            else:
                assert out["hits"] == []


def test_other_tenant_cannot_get_or_delete_our_memories(api: Api):
    a_ids, b_ids = _seed(api)
    for mid in a_ids:
        for user in ("bob", "acme:bob", "alice", ":bob"):
            r = api.req("GET", f"/v1/memories/{mid}", "globex", params={"user_id": user})
            assert r.status_code == 404 and _error_code(r) == "not_found"
            _no_a(r.text)
            r = api.req("DELETE", f"/v1/memories/{mid}", "globex", params={"user_id": user})
            assert r.status_code == 404 and _error_code(r) == "not_found"
    for mid in a_ids:  # all still there, for A
        r = api.req("GET", f"/v1/memories/{mid}", params={"user_id": "bob"})
        assert r.status_code == 200
    assert api.count("bob") == 3
    # and A cannot reach B's
    r = api.req("GET", f"/v1/memories/{b_ids[0]}", params={"user_id": "bob"})
    assert r.status_code == 404


def test_other_tenant_lists_and_counts_only_its_own(api: Api):
    a_ids, b_ids = _seed(api)
    out = api.listing("bob", "globex")
    assert out["count"] == 1 and [m["id"] for m in out["memories"]] == b_ids
    _no_a(json.dumps(out))
    assert api.listing("alice", "globex") == {"count": 0, "memories": []}
    assert api.listing("bob")["count"] == 3


def test_users_are_per_tenant(api: Api):
    _seed(api)
    assert sorted(api.users("acme")) == ["alice", "bob"]
    assert api.users("globex") == ["bob"]
    key, _ = KeyRing.of(api.mem).create("initech")
    r = api.client.get("/v1/users", headers={"X-API-Key": key})
    assert r.json() == {"users": []}


def test_other_tenant_delete_user_erases_only_its_own(api: Api):
    a_ids, b_ids = _seed(api)
    r = api.req("DELETE", "/v1/users", "globex", params={"user_id": "alice"})
    assert r.status_code == 200 and r.json() == {"deleted": 0}
    r = api.req("DELETE", "/v1/users", "globex", params={"user_id": "acme:bob"})
    assert r.json() == {"deleted": 0}
    r = api.req("DELETE", "/v1/users", "globex", params={"user_id": "bob"})
    assert r.json() == {"deleted": 1}
    assert api.count("bob") == 3 and api.count("alice") == 1
    assert {h["id"] for h in api.search("bob", "greyhound")} == set(a_ids)
    assert api.users("globex") == []


def test_other_tenant_export_holds_none_of_ours(api: Api):
    _seed(api)
    for user in ("bob", "alice", "acme:bob"):
        r = api.req("GET", "/v1/export", "globex", params={"user_id": user})
        assert r.status_code == 200
        data = r.json()
        assert data["user_id"] == user
        assert len(data["entries"]) == (1 if user == "bob" else 0)
        _no_a(json.dumps({k: v for k, v in data.items() if k != "user_id"}))


def test_import_goes_to_the_importing_tenant_only(api: Api):
    a_ids, b_ids = _seed(api)
    exported = api.req("GET", "/v1/export", params={"user_id": "bob"}).json()
    assert exported["user_id"] == "bob" and len(exported["entries"]) == 3
    r = api.req("POST", "/v1/import", "globex", params={"user_id": "bob"}, json=exported)
    assert r.status_code == 201, r.text
    new_ids = r.json()["ids"]
    assert len(new_ids) == 3 and not set(new_ids) & set(a_ids)
    assert api.count("bob", "globex") == 4
    assert api.count("bob", "acme") == 3  # A unchanged
    assert {h["id"] for h in api.search("bob", "greyhound", "acme")} == set(a_ids)
    assert api.users("acme") == sorted(api.users("acme"))  # no new users for A
    assert sorted(api.users("acme")) == ["alice", "bob"]
    # import can't target another tenant through the table's own user_id field
    forged = {**exported, "user_id": "acme:alice"}
    r = api.req("POST", "/v1/import", "globex", params={"user_id": "carol"}, json=forged)
    assert r.status_code == 201
    assert api.count("alice", "acme") == 1 and api.count("carol", "globex") == 3


def test_other_tenant_writes_stay_its_own(api: Api):
    a_ids, _ = _seed(api)
    api.add("bob", "globex", text="I drive a red greyhound bus called Biscuit too.")
    api.add_many("bob", [{"text": "greyhound"}], tenant="globex")
    assert api.count("bob") == 3
    assert {h["id"] for h in api.search("bob", "greyhound bus Biscuit")} == set(a_ids)


@pytest.mark.parametrize(
    "user", ["globex:bob", "globex::bob", ":globex:bob", "globex:", "globex", "bob:globex"]
)
def test_colons_in_user_ids_cannot_reach_another_tenant(api: Api, user: str):
    """B (globex) keeps user "bob", stored as "globex:bob"; A (acme) tries user ids
    that spell B's stored name. All land in A's own space."""
    (b_id,) = api.add_many("bob", BOB_B, tenant="globex")
    assert api.search(user, "cello orchestra") == []
    assert api.listing(user)["count"] == 0
    r = api.req("GET", f"/v1/memories/{b_id}", params={"user_id": user})
    assert r.status_code == 404
    r = api.req("DELETE", f"/v1/memories/{b_id}", params={"user_id": user})
    assert r.status_code == 404
    r = api.req("DELETE", "/v1/users", params={"user_id": user})
    assert r.json() == {"deleted": 0}
    assert api.req("GET", "/v1/export", params={"user_id": user}).json()["entries"] == []
    r = api.req("POST", "/v1/recall", json={"user_id": user, "query": "cello"})
    assert r.json()["hits"] == []
    # A writes under that name: it is A's user, B's bob is untouched
    mine = api.add(user, text="I also play the cello, badly.")
    assert api.users("acme") == [user]
    assert api.count("bob", "globex") == 1
    assert [h["id"] for h in api.search("bob", "cello", "globex")] == [b_id]
    assert api.users("globex") == ["bob"]
    r = api.req("GET", f"/v1/memories/{mine}", "globex", params={"user_id": "bob"})
    assert r.status_code == 404


def test_tenants_sharing_a_name_prefix_stay_apart(make_api):
    api = make_api(tenants=("acme", "acme.eu", "acme-eu", "acm"))
    api.add("bob", "acme", text="I adopted a greyhound named Biscuit.")
    api.add("bob", "acme.eu", text="I keep bees on the roof.")
    api.add("eu:bob", "acme", text="I collect stamps.")
    assert sorted(api.users("acme")) == ["bob", "eu:bob"]
    assert api.users("acme.eu") == ["bob"]
    assert api.users("acme-eu") == [] and api.users("acm") == []
    assert [h["text"] for h in api.search("bob", "hobby", "acme.eu")] == [
        "I keep bees on the roof."
    ]
    assert api.search("bob", "anything", "acm") == []


# -- full round trips ---------------------------------------------------------------------------


def test_add_get_list_delete_round_trip(api: Api):
    item = BOB_A[0]
    r = api.req("POST", "/v1/memories", json={"user_id": "bob", **item})
    assert r.status_code == 201
    mid = r.json()["id"]
    assert re.fullmatch(r"[0-9a-f]{32}", mid)
    r = api.req("GET", f"/v1/memories/{mid}", params={"user_id": "bob"})
    assert r.status_code == 200
    got = r.json()
    assert got == {
        "id": mid,
        "text": item["text"],
        "score": 1.0,
        "speaker": "Bob",
        "timestamp": "2023-05-08T13:56:00+00:00",
        "session_id": "s1",
        "metadata": item["metadata"],
        # "last spring", said 8 May 2023: the spring before (tests/time/test_events.py)
        "event_times": [
            {
                "start": "2022-03-01T00:00:00+00:00",
                "end": "2022-06-01T00:00:00+00:00",
                "granularity": "season",
                "words": "last spring",
            }
        ],
        "superseded_by": None,
    }
    # default timestamp: now, in UTC
    plain = api.add("bob", text="I had pancakes for breakfast.")
    got = api.req("GET", f"/v1/memories/{plain}", params={"user_id": "bob"}).json()
    assert got["speaker"] is None and got["session_id"] is None and got["metadata"] == {}
    assert got["timestamp"].endswith("+00:00")

    ids = api.add_many("bob", BOB_A[1:])
    out = api.listing("bob")
    assert out["count"] == 4
    assert [m["id"] for m in out["memories"]] == [mid, plain, *ids]
    page = api.listing("bob", limit=2, offset=1)
    assert page["count"] == 4 and [m["id"] for m in page["memories"]] == [plain, ids[0]]
    assert api.listing("bob", offset=10)["memories"] == []

    r = api.req("DELETE", f"/v1/memories/{mid}", params={"user_id": "bob"})
    assert r.status_code == 200 and r.json() == {"deleted": True}
    r = api.req("GET", f"/v1/memories/{mid}", params={"user_id": "bob"})
    assert r.status_code == 404 and _error_code(r) == "not_found"
    r = api.req("DELETE", f"/v1/memories/{mid}", params={"user_id": "bob"})
    assert r.status_code == 404
    assert api.count("bob") == 3
    assert mid not in {h["id"] for h in api.search("bob", "greyhound Biscuit")}


def test_batch_is_all_or_nothing(api: Api):
    ids = api.add_many("bob", BOB_A)
    assert len(ids) == 3 and len(set(ids)) == 3
    assert [m["text"] for m in api.listing("bob")["memories"]] == [i["text"] for i in BOB_A]
    bad = [{"text": "fine"}, {"text": "   "}, {"text": "also fine"}]
    r = api.req("POST", "/v1/memories/batch", json={"user_id": "bob", "items": bad})
    assert r.status_code == 422 and _error_code(r) == "invalid_input"
    assert "item 1" in r.json()["error"]["message"]
    assert api.count("bob") == 3
    r = api.req("POST", "/v1/memories/batch", json={"user_id": "bob", "items": []})
    assert r.status_code == 201 and r.json() == {"ids": [], "skipped": []}


def test_users_and_delete_user_round_trip(api: Api):
    api.add_many("bob", BOB_A)
    api.add("alice", text="Alice collects vintage fountain pens.")
    assert sorted(api.users()) == ["alice", "bob"]
    r = api.req("DELETE", "/v1/users", params={"user_id": "bob"})
    assert r.status_code == 200 and r.json() == {"deleted": 3}
    assert api.users() == ["alice"]
    assert api.search("bob", "greyhound") == []
    assert api.req("DELETE", "/v1/users", params={"user_id": "bob"}).json() == {"deleted": 0}


def test_now_on_search_recall_answer(make_api):
    api = make_api("hybrid")
    api.add_many(
        "bob",
        [
            {"text": "I baked a lemon cake", "timestamp": "2023-03-01T10:00:00"},
            {"text": "I baked bread", "timestamp": "2023-03-20T10:00:00"},
        ],
    )
    question = "What did I bake yesterday?"
    for now, first in (("2023-03-21T09:00:00", "bread"), ("2023-03-02T09:00:00", "cake")):
        body = {"user_id": "bob", "query": question, "k": 1, "now": now}
        r = api.req("POST", "/v1/search", json=body)
        assert r.status_code == 200 and first in r.json()["hits"][0]["text"]
        r = api.req("POST", "/v1/recall", json=body)
        assert r.status_code == 200 and first in r.json()["hits"][0]["text"]
        body = {"user_id": "bob", "question": question, "k": 1, "now": now}
        r = api.req("POST", "/v1/answer", json=body)
        assert r.status_code == 200 and first in r.json()["evidence"][0]["text"]
    for path, name in (
        ("/v1/search", "query"),
        ("/v1/recall", "query"),
        ("/v1/answer", "question"),
    ):
        for bad in ("next tuesday", "2023-02-30"):
            r = api.req("POST", path, json={"user_id": "bob", name: question, "now": bad})
            assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_input", (
                path,
                bad,
            )
        r = api.req("POST", path, json={"user_id": "bob", name: question, "now": 5})
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"


@pytest.mark.parametrize("engine", ENGINES)
def test_times_at_the_ends_of_the_range_never_make_a_500(make_api, engine: str):
    """A memory stamped .NET's DateTime.MinValue or 9999-12-31, and questions asked
    "now" at either end, answer 200 (each was a 500 ``internal``, issue 34)."""
    api = make_api(engine)
    api.add_many(
        "bob",
        [
            {"text": "I went hiking last weekend", "timestamp": "0001-01-01T00:00:00"},
            {"text": "I saw a concert yesterday", "timestamp": "9999-12-31T23:59:59"},
        ],
    )
    for now in (None, "0001-01-01", "9999-12-25"):
        for question in ("What did I do last Saturday?", "Where did I go in December?"):
            for path, name in (("/v1/search", "query"), ("/v1/recall", "query")):
                body = {"user_id": "bob", name: question, "k": 2, "now": now}
                r = api.req("POST", path, json=body)
                assert r.status_code == 200, (path, now, question, r.text)


@pytest.mark.parametrize("engine", ENGINES)
def test_search_recall_answer_round_trip(make_api, engine: str):
    api = make_api(engine)
    ids = api.add_many("bob", BOB_A)
    hits = api.search("bob", QUESTION, k=2)
    assert len(hits) == 2 and hits[0]["id"] == ids[0]
    assert hits[0]["text"] == BOB_A[0]["text"] and hits[0]["metadata"] == BOB_A[0]["metadata"]
    assert hits[0]["score"] >= hits[1]["score"]
    assert len(api.search("bob", QUESTION, k=1)) == 1
    assert len(api.search("bob", QUESTION, k=200)) == 3

    r = api.req("POST", "/v1/recall", json={"user_id": "bob", "query": QUESTION, "k": 3})
    assert r.status_code == 200
    rec = r.json()
    assert set(rec) == {
        "hits",
        "confidence",
        "refuse",
        "concepts",
        "explanations",
        "cache_hit",
        "timings",
        "absent",
        "not_in_memory",
    }
    assert rec["hits"][0]["id"] == ids[0]
    assert isinstance(rec["confidence"], float) and isinstance(rec["refuse"], bool)
    assert set(rec["explanations"]) == {h["id"] for h in rec["hits"]}

    r = api.req("POST", "/v1/answer", json={"user_id": "bob", "question": QUESTION, "k": 3})
    assert r.status_code == 200
    ans = r.json()
    assert "Biscuit" in ans["text"] and ans["refused"] is False
    assert ids[0] in {e["id"] for e in ans["evidence"]}
    assert ans["llm_calls"] == 0  # llm="none": extractive
    r = api.req(
        "POST",
        "/v1/answer",
        json={"user_id": "bob", "question": "What car does Bob drive?", "k": 3},
    )
    assert r.status_code == 200 and r.json()["refused"] is True
    r = api.req("POST", "/v1/answer", json={"user_id": "nobody", "question": QUESTION})
    assert r.json()["refused"] is True and r.json()["evidence"] == []
    # a user with no memories: the recall itself says that memory holds nothing
    r = api.req("POST", "/v1/recall", json={"user_id": "nobody", "query": "PIN"})
    nothing = r.json()
    assert nothing["hits"] == [] and nothing["not_in_memory"] is True
    assert nothing["refuse"] is True and nothing["absent"] == 1.0


@pytest.mark.parametrize("engine", ENGINES)
def test_export_import_round_trip(make_api, engine: str):
    api = make_api(engine)
    ids = api.add_many("bob", BOB_A)
    r = api.req("GET", "/v1/export", params={"user_id": "bob"})
    assert r.status_code == 200
    data = r.json()
    assert data["format"] == "remem.global-memory-table/1" and data["user_id"] == "bob"
    assert "acme:" not in r.text  # the stored (scoped) name never shows
    assert [e["id"] for e in data["entries"]] == ids
    assert [e["text"] for e in data["entries"]] == [i["text"] for i in BOB_A]
    assert data["entries"][0]["metadata"] == BOB_A[0]["metadata"]
    r = api.req("POST", "/v1/import", params={"user_id": "carol"}, json=data)
    assert r.status_code == 201
    new = r.json()["ids"]
    assert len(new) == 3 and not set(new) & set(ids)
    carol = api.listing("carol")["memories"]
    assert [(m["text"], m["timestamp"], m["speaker"], m["session_id"]) for m in carol] == [
        (i["text"], i["timestamp"], i["speaker"], i["session_id"]) for i in BOB_A
    ]
    assert api.search("carol", QUESTION, k=1)[0]["text"] == BOB_A[0]["text"]
    # a broken table imports nothing
    broken = {**data, "entries": [*data["entries"], {"text": 5}]}
    r = api.req("POST", "/v1/import", params={"user_id": "dave"}, json=broken)
    assert r.status_code == 422 and _error_code(r) == "invalid_input"
    assert api.count("dave") == 0
    r = api.req("POST", "/v1/import", params={"user_id": "dave"}, json={"format": "nope"})
    assert r.status_code == 422 and api.count("dave") == 0


# -- errors with stable codes -------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [b"{", b'{"user_id": "bob", "text": }', b"not json at all", b'{"a": 1,}', b"\xff\xfe"],
)
def test_malformed_json_is_400(api: Api, body: bytes):
    for path in ("/v1/memories", "/v1/search", "/v1/import?user_id=bob"):
        r = api.raw("POST", path, body)
        assert r.status_code == 400, (path, r.text)
        assert _error_code(r) == "malformed_json"
    assert api.users() == []


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/memories", {"user_id": "bob", "text": 5}),
        ("/v1/memories", {"user_id": 5, "text": "hello"}),
        ("/v1/memories", {"user_id": "bob", "text": "hello", "metadata": []}),
        ("/v1/memories", {"user_id": "bob", "text": "hello", "metadata": "x"}),
        ("/v1/memories", {"user_id": "bob", "text": "hello", "speaker": 1}),
        ("/v1/memories", {"user_id": "bob", "text": "hello", "timestamp": 1683554160}),
        ("/v1/memories", {"user_id": "bob", "text": "hello", "session_id": ["s1"]}),
        ("/v1/memories", {"user_id": "bob", "text": ["hello"]}),
        ("/v1/memories", {"user_id": "bob", "text": None}),
        ("/v1/memories", {"user_id": "bob"}),
        ("/v1/memories", {"text": "hello"}),
        ("/v1/memories", {"user_id": "bob", "text": "hello", "color": "red"}),
        ("/v1/memories", ["bob", "hello"]),
        ("/v1/memories/batch", {"user_id": "bob", "items": {"text": "x"}}),
        ("/v1/memories/batch", {"user_id": "bob", "items": "x"}),
        ("/v1/memories/batch", {"user_id": "bob", "items": [{"text": "x", "extra": 1}]}),
        ("/v1/memories/batch", {"user_id": "bob", "items": [{"speaker": "x"}]}),
        ("/v1/memories/batch", {"user_id": "bob", "items": [5]}),
        ("/v1/search", {"user_id": "bob", "query": "q", "k": "5"}),
        ("/v1/search", {"user_id": "bob", "query": "q", "k": 5.0}),
        ("/v1/search", {"user_id": "bob", "query": "q", "k": True}),
        ("/v1/search", {"user_id": "bob", "query": "q", "k": 0}),
        ("/v1/search", {"user_id": "bob", "query": "q", "k": -1}),
        ("/v1/search", {"user_id": "bob", "query": "q", "k": MAX_K + 1}),
        ("/v1/search", {"user_id": "bob", "query": "q", "k": 10**30}),
        ("/v1/search", {"user_id": "bob", "query": 5}),
        ("/v1/search", {"user_id": "bob", "question": "q"}),
        ("/v1/recall", {"user_id": "bob", "query": "q", "k": 0}),
        ("/v1/recall", {"user_id": "bob", "query": "q", "k": MAX_K + 1}),
        ("/v1/answer", {"user_id": "bob", "question": "q", "k": 0}),
        ("/v1/answer", {"user_id": "bob", "question": "q", "k": MAX_K + 1}),
        ("/v1/answer", {"user_id": "bob", "query": "q"}),
        ("/v1/import?user_id=bob", ["not", "a", "table"]),
        ("/v1/import", TABLE),  # no user_id
    ],
)
def test_wrong_types_and_unknown_fields_are_422(api: Api, path: str, body: Any):
    r = api.req("POST", path, json=body)
    assert r.status_code == 422, r.text
    assert _error_code(r) == "invalid_request"
    fields = r.json()["error"]["fields"]
    assert fields and all({"field", "problem"} == set(f) for f in fields)
    assert api.users() == []


def test_k_bounds_are_inclusive(api: Api):
    api.add_many("bob", BOB_A)
    for k in (1, 200):
        for path, name in (("/v1/search", "query"), ("/v1/recall", "query")):
            r = api.req("POST", path, json={"user_id": "bob", name: "dog", "k": k})
            assert r.status_code == 200, (path, k)
        r = api.req("POST", "/v1/answer", json={"user_id": "bob", "question": "dog?", "k": k})
        assert r.status_code == 200


@pytest.mark.parametrize("text", ["", " ", "\n\t  ", "\u200b\ufeff\u0301"])
def test_empty_text_is_invalid_input(api: Api, text: str):
    r = api.req("POST", "/v1/memories", json={"user_id": "bob", "text": text})
    assert r.status_code == 422 and _error_code(r) == "invalid_input"
    for path, name in (
        ("/v1/search", "query"),
        ("/v1/recall", "query"),
        ("/v1/answer", "question"),
    ):
        r = api.req("POST", path, json={"user_id": "bob", name: text})
        assert r.status_code == 422 and _error_code(r) == "invalid_input", path
    r = api.req("POST", "/v1/memories", json={"user_id": "", "text": "hi"})
    assert r.status_code == 422 and _error_code(r) == "invalid_input"
    r = api.req("GET", "/v1/memories", params={"user_id": ""})
    assert r.status_code == 422 and _error_code(r) == "invalid_request"
    r = api.req("GET", "/v1/memories")  # no user_id at all
    assert r.status_code == 422 and _error_code(r) == "invalid_request"
    assert api.users() == []


def test_text_over_the_limit_is_text_too_long(make_api):
    api = make_api(max_text_chars=50)
    assert api.add("bob", text="x" * 50)
    r = api.req("POST", "/v1/memories", json={"user_id": "bob", "text": "x" * 51})
    assert r.status_code == 422 and _error_code(r) == "text_too_long"
    items = [{"text": "fine"}, {"text": "y" * 51}]
    r = api.req("POST", "/v1/memories/batch", json={"user_id": "bob", "items": items})
    assert r.status_code == 422 and _error_code(r) == "text_too_long"
    for path, name in (
        ("/v1/search", "query"),
        ("/v1/recall", "query"),
        ("/v1/answer", "question"),
    ):
        r = api.req("POST", path, json={"user_id": "bob", name: "q" * 51})
        assert r.status_code == 422 and _error_code(r) == "text_too_long", path
    assert api.count("bob") == 1


def test_unknown_memory_route_and_method(api: Api):
    r = api.req("GET", "/v1/memories/0123456789abcdef0123456789abcdef", params={"user_id": "bob"})
    assert r.status_code == 404 and _error_code(r) == "not_found"
    for path in ("/v2/memories", "/v1/nope", "/", "/v1/memories/a/b"):
        r = api.req("GET", path, params={"user_id": "bob"})
        assert r.status_code == 404 and _error_code(r) == "no_route", path
    for method, path in (
        ("PUT", "/v1/memories"),
        ("PUT", "/v1/memories/abc"),  # PATCH updates (issue 39)
        ("GET", "/v1/search"),
        ("POST", "/v1/users"),
        ("DELETE", "/v1/export"),
        ("POST", "/v1/health"),
    ):
        r = api.req(method, path)
        assert r.status_code == 405 and _error_code(r) == "method_not_allowed", (method, path)


def test_405_names_the_allowed_methods(api: Api):
    """RFC 9110 15.5.6: a 405 MUST carry Allow. ``_http_error`` rebuilds the response
    from the exception's status and detail and loses ``exc.headers``."""
    r = api.req("PUT", "/v1/memories")
    assert r.status_code == 405
    assert set(r.headers.get("allow", "").replace(" ", "").split(",")) == {"GET", "POST"}


def test_user_ids_up_to_256_characters_work_for_every_tenant(api: Api):
    """``check_id`` caps user ids at 256 characters, the query parameters say
    ``maxLength: 256``, but the library re-checks the *scoped* id ``<tenant>:<user>``:
    for tenant "acme" anything above 251 characters is refused ("user_id is longer
    than 256 characters"), and for a 64-character tenant anything above 191."""
    user = "u" * 256
    r = api.req("POST", "/v1/memories", json={"user_id": user, "text": "hello"})
    assert r.status_code == 201, r.text
    assert api.listing(user)["count"] == 1


def test_user_ids_over_256_characters_are_refused(api: Api):
    user = "u" * 257
    r = api.req("POST", "/v1/memories", json={"user_id": user, "text": "hello"})
    assert r.status_code == 422
    r = api.req("GET", "/v1/memories", params={"user_id": user})
    assert r.status_code == 422
    assert api.users() == []


def test_an_erase_that_cannot_scrub_yet_is_503_erasure_incomplete(open_memory, tmp_path):
    """Another connection's snapshot keeps the erased pages in SQLite's WAL: the rows are
    deleted, but the client is told the bytes are not gone yet, never a clean 200."""
    db = tmp_path / "erase.db"
    mem = open_memory(db, "hybrid", store_options={"scrub_wait_ms": 50})
    client = TestClient(create_app(mem), raise_server_exceptions=False)
    key, _ = KeyRing.of(mem).create("acme")
    auth = {"Authorization": f"Bearer {key}"}
    r = client.post("/v1/memories", json={"user_id": "bob", "text": "PIN 4711"}, headers=auth)
    memory_id = r.json()["id"]
    client.post("/v1/memories", json={"user_id": "eve", "text": "eve's secret"}, headers=auth)
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM memories").fetchone()
    try:
        r = client.delete(f"/v1/memories/{memory_id}", params={"user_id": "bob"}, headers=auth)
        assert r.status_code == 503 and _error_code(r) == "erasure_incomplete", r.text
        assert r.json()["error"]["deleted"] is True
        r = client.delete("/v1/users", params={"user_id": "eve"}, headers=auth)
        assert r.status_code == 503 and _error_code(r) == "erasure_incomplete", r.text
        assert r.json()["error"]["deleted"] == 1
        # the rows are gone either way
        r = client.get(f"/v1/memories/{memory_id}", params={"user_id": "bob"}, headers=auth)
        assert r.status_code == 404
        # a retry is told the same, with the erase's count, until the scrub can finish
        r = client.delete("/v1/users", params={"user_id": "eve"}, headers=auth)
        assert r.status_code == 503 and _error_code(r) == "erasure_incomplete"
        assert r.json()["error"]["deleted"] == 1
        r = client.delete(f"/v1/memories/{memory_id}", params={"user_id": "bob"}, headers=auth)
        assert r.status_code == 503 and r.json()["error"]["deleted"] is True
    finally:
        reader.execute("COMMIT")
        reader.close()
    # the retry that finishes the scrub reports the erase; after it, nothing is left
    r = client.delete("/v1/users", params={"user_id": "eve"}, headers=auth)
    assert r.status_code == 200 and r.json() == {"deleted": 1}
    r = client.delete("/v1/users", params={"user_id": "eve"}, headers=auth)
    assert r.status_code == 200 and r.json() == {"deleted": 0}
    client.close()


def test_a_pending_erase_is_no_signal_to_other_users_and_tenants(open_memory, tmp_path):
    """The scrub is pending for the whole file, but only the requests about the user
    whose erase it is hear of it: any other user's or tenant's delete of nothing is a
    plain 404 (or ``deleted: 0``) at once (issue 34, finding 7)."""
    db = tmp_path / "erase.db"
    mem = open_memory(db, "hybrid", store_options={"scrub_wait_ms": 50})
    client = TestClient(create_app(mem), raise_server_exceptions=False)
    ring = KeyRing.of(mem)
    acme = {"Authorization": f"Bearer {ring.create('acme')[0]}"}
    other = {"Authorization": f"Bearer {ring.create('other')[0]}"}
    client.post("/v1/memories", json={"user_id": "eve", "text": "eve's secret"}, headers=acme)
    client.post("/v1/memories", json={"user_id": "other", "text": "other's note"}, headers=other)
    reader = sqlite3.connect(db, isolation_level=None)
    reader.execute("BEGIN")
    reader.execute("SELECT COUNT(*) FROM memories").fetchone()
    try:
        r = client.delete("/v1/users", params={"user_id": "eve"}, headers=acme)
        assert r.status_code == 503 and r.json()["error"]["deleted"] == 1
        for headers in (other, acme):
            r = client.delete(
                "/v1/memories/nonexistent", params={"user_id": "other"}, headers=headers
            )
            assert r.status_code == 404 and _error_code(r) == "not_found", r.text
            r = client.delete("/v1/users", params={"user_id": "nobody"}, headers=headers)
            assert r.status_code == 200 and r.json() == {"deleted": 0}, r.text
        # another tenant's user of the same name is not the one erased
        r = client.delete("/v1/users", params={"user_id": "eve"}, headers=other)
        assert r.status_code == 200 and r.json() == {"deleted": 0}, r.text
        r = client.get("/v1/memories", params={"user_id": "other"}, headers=other)
        assert r.json()["count"] == 1
    finally:
        reader.execute("COMMIT")
        reader.close()
    client.close()


# -- body size cap --------------------------------------------------------------------------------

CAP = 4096


def _body_of(size: int) -> bytes:
    """An add request of exactly ``size`` bytes."""
    base = json.dumps({"user_id": "bob", "text": ""}).encode()
    text = "x" * (size - len(base))
    out = json.dumps({"user_id": "bob", "text": text}).encode()
    assert len(out) == size
    return out


def _chunks(data: bytes, n: int = 512) -> Iterator[bytes]:
    for i in range(0, len(data), n):
        yield data[i : i + n]


def test_content_length_over_the_cap_is_413(make_api):
    api = make_api(max_body_bytes=CAP)
    for path in ("/v1/memories", "/v1/memories/batch", "/v1/import?user_id=bob", "/v1/search"):
        r = api.raw("POST", path, _body_of(CAP + 1))
        assert r.status_code == 413, path
        assert _error_code(r) == "body_too_large"
    # refused before the key is even looked at: no key, same answer
    r = api.raw("POST", "/v1/memories", _body_of(CAP * 10), tenant=None)
    assert r.status_code == 413
    assert api.users() == []


def test_a_body_at_or_just_under_the_cap_works(make_api):
    api = make_api(max_body_bytes=CAP)
    assert api.raw("POST", "/v1/memories", _body_of(CAP - 1)).status_code == 201
    assert api.raw("POST", "/v1/memories", _body_of(CAP)).status_code == 201
    r = api.req(
        "POST",
        "/v1/memories",
        content=_chunks(_body_of(CAP - 10)),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 201, r.text
    assert api.count("bob") == 3


def test_a_chunked_body_over_the_cap_stores_nothing(make_api):
    api = make_api(max_body_bytes=CAP)
    for body in (_body_of(CAP + 1), _body_of(CAP * 4)):
        r = api.req(
            "POST",
            "/v1/memories",
            content=_chunks(body),
            headers={"content-type": "application/json"},
        )
        assert 400 <= r.status_code < 500, r.text
        assert r.json()["error"]["code"]
    assert api.users() == []


@pytest.mark.parametrize("path", ["/v1/memories", "/v1/memories/batch", "/v1/import?user_id=bob"])
def test_a_chunked_body_over_the_cap_is_413(make_api, path: str):
    """``BodyLimit`` raises ``_TooLarge`` from ``receive``; FastAPI reads the body
    inside ``try: ... except Exception: raise HTTPException(400, "There was an error
    parsing the body")``, so the 413 the middleware means to send never happens."""
    api = make_api(max_body_bytes=CAP)
    r = api.req(
        "POST",
        path,
        content=_chunks(_body_of(CAP * 2)),
        headers={"content-type": "application/json"},
    )
    assert r.status_code == 413 and _error_code(r) == "body_too_large"


# -- injection attempts in every string field ----------------------------------------------------

NASTY = {
    "sql-drop": "'; DROP TABLE memories; --",
    "sql-or": '" OR 1=1 --',
    "sql-like": "%_%' OR user_id LIKE '%",
    "traversal": "../../etc/passwd",
    "traversal-win": "..\\..\\windows\\win.ini",
    "nul": "a\x00b",
    "control": "\x01\x07\x1b[31mred\x7f\r\n\x0b",
    "rtl": "\u202eevil\u202c\u200f\u200b",
    "emoji": "😀 👨‍👩‍👧 🏳️‍🌈",
    "cjk-combining": "記憶 e\u0301 \ufeff",
    "surrogate": "x\ud800y",
    "html": "<script>alert(1)</script><img src=x onerror=alert(1)>",
    "json": '{"$ne": null, "__proto__": {}}',
    "percent": "%00%2F%2e%2e%2F",
    "colon": "globex:bob",
    "long-257": "L" * 257,
    "blank": "   ",
}
FIELDS = [
    "user_id",
    "text",
    "speaker",
    "session_id",
    "metadata_key",
    "metadata_value",
    "query",
    "question",
    "memory_id",
    "timestamp",
]


@pytest.fixture(scope="module")
def shared_api(embedder, tmp_path_factory) -> Iterator[Api]:
    """One app for all injection cases: every case also checks the db still works
    after all the ones before it."""
    db = tmp_path_factory.mktemp("inject") / "inject.db"
    mem = Memory(db, engine="hybrid", embedder=embedder, llm="none")
    client = TestClient(create_app(mem), raise_server_exceptions=False)
    api = Api(client, mem, db)
    for t in TENANTS:
        api.keys[t], info = KeyRing.of(mem).create(t)
        api.key_ids[t] = info.key_id
    api.add("baseline", text="I adopted a greyhound named Biscuit.", tenant="globex")
    yield api
    client.close()
    mem.close()


def _ok_or_4xx(r) -> bool:
    assert r.status_code < 500, (r.status_code, r.text)
    if r.status_code >= 400:
        _error_code(r)
        return False
    return True


@pytest.mark.parametrize("field_name", FIELDS)
@pytest.mark.parametrize("name", list(NASTY))
def test_injection_is_literal_or_refused(shared_api: Api, name: str, field_name: str):
    api = shared_api
    value = NASTY[name]
    user = f"inj-{name}-{field_name}"
    item: dict[str, Any] = {"text": "a plain note about nothing in particular"}
    if field_name in ("text", "speaker", "session_id", "timestamp"):
        item[field_name] = value
    elif field_name == "metadata_key":
        item["metadata"] = {value: "v"}
    elif field_name == "metadata_value":
        item["metadata"] = {"k": value, "nested": [value, {"deeper": value}]}
    if field_name == "user_id":
        user = value

    r = api.raw("POST", "/v1/memories", {"user_id": user, **item})
    stored = _ok_or_4xx(r)
    if name in ("long-257", "blank", "surrogate") and field_name in (
        "user_id",
        "speaker",
        "session_id",
    ):
        assert not stored and r.status_code == 422
    if name == "surrogate" and field_name in ("text", "metadata_key", "metadata_value"):
        assert not stored
    if field_name == "timestamp":
        assert not stored and r.status_code == 422  # none of these is ISO 8601
    if stored:
        mid = r.json()["id"]
        r = api.req("GET", f"/v1/memories/{mid}", params={"user_id": user})
        assert r.status_code == 200, r.text
        got = r.json()
        for k, v in item.items():
            assert got[k] == v, k  # the very same characters come back
        assert user in api.users()
        if field_name == "user_id":
            listed = api.listing(user)
            assert listed["count"] == 1 and listed["memories"][0]["id"] == mid
            r = api.req("GET", "/v1/export", params={"user_id": user})
            assert r.status_code == 200 and r.json()["user_id"] == user
        # search with the value itself as the query
        if value.strip() and "\ud800" not in value:
            _ok_or_4xx(api.raw("POST", "/v1/search", {"user_id": user, "query": value}))
    else:
        assert user not in api.users() or field_name != "user_id"

    if field_name in ("query", "question", "user_id"):
        body_field = "question" if field_name == "question" else "query"
        q = value if field_name != "user_id" else "greyhound"
        for path in ("/v1/search", "/v1/recall", "/v1/answer"):
            key = "question" if path == "/v1/answer" else "query"
            body = {"user_id": user if field_name == "user_id" else "baseline", key: q}
            if body_field == "question" and path != "/v1/answer":
                continue
            r = api.raw("POST", path, body, tenant="globex" if field_name != "user_id" else "acme")
            if _ok_or_4xx(r) and field_name != "user_id":
                assert "Biscuit" in r.text or r.json().get("refused") or r.json().get("hits") == []
        if field_name == "user_id":  # the query-string routes (percent-encoded by hand)
            q = "?user_id=" + quote(value, safe="", errors="surrogatepass")
            for method, path in (
                ("GET", "/v1/memories"),
                ("GET", "/v1/export"),
                ("DELETE", "/v1/users"),
            ):
                _ok_or_4xx(api.req(method, path + q))
            r = api.raw("POST", "/v1/import" + q, TABLE)
            if _ok_or_4xx(r):  # a lone surrogate arrives as U+FFFD (invalid UTF-8 bytes)
                as_sent = value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
                assert api.users().count(as_sent) == 1
                api.req("DELETE", "/v1/users" + q)

    if field_name == "memory_id":
        path = "/v1/memories/" + quote(value, safe="", errors="surrogatepass")
        for method in ("GET", "DELETE"):
            r = api.req(method, path, params={"user_id": "baseline"}, tenant="globex")
            assert not _ok_or_4xx(r), (method, r.text)
            assert r.status_code in (404, 422)

    # the database is intact and still works
    assert {"memories", "api_keys"} <= _table_names(api.db)
    hits = api.search("baseline", "greyhound", tenant="globex")
    assert [h["text"] for h in hits] == ["I adopted a greyhound named Biscuit."]
    assert api.req("GET", "/v1/health").status_code == 200


def test_deeply_nested_metadata_never_poisons_reads(api: Api):
    """``check_metadata`` bounds the JSON size, not its depth. Python's json accepts
    the ~300-deep value, so add stores it; pydantic's response serializer then stops at
    its maximum depth ("Maximum serialization depth exceeded") on every response that
    carries the memory, so one request makes the user's memory unreadable for good.
    Either refuse it on the way in (422) or serve it back."""
    deep = "[" * 300 + "]" * 300
    body = f'{{"user_id": "bob", "text": "a deep thought", "metadata": {{"a": {deep}}}}}'
    r = api.raw("POST", "/v1/memories", body.encode())
    assert r.status_code in (201, 422)
    for r in (
        api.req("GET", "/v1/memories", params={"user_id": "bob"}),
        api.req("POST", "/v1/search", json={"user_id": "bob", "query": "thought"}),
        api.req("GET", "/v1/export", params={"user_id": "bob"}),
    ):
        assert r.status_code < 500, r.text


def test_deeply_nested_json_bodies_are_refused_not_crashed(api: Api):
    for depth in (2_000, 100_000):
        deep = "[" * depth + "]" * depth
        body = f'{{"user_id": "bob", "text": "x", "metadata": {{"a": {deep}}}}}'
        r = api.raw("POST", "/v1/memories", body.encode())
        assert 400 <= r.status_code < 500
    assert api.users() == []


def test_answer_with_naive_and_aware_timestamps(api: Api):
    """A timestamp without an offset ("2023-05-08") is stored naive; the default (now,
    UTC) is aware. The evidence of one answer may hold both (a 500 once: Python
    refuses to compare the two)."""
    api.add("bob", text="I went to the cinema to see a French film.", timestamp="2023-05-08")
    api.add("bob", text="I like pizza with olives.")  # default timestamp: now, aware
    for q in ("What film did I see?", "When did I go to the cinema?", "What do I like?"):
        r = api.req("POST", "/v1/answer", json={"user_id": "bob", "question": q})
        assert r.status_code == 200, r.text
        assert len(r.json()["evidence"]) == 2


@pytest.mark.parametrize("ts", ["0001-01-01T00:00:00+01:00", "9999-12-31T23:59:59-05:00"])
def test_times_that_do_not_exist_in_utc_are_refused_at_add(api: Api, ts: str):
    """Year 0 or year 10000 in UTC: refused when stored (they could never be ordered
    or exported), so nothing accepted can break a later read."""
    r = api.req("POST", "/v1/memories", json={"user_id": "bob", "text": "cinema", "timestamp": ts})
    assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_input", r.text
    assert "range" in r.json()["error"]["message"]
    assert api.req("GET", "/v1/memories", params={"user_id": "bob"}).json()["count"] == 0


@pytest.mark.parametrize("ts", ["0001-01-01T00:00:00+00:00", "9999-12-31T23:59:59Z"])
def test_export_with_extreme_timestamps(api: Api, ts: str):
    """The first and last UTC instants are stored, listed and exported."""
    api.add("bob", text="I went to the cinema.", timestamp=ts)
    assert api.req("GET", "/v1/memories", params={"user_id": "bob"}).status_code == 200
    r = api.req("GET", "/v1/export", params={"user_id": "bob"})
    assert r.status_code == 200, r.text
    assert len(r.json()["entries"]) == 1


def test_export_after_importing_an_extreme_last_recall(api: Api):
    """Same root cause as test_export_with_extreme_timestamps, through import: the
    table's last_recall is accepted, stored as an epoch, and cannot be turned back."""
    table = {
        "format": "remem.global-memory-table/1",
        "entries": [{"text": "a fact", "last_recall": "9999-12-31T23:59:59-05:00"}],
    }
    r = api.req("POST", "/v1/import", params={"user_id": "bob"}, json=table)
    assert r.status_code in (201, 422)
    r = api.req("GET", "/v1/export", params={"user_id": "bob"})
    assert r.status_code == 200, r.text


def test_import_with_a_huge_recall_count(api: Api):
    table = {
        "format": "remem.global-memory-table/1",
        "entries": [{"text": "a fact", "recall_times": 2**70}],
    }
    r = api.req("POST", "/v1/import", params={"user_id": "bob"}, json=table)
    assert r.status_code == 422, r.text
    assert api.count("bob") == 0


def test_import_with_a_huge_recall_count_stores_nothing(api: Api):
    """``Memory._import`` runs ``_insert`` (one transaction) and then
    ``store.table_meta_update`` (another). When the second raises (here SQLite's
    OverflowError on recall_times), the client gets a 500, yet the entries are in."""
    table = {
        "format": "remem.global-memory-table/1",
        "entries": [{"text": "a fact", "recall_times": 2**70}],
    }
    api.req("POST", "/v1/import", params={"user_id": "bob"}, json=table)
    # all or nothing: whatever the status, the failed import left no memory behind
    assert api.count("bob") == 0


# -- keys never reach a log ---------------------------------------------------------------------


def test_keys_never_appear_in_logs(make_api, caplog, capfd):
    caplog.set_level(logging.DEBUG)  # the root logger, so every logger's records land here
    for name in ("remem", "remem.server", "fastapi", "uvicorn", "httpx", "starlette"):
        logging.getLogger(name).setLevel(logging.DEBUG)
    api = make_api()
    ring = KeyRing.of(api.mem)
    revoked, rinfo = ring.create("acme", label="to revoke")
    ring.revoke(rinfo.key_id)
    good, gid = api.keys["acme"], api.key_ids["acme"]
    wrong = f"rmm_{gid}_{'Z' * 43}"
    keys = [good, api.keys["globex"], revoked, wrong]
    secrets = [k.split("_", 2)[2] for k in keys]

    def hdr(key: str, how: int) -> dict[str, str]:
        return {"Authorization": f"Bearer {key}"} if how == 0 else {"X-API-Key": key}

    c = api.client
    for key in keys:
        for how in (0, 1):
            h = hdr(key, how)
            c.post(
                "/v1/memories",
                json={"user_id": "bob", "text": "a fact", "timestamp": "2023-05-08"},
                headers=h,
            )
            c.post("/v1/memories", json={"user_id": "bob", "text": ""}, headers=h)  # 422
            c.post("/v1/memories", json={"user_id": "bob", "text": 5}, headers=h)  # 422
            c.post(
                "/v1/memories", content=b"{oops", headers={**h, "content-type": "application/json"}
            )  # 400
            c.get("/v1/memories/deadbeef", params={"user_id": "bob"}, headers=h)  # 404
            c.get("/v1/nowhere", headers=h)  # 404 no_route
            c.put("/v1/memories", headers=h)  # 405
            c.post("/v1/search", json={"user_id": "bob", "query": "fact", "k": 0}, headers=h)
            c.post("/v1/answer", json={"user_id": "bob", "question": "what fact?"}, headers=h)
            c.get("/v1/export", params={"user_id": "bob"}, headers=h)
    # a genuine server-side failure, logged by the app: the store is gone
    api.mem.close()
    for how in (0, 1):
        r = c.get("/v1/health", headers=hdr(good, how))
        assert r.status_code == 503 and _error_code(r) == "store_unavailable"
        r = c.post("/v1/search", json={"user_id": "bob", "query": "x"}, headers=hdr(good, how))
        assert r.status_code in (500, 503)  # 500: see test_a_closed_store_is_503_everywhere
    assert "store_unavailable" in caplog.text  # proof the records are captured
    out, err = capfd.readouterr()
    everything = caplog.text + out + err + "".join(map(str, caplog.records))
    for k in keys + secrets:
        assert k not in everything


def test_a_failing_endpoint_never_puts_memory_text_in_the_servers_logs(
    open_memory, tmp_path, caplog, capfd, monkeypatch
):
    """An embedding endpoint whose error page echoes the request: the client's 503 may
    carry the message (the client sent the text), the server's log line never does."""
    from echo_llm_server import echo_llm_server
    from remem.embed.openai import OpenAIEmbedder

    monkeypatch.delenv("REMEM_LOG_CONTENT", raising=False)
    caplog.set_level(logging.DEBUG)
    with echo_llm_server("echo_error") as url:
        emb = OpenAIEmbedder("echo", base_url=url, dim=8, retries=0, timeout_s=5)
        mem = Memory(tmp_path / "m.db", engine="bm25", embedder=emb, llm="none")
        try:
            client = TestClient(create_app(mem), raise_server_exceptions=False)
            key, _ = KeyRing.of(mem).create("acme")
            r = client.post(
                "/v1/memories",
                json={"user_id": "bob", "text": "my PIN is 80417723"},
                headers={"Authorization": f"Bearer {key}"},
            )
            assert r.status_code == 503 and _error_code(r) == "embedder_unavailable"
            client.close()
        finally:
            mem.close()
    out, err = capfd.readouterr()
    logged = caplog.text + out + err + "".join(str(r.__dict__) for r in caplog.records)
    assert "embedder_unavailable" in logged  # the failure was logged ...
    assert "80417723" not in logged  # ... without the memory


def test_a_closed_store_is_503_everywhere(api: Api):
    """``KeyRing`` talks to the store directly and skips ``Memory._check_open``; the
    closed SQLite store's ``_con`` is None, so ``key_get`` fails with "'NoneType' object
    has no attribute 'execute'" instead of a StoreError (which would map to 503)."""
    api.mem.close()
    assert api.client.get("/v1/health").status_code == 503
    r = api.req("GET", "/v1/users")
    assert r.status_code == 503 and _error_code(r) == "store_unavailable"


# -- CORS ----------------------------------------------------------------------------------------

PREFLIGHT = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "x-api-key"}


def test_cors_is_off_by_default(api: Api):
    r = api.req("GET", "/v1/users", headers={"Origin": "https://app.example"})
    assert r.status_code == 200
    assert "access-control-allow-origin" not in r.headers
    r = api.client.options("/v1/search", headers={"Origin": "https://app.example", **PREFLIGHT})
    assert r.status_code in (401, 404, 405)
    assert "access-control-allow-origin" not in r.headers


def test_cors_allows_only_the_listed_origins(make_api):
    api = make_api(cors_origins=["https://app.example"])
    r = api.req("GET", "/v1/users", headers={"Origin": "https://app.example"})
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "https://app.example"
    r = api.client.options("/v1/search", headers={"Origin": "https://app.example", **PREFLIGHT})
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == "https://app.example"
    assert "POST" in r.headers["access-control-allow-methods"]
    assert "x-api-key" in r.headers["access-control-allow-headers"].lower()
    for origin in ("https://evil.example", "https://app.example.evil", "http://app.example"):
        r = api.req("GET", "/v1/users", headers={"Origin": origin})
        assert "access-control-allow-origin" not in r.headers, origin
        r = api.client.options("/v1/search", headers={"Origin": origin, **PREFLIGHT})
        assert r.status_code >= 400
        assert "access-control-allow-origin" not in r.headers
    # CORS opens nothing up: still a key for every /v1 route
    r = api.client.get("/v1/users", headers={"Origin": "https://app.example"})
    assert r.status_code == 401


# -- metrics -------------------------------------------------------------------------------------

_SAMPLE = re.compile(r"^(\w+)\{(.*)\} (\S+)$")


def _samples(text: str) -> list[tuple[str, dict[str, str], float]]:
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = _SAMPLE.match(line)
        assert m, line
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        out.append((m.group(1), labels, float(m.group(3))))
    return out


def _count(text: str, method: str, route: str, status: int) -> float:
    for name, labels, value in _samples(text):
        if (
            name == "remem_requests_total"
            and labels["method"] == method
            and labels["route"] == route
            and labels["status"] == str(status)
        ):
            return value
    return 0.0


def test_metrics_count_per_route_template(api: Api):
    ids = api.add_many("bob", BOB_A)
    before = api.client.get("/metrics").text
    for mid in ids:
        api.req("GET", f"/v1/memories/{mid}", params={"user_id": "bob"})
    api.req("GET", "/v1/memories/ffffffffffffffffffffffffffffffff", params={"user_id": "bob"})
    for _ in range(3):
        api.search("bob", "greyhound")
    api.req("POST", "/v1/search", json={"user_id": "bob", "query": "x", "k": 0})
    api.client.get("/v1/users")  # 401
    api.client.get("/v1/secret-path-xyz")
    after = api.client.get("/metrics")
    assert after.status_code == 200
    assert after.headers["content-type"].startswith("text/plain")
    text = after.text
    assert "# TYPE remem_requests_total counter" in text
    assert "# TYPE remem_request_seconds histogram" in text
    route = "/v1/memories/{memory_id}"
    assert _count(text, "GET", route, 200) - _count(before, "GET", route, 200) == 3
    assert _count(text, "GET", route, 404) - _count(before, "GET", route, 404) == 1
    assert _count(text, "POST", "/v1/search", 200) - _count(before, "POST", "/v1/search", 200) == 3
    assert _count(text, "POST", "/v1/search", 422) == 1
    assert _count(text, "GET", "/v1/users", 401) == 1
    assert _count(text, "GET", "unmatched", 404) == 1
    assert _count(text, "POST", "/v1/memories/batch", 201) == 1
    # labels hold templates only: no id, user, tenant, key or raw path
    for _name, labels, _ in _samples(text):
        assert labels["route"] in TEMPLATES | {"unmatched"}, labels
        assert set(labels) <= {"pid", "method", "route", "status", "le"}
    for secret in (*ids, "bob", "acme", "globex", "secret-path-xyz", *api.keys.values()):
        assert secret not in text, secret


def test_metrics_histograms_are_cumulative(api: Api):
    api.add_many("bob", BOB_A)
    for _ in range(4):
        api.search("bob", "greyhound")
        api.client.get("/v1/health")
    samples = _samples(api.client.get("/metrics").text)
    series: dict[tuple, list[tuple[float, float]]] = {}
    counts, sums = {}, {}
    for name, labels, value in samples:
        key = (labels.get("method"), labels.get("route"))
        if name == "remem_request_seconds_bucket":
            le = float("inf") if labels["le"] == "+Inf" else float(labels["le"])
            series.setdefault(key, []).append((le, value))
        elif name == "remem_request_seconds_count":
            counts[key] = value
        elif name == "remem_request_seconds_sum":
            sums[key] = value
    assert ("POST", "/v1/search") in series and ("GET", "/v1/health") in series
    totals: dict[tuple, float] = {}
    for name, labels, value in samples:
        if name == "remem_requests_total":
            key = (labels["method"], labels["route"])
            totals[key] = totals.get(key, 0) + value
    for key, buckets in series.items():
        les = [le for le, _ in buckets]
        assert les == sorted(les) and les[-1] == float("inf")
        values = [v for _, v in buckets]
        assert values == sorted(values), (key, values)  # monotone
        assert values[-1] == counts[key] == totals[key]
        assert sums[key] >= 0
    assert counts[("POST", "/v1/search")] == 4


def test_metrics_can_be_turned_off(make_api):
    api = make_api(metrics=False)
    r = api.client.get("/metrics")
    assert r.status_code == 404 and _error_code(r) == "no_route"


def test_metrics_method_label_is_bounded(api: Api):
    """Each made-up method ("FOO1", "FOO2", ...) that h11 accepts creates a new counter
    and a 14-line histogram that live for the worker's lifetime: unbounded cardinality
    (memory growth, scraper blow-up) from unauthenticated requests. Unknown methods
    should fold into one value (for example "other")."""
    for i in range(5):
        api.client.request(f"FOO{i}", "/v1/health")
    text = api.client.get("/metrics").text
    methods = {labels["method"] for _, labels, _ in _samples(text)}
    assert not any(m.startswith("FOO") for m in methods), methods


# -- a real server: remem serve --workers 2 --------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _http(
    method: str, url: str, key: str | None = None, body: Any = None, timeout: float = 30
) -> tuple[int, str]:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method)
    if key:
        req.add_header("Authorization", f"Bearer {key}")
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _start_server(
    cli: list[str], env: dict[str, str], log_path: Path, workers: int
) -> tuple[subprocess.Popen[bytes], str]:
    """``remem serve`` on a free port, its output in ``log_path``; returns once its
    health route answers (the process, the base URL)."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(
            [*cli, "serve", "--port", str(port), "--workers", str(workers)],
            stdout=log,
            stderr=subprocess.STDOUT,
            env=env,
            start_new_session=True,
        )
    deadline = time.monotonic() + 60
    while True:
        if proc.poll() is not None:
            raise AssertionError(log_path.read_text())
        try:
            if _http("GET", f"{base}/v1/health", timeout=2)[0] == 200:
                return proc, base
        except OSError:
            pass
        if time.monotonic() > deadline:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            raise AssertionError("server did not come up in 60 s")
        time.sleep(0.25)


def _cli_with_a_key(db: Path) -> tuple[list[str], dict[str, str], subprocess.CompletedProcess]:
    """The ``remem`` command line on ``db`` (no REMEM_ variables but the 'none' reader)
    and the finished ``keys create --tenant acme`` that made its first key."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("REMEM_")}
    env.update({"REMEM_LLM": "none", "PYTHONUNBUFFERED": "1"})
    cli = [sys.executable, "-m", "remem.cli", "--db", str(db)]
    made = subprocess.run(
        [*cli, "keys", "create", "--tenant", "acme"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    return cli, env, made


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_real_server_with_two_workers(tmp_path: Path, stop: signal.Signals):
    cli, env, made = _cli_with_a_key(tmp_path / "served.db")
    key = made.stdout.strip()
    assert re.fullmatch(r"rmm_[0-9a-f]{12}_[A-Za-z0-9_-]+", key)
    assert key not in made.stderr

    log_path = tmp_path / "server.log"
    proc, base = _start_server(cli, env, log_path, workers=2)
    try:
        assert _http("GET", f"{base}/v1/users")[0] == 401
        status, body = _http("POST", f"{base}/v1/memories", key, {"user_id": "bob", **BOB_A[0]})
        assert status == 201, body
        mid = json.loads(body)["id"]

        # many searches on fresh connections, in parallel, until both workers have
        # answered: every answer holds the memory, whichever worker stored it
        def searches(expected: set[str], n: int = 16) -> None:
            def one(_: int) -> None:
                status, body = _http(
                    "POST", f"{base}/v1/search", key, {"user_id": "bob", "query": QUESTION}
                )
                assert status == 200, body
                assert {h["id"] for h in json.loads(body)["hits"]} == expected

            with ThreadPoolExecutor(8) as pool:
                list(pool.map(one, range(n)))

        def searches_per_worker() -> dict[str, float]:
            """Each scrape reaches one worker: merge several."""
            seen: dict[str, float] = {}
            for _ in range(10):
                for name, labels, value in _samples(_http("GET", f"{base}/metrics")[1]):
                    if name == "remem_requests_total" and labels["route"] == "/v1/search":
                        seen[labels["pid"]] = max(seen.get(labels["pid"], 0), value)
            return seen

        def until_both_workers(expected: set[str], floor: dict[str, float]) -> dict[str, float]:
            deadline = time.monotonic() + 45
            while True:
                searches(expected)
                seen = searches_per_worker()
                if len([p for p, n in seen.items() if n > floor.get(p, 0)]) >= 2:
                    return seen
                assert time.monotonic() < deadline, f"only worker(s) {seen} answered searches"

        first = until_both_workers({mid}, {})
        assert len(first) == 2
        # both workers have loaded bob's index by now; a memory stored through one of
        # them must show in the next search of each
        status, body = _http("POST", f"{base}/v1/memories", key, {"user_id": "bob", **BOB_A[1]})
        assert status == 201, body
        mid2 = json.loads(body)["id"]
        until_both_workers({mid, mid2}, first)
        status, body = _http("GET", f"{base}/v1/memories/{mid}?user_id=bob", key)
        assert status == 200 and json.loads(body)["text"] == BOB_A[0]["text"]
    finally:
        code = _stopped(proc, stop)
    output = log_path.read_text()
    assert code == 0, output
    assert "Finished server process" in output
    assert "Traceback" not in output
    assert key not in output and key.split("_", 2)[2] not in output
    # no worker outlived the parent (zombies, exited but not yet reaped, don't count)
    time.sleep(0.5)
    ps = subprocess.run(["ps", "-eo", "pid,pgid,stat"], capture_output=True, text=True).stdout
    alive = [r.split() for r in ps.strip().splitlines()[1:]]
    assert not [r for r in alive if r[1] == str(proc.pid) and not r[2].startswith("Z")]


def _search_counts(text: str) -> dict[str, float]:
    """``remem_requests_total`` of 200 answers to ``POST /v1/search``, per worker pid."""
    return {
        labels["pid"]: value
        for name, labels, value in _samples(text)
        if name == "remem_requests_total"
        and labels["route"] == "/v1/search"
        and labels["status"] == "200"
    }


@pytest.mark.parametrize("named", [False, True], ids=["made by serve", "named by operator"])
def test_two_workers_metrics_are_the_servers_totals(tmp_path: Path, named: bool):
    """Whichever worker a scrape reaches, /metrics reports every worker's counts
    (prometheus_client's multiprocess mode, in a directory ``remem serve`` makes in
    the temporary folder and removes when it stops, or the one the operator named in
    ``PROMETHEUS_MULTIPROC_DIR``, used and kept); before, each scrape saw only the
    worker that answered it."""
    cli, env, made = _cli_with_a_key(tmp_path / "served.db")
    key = made.stdout.strip()
    env["TMPDIR"] = str(tmp_path / "tmp")  # where the metrics directory goes
    (tmp_path / "tmp").mkdir()
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    if named:
        env["PROMETHEUS_MULTIPROC_DIR"] = str(tmp_path / "operator")
        (tmp_path / "operator").mkdir()
    log_path = tmp_path / "server.log"
    proc, base = _start_server(cli, env, log_path, workers=2)
    try:
        made_dirs = list((tmp_path / "tmp").glob("remem-metrics-*"))
        if named:
            assert made_dirs == []
            shared = tmp_path / "operator"
        else:
            (shared,) = made_dirs
        status, body = _http("POST", f"{base}/v1/memories", key, {"user_id": "bob", **BOB_A[0]})
        assert status == 201, body
        done = 0

        def search(_: int) -> None:
            status, body = _http("POST", f"{base}/v1/search", key, {"user_id": "bob", "query": "x"})
            assert status == 200, body

        deadline = time.monotonic() + 45
        while True:  # fresh connections in parallel, until both workers have answered
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(search, range(16)))
            done += 16
            counts = _search_counts(_http("GET", f"{base}/metrics")[1])
            if len(counts) == 2:
                break
            assert time.monotonic() < deadline, f"only worker(s) {counts} answered searches"
        # every scrape, whichever worker answers it, holds both workers and the total
        for _ in range(8):
            counts = _search_counts(_http("GET", f"{base}/metrics")[1])
            assert len(counts) == 2 and all(n > 0 for n in counts.values()), counts
            assert sum(counts.values()) == done
        assert any(shared.iterdir())  # the workers' files
    finally:
        code = _stopped(proc, signal.SIGTERM)
    assert code == 0, log_path.read_text()
    # ours is removed at exit (the next run counts from 0); the operator's is theirs
    assert shared.exists() == named and (not named or any(shared.iterdir()))


def test_a_body_that_is_not_sent_as_json_is_415(api: Api):
    # curl -d sends application/x-www-form-urlencoded unless told otherwise
    body = '{"user_id": "bob", "text": "hello"}'
    r = api.req(
        "POST",
        "/v1/memories",
        content=body,
        headers={"Content-Type": "application/x-www-form-urlencoded"},
    )
    assert r.status_code == 415, r.text
    assert r.json()["error"]["code"] == "unsupported_media_type"
    assert "application/json" in r.json()["error"]["message"]
    r = api.req("POST", "/v1/memories", content=body, headers={"Content-Type": "application/json"})
    assert r.status_code == 201


# -- huge numbers: a clear 422 on a connection that stays open -----------------------------


@contextmanager
def _served(mem: Memory) -> Iterator[int]:
    """``create_app(mem)`` under a real uvicorn server on a free port, in a thread."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(create_app(mem), host="127.0.0.1", port=port, log_level="critical")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 30
        while not server.started:
            assert thread.is_alive() and time.monotonic() < deadline, "server did not start"
            time.sleep(0.05)
        yield port
    finally:
        server.should_exit = True
        thread.join(timeout=30)


@pytest.mark.parametrize("huge", [str(10**20), str(2**63)], ids=["1e20", "2^63"])
def test_huge_offset_and_limit_are_422_and_keep_the_connection(open_memory, tmp_path, huge):
    mem = open_memory(tmp_path / "kept.db", "hybrid")
    key, _ = KeyRing.of(mem).create("acme")
    headers = {"Authorization": f"Bearer {key}"}
    with _served(mem) as port:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        try:
            for param in ("offset", "limit"):
                conn.request("GET", f"/v1/memories?user_id=bob&{param}={huge}", headers=headers)
                sock = conn.sock
                r = conn.getresponse()
                body = json.loads(r.read())
                assert r.status == 422, body
                assert body["error"]["code"] == "invalid_request"
                assert param in body["error"]["message"]
                assert not r.will_close  # keep-alive: the next request rides the same socket
                conn.request("GET", "/v1/memories?user_id=bob", headers=headers)
                r = conn.getresponse()
                assert r.status == 200 and json.loads(r.read())["count"] == 0
                assert conn.sock is sock
        finally:
            conn.close()


def test_a_body_without_a_content_type_is_415(api: Api):
    body = b'{"user_id": "bob", "text": "hello"}'
    for path in ("/v1/memories", "/v1/search", "/v1/import?user_id=bob"):
        r = api.req("POST", path, content=body)  # raw bytes: httpx names no type
        assert "content-type" not in r.request.headers
        assert r.status_code == 415, (path, r.text)
        assert _error_code(r) == "unsupported_media_type"
        assert "Content-Type: application/json" in r.json()["error"]["message"]
    # no body and no type: the body is missing, which is a 422 as before
    r = api.req("POST", "/v1/memories")
    assert r.status_code == 422 and _error_code(r) == "invalid_request"
    assert api.users() == []


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/v1/memories", b'{"user_id": "bob", "text": "hello", "text": "bye"}'),
        ("/v1/memories", b'{"user_id": "eve", "text": "hello", "user_id": "bob"}'),
        ("/v1/memories", b'{"user_id": "bob", "text": "x", "metadata": {"k": 1, "k": 2}}'),
        ("/v1/memories/batch", b'{"user_id": "bob", "items": [{"text": "a", "text": "b"}]}'),
        ("/v1/search", b'{"user_id": "bob", "query": "q", "k": 1, "k": 2}'),
        ("/v1/import?user_id=bob", b'{"format": "x", "entries": [], "entries": []}'),
    ],
)
def test_json_with_a_key_twice_in_one_object_is_refused(api: Api, path: str, body: bytes):
    """JSON parsers disagree on which of two equal keys wins (Python's last, some
    first); a proxy or a validator in front could have checked the other one."""
    r = api.raw("POST", path, body)
    assert r.status_code == 422, r.text
    assert _error_code(r) == "duplicate_key"
    assert "twice" in r.json()["error"]["message"]
    assert api.users() == []
    # the same key in two different objects is fine
    ok = b'{"user_id": "bob", "items": [{"text": "a"}, {"text": "b"}]}'
    assert api.raw("POST", "/v1/memories/batch", ok).status_code == 201


def test_a_broken_json_body_on_a_route_without_one_is_ignored(api: Api):
    for body in (b"{oops", b'{"a": 1, "a": 2}', b"[" * 100_000):
        r = api.raw("GET", "/v1/users", body)
        assert r.status_code == 200, r.text


def test_no_page_served_loads_anything_from_another_host(api: Api):
    """remem works offline: no docs page that fetches Swagger UI from a CDN. The
    schema stays at /openapi.json for any OpenAPI viewer."""
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        r = api.client.get(path)
        assert r.status_code == 404 and _error_code(r) == "no_route", path
    api.add("bob", text="a fact")
    fetched = []
    # app.state.routes: every route flat (app.routes holds each included router as one entry)
    for route in api.client.app.state.routes:  # type: ignore[attr-defined]
        if "GET" not in (getattr(route, "methods", None) or ()) or "{" in route.path:
            continue
        r = api.req("GET", route.path, params={"user_id": "bob"})
        if route.path == "/v1/short-term":  # hybrid has none: a JSON error, no page
            assert r.status_code == 422, r.text
            continue
        assert r.status_code == 200, (route.path, r.text)
        assert not re.search(r"https?://|//cdn", r.text), route.path
        fetched.append(route.path)
    assert {"/openapi.json", "/v1/health", "/v1/users", "/metrics", "/ui/"} <= set(fetched)


# -- keys in the URL -----------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["api_key", "apiKey", "key", "token", "access_token", "x-api-key"])
def test_a_key_in_the_query_string_is_refused_with_where_keys_go(api: Api, name: str):
    key = api.keys["acme"]
    for headers in ({}, api.auth("acme")):  # refused even beside a good header
        r = api.client.get("/v1/users", params={name: key}, headers=headers)
        assert r.status_code == 400, (name, r.text)
        assert _error_code(r) == "key_in_url"
        message = r.json()["error"]["message"]
        assert "Authorization: Bearer" in message and "X-API-Key" in message
        assert key not in r.text
    # a key-shaped value under any name, on any route, the open ones too
    for path in ("/v1/health", "/v1/memories"):
        r = api.client.get(path, params={"user_id": key}, headers=api.auth("acme"))
        assert r.status_code == 400 and _error_code(r) == "key_in_url", path
    r = api.req("POST", "/v1/memories", params={"token": "x"}, json={"user_id": "b", "text": "t"})
    assert r.status_code == 400 and api.users() == []
    # an ordinary query string is fine
    assert api.req("GET", "/v1/memories", params={"user_id": "bob", "limit": 5}).status_code == 200


def test_the_access_log_holds_no_query_string(tmp_path: Path):
    """uvicorn's access log writes each request's path with its query string: a key
    sent as ``?api_key=`` (refused, but sent all the same) and the user ids of GET
    routes would be kept in the log. The real server, its real log."""
    cli, env, made = _cli_with_a_key(tmp_path / "served.db")
    key = made.stdout.strip()
    secret = key.split("_", 2)[2]
    user = "private-user-7731"
    log_path = tmp_path / "server.log"
    proc, base = _start_server(cli, env, log_path, workers=1)
    try:
        status, body = _http("GET", f"{base}/v1/users?api_key={key}")
        assert status == 400 and json.loads(body)["error"]["code"] == "key_in_url", body
        status, body = _http("GET", f"{base}/v1/memories?user_id={user}&limit=5", key)
        assert status == 200, body
        status, _ = _http("GET", f"{base}/v1/{key}")
        assert status == 404
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    log = log_path.read_text()
    # the requests were logged (method, path, status) ...
    assert re.search(r'"GET /v1/users\S* HTTP/1.1" 400', log), log
    assert re.search(r'"GET /v1/memories\S* HTTP/1.1" 200', log), log
    # ... with nothing of their query strings or of a key in a path
    for secret_text in (key, secret, user, "api_key", "limit=5"):
        assert secret_text not in log, secret_text


def _stopped(proc: subprocess.Popen, sig: int) -> int:
    """Stop a server process with ``sig`` (unless it ended) and its exit status; its
    whole group is killed when it does not stop within 30 s."""
    if proc.poll() is None:
        proc.send_signal(sig)
    try:
        return proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
