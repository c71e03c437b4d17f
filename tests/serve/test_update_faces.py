"""Updating a memory and reading its versions over HTTP (``PATCH /v1/memories/{id}``,
``GET /v1/memories/{id}/history``) and MCP (``update_memory``, ``memory_history``):
the library's update behind the tenant view, so one tenant (or user) never changes or
sees another's memory: a wrong one gets the very not-found of a missing id."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from remem.keys import KeyRing
from remem.serve.http import create_app

BIKE = "My bike is red and I ride it to work."
MISSING = "f" * 32


@pytest.fixture
def http(open_memory, tmp_path: Path):
    mem = open_memory(tmp_path / "faces.db", "hybrid")
    ring = KeyRing.of(mem)
    keys = {t: ring.create(t)[0] for t in ("acme", "globex")}
    with TestClient(create_app(mem), raise_server_exceptions=False) as client:

        def req(method: str, path: str, tenant: str = "acme", **kw: Any):
            headers = {"Authorization": f"Bearer {keys[tenant]}"}
            return client.request(method, path, headers=headers, **kw)

        yield req


def _add(req, user: str = "bob", tenant: str = "acme") -> str:
    r = req("POST", "/v1/memories", tenant, json={"user_id": user, "text": BIKE, "metadata": {}})
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_http_update_then_history(http):
    mid = _add(http)
    body = {"user_id": "bob", "text": "My bike is blue now.", "metadata": {"k": 1}}
    r = http("PATCH", f"/v1/memories/{mid}", json=body)
    assert r.status_code == 200, r.text
    hit = r.json()
    assert (hit["id"], hit["text"], hit["metadata"], hit["score"]) == (
        mid,
        "My bike is blue now.",
        {"k": 1},
        1.0,
    )
    r = http("PATCH", f"/v1/memories/{mid}", json={"user_id": "bob", "timestamp": "2024-01-02"})
    assert r.status_code == 200 and r.json()["timestamp"].startswith("2024-01-02")
    r = http("POST", "/v1/search", json={"user_id": "bob", "query": "bike colour", "k": 1})
    assert r.json()["hits"][0]["text"] == "My bike is blue now."
    r = http("GET", f"/v1/memories/{mid}/history", params={"user_id": "bob"})
    assert r.status_code == 200, r.text
    versions = r.json()["versions"]
    assert [v["version"] for v in versions] == [1, 2, 3]
    assert [v["changed"] for v in versions] == [[], ["text", "metadata"], ["timestamp"]]
    assert versions[0]["text"] == BIKE and versions[-1]["text"] == "My bike is blue now."
    assert all(isinstance(v["at"], str) for v in versions)


def test_http_other_tenant_or_user_gets_the_not_found_of_a_missing_id(http):
    mid = _add(http)
    for tenant, user in (("globex", "bob"), ("acme", "eve")):
        for method, path, kw in (
            ("PATCH", "/v1/memories/{}", {"json": {"user_id": user, "text": "stolen"}}),
            ("GET", "/v1/memories/{}/history", {"params": {"user_id": user}}),
        ):
            theirs = http(method, path.format(mid), tenant, **kw)
            missing = http(method, path.format(MISSING), tenant, **kw)
            assert theirs.status_code == missing.status_code == 404
            assert theirs.json()["error"]["code"] == "not_found"
            assert theirs.text.replace(mid, "ID") == missing.text.replace(MISSING, "ID")
            assert user not in theirs.text and "acme" not in theirs.text
    r = http("GET", f"/v1/memories/{mid}/history", params={"user_id": "bob"})
    assert [v["text"] for v in r.json()["versions"]] == [BIKE]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({}, "invalid_input"),
        ({"text": None}, "invalid_input"),
        ({"text": ""}, "invalid_input"),
        ({"text": "x" * 100_001}, "text_too_long"),
        ({"text": 5}, None),
        ({"metadata": "a=b"}, None),
        ({"timestamp": "soonish"}, "invalid_input"),
        ({"speaker": "Eve"}, None),  # not a field an update changes
        ({"session_id": "s9"}, None),
    ],
)
def test_http_bad_update_is_a_422_and_changes_nothing(http, body, code):
    mid = _add(http)
    r = http("PATCH", f"/v1/memories/{mid}", json={"user_id": "bob", **body})
    assert r.status_code == 422, r.text
    if code is not None:
        assert r.json()["error"]["code"] == code
    r = http("GET", f"/v1/memories/{mid}", params={"user_id": "bob"})
    assert r.json()["text"] == BIKE
    r = http("GET", f"/v1/memories/{mid}/history", params={"user_id": "bob"})
    assert len(r.json()["versions"]) == 1


def test_http_delete_takes_the_history(http):
    mid = _add(http)
    http("PATCH", f"/v1/memories/{mid}", json={"user_id": "bob", "text": "changed"})
    assert http("DELETE", f"/v1/memories/{mid}", params={"user_id": "bob"}).status_code == 200
    r = http("GET", f"/v1/memories/{mid}/history", params={"user_id": "bob"})
    assert r.status_code == 404


# -- MCP ------------------------------------------------------------------------------------

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402

from remem.serve.mcp import create_server  # noqa: E402


def _data(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.content
    return result.structured_content


def _error(result: Any) -> str:
    assert result.is_error, result
    return result.content[0].text


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_mcp_update_and_history(mem) -> None:
    async with (
        Client(create_server(mem, tenant="acme", log_level="CRITICAL")) as acme,
        Client(create_server(mem, tenant="globex", log_level="CRITICAL")) as globex,
    ):
        mid = _data(await acme.call_tool("add_memory", {"user_id": "bob", "text": BIKE}))["id"]
        ask = {"user_id": "bob", "memory_id": mid}
        hit = _data(await acme.call_tool("update_memory", {**ask, "text": "My bike is blue."}))
        assert (hit["id"], hit["text"]) == (mid, "My bike is blue.")
        hit = _data(await acme.call_tool("update_memory", {**ask, "metadata": {"k": 2}}))
        assert hit["metadata"] == {"k": 2} and hit["text"] == "My bike is blue."
        found = _data(await acme.call_tool("search_memory", {"user_id": "bob", "query": "bike"}))
        assert [h["text"] for h in found["hits"]] == ["My bike is blue."]
        versions = _data(await acme.call_tool("memory_history", ask))["versions"]
        assert [(v["version"], v["changed"]) for v in versions] == [
            (1, []),
            (2, ["text"]),
            (3, ["metadata"]),
        ]
        # another tenant, another user, a missing id: one and the same error
        missing = {"user_id": "bob", "memory_id": MISSING}
        for client, args in ((globex, ask), (acme, {"user_id": "eve", "memory_id": mid})):
            for tool, extra in (("update_memory", {"text": "stolen"}), ("memory_history", {})):
                theirs = _error(await client.call_tool(tool, {**args, **extra}))
                absent = _error(await client.call_tool(tool, {**missing, **extra}))
                assert theirs.replace(mid, "ID") == absent.replace(MISSING, "ID")
                assert "no memory" in theirs
        # bad input is a tool error and changes nothing
        for bad in ({}, {"text": ""}, {"text": 5}, {"timestamp": "soon"}, {"speaker": "x"}):
            assert _error(await acme.call_tool("update_memory", {**ask, **bad}))
        assert len(_data(await acme.call_tool("memory_history", ask))["versions"]) == 3
        assert _data(await acme.call_tool("forget", ask)) == {"deleted": True}
        assert "no memory" in _error(await acme.call_tool("memory_history", ask))
